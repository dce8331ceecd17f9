import Foundation

/// Where a CAPTCHA token is checked: the provider's `siteverify` (Turnstile, hCaptcha, reCAPTCHA), or a stand-in.
///
/// ```swift
/// struct AlwaysHuman: CaptchaVerifier {
///     func verify(_ token: String, remoteIP: String?) async throws -> CaptchaVerdict { CaptchaVerdict(passed: true) }
/// }
/// ```
public protocol CaptchaVerifier: Sendable {
    /// The provider's verdict on `token`, solved by the client at `remoteIP`. Throws when the provider cannot be asked.
    func verify(_ token: String, remoteIP: String?) async throws -> CaptchaVerdict
}

/// A provider's answer: passed or not, and its reasons (`timeout-or-duplicate`, `invalid-input-response`, a low score).
public struct CaptchaVerdict: Sendable, Equatable {
    public var passed: Bool
    public var reasons: [String]

    public init(passed: Bool, reasons: [String] = []) {
        self.passed = passed
        self.reasons = reasons
    }
}

/// Identity Platform's `recaptchaConfig` enforcement, per provider: `OFF`, `AUDIT` (checked and recorded, never
/// refused) or `ENFORCE` (a request without a passing token is refused).
public enum CaptchaEnforcement: String, Sendable, Codable, CaseIterable {
    case off = "OFF", audit = "AUDIT", enforce = "ENFORCE"
}

/// Which requests a project's (or tenant's) CAPTCHA check covers: the email/password provider (sign-up, password
/// sign-in, reset and sign-in-link emails) and the phone provider (every SMS code).
public struct CaptchaSettings: Sendable, Codable, Equatable {
    public var emailPassword: CaptchaEnforcement
    public var phone: CaptchaEnforcement

    public init(emailPassword: CaptchaEnforcement = .off, phone: CaptchaEnforcement = .off) {
        self.emailPassword = emailPassword
        self.phone = phone
    }
}
