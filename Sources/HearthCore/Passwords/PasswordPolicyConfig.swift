import Foundation

/// A project's or tenant's password policy, as Identity Platform's `passwordPolicyConfig` has it: length bounds and
/// the kinds of character a password must contain, enforced (`ENFORCE`) on every new password (sign-up, change,
/// reset) or not (`OFF`), and with `forceUpgradeOnSignin` on sign-in too.
///
/// ```swift
/// var policy = PasswordPolicyConfig(enforcement: .enforce)
/// policy.minLength = 10
/// policy.requireUppercase = true
/// policy.unmet(by: "short")   // [.minimumLength(10), .uppercase]
/// ```
public struct PasswordPolicyConfig: Sendable, Codable, Equatable {
    public enum Enforcement: String, Sendable, Codable { case off = "OFF", enforce = "ENFORCE" }

    public var enforcement: Enforcement
    public var forceUpgradeOnSignin = false
    /// 6 to 30, as Identity Platform allows.
    public var minLength = 6
    /// At most 4096.
    public var maxLength = 4096
    public var requireLowercase = false
    public var requireUppercase = false
    public var requireNumeric = false
    public var requireNonAlphanumeric = false
    public var updatedAt: Date?

    public init(enforcement: Enforcement) { self.enforcement = enforcement }

    /// The characters that count as non-alphanumeric (Identity Platform's list; the SDKs are told it).
    public static let nonAlphanumeric: [Character] = Array("^$*.[]{}()?\"!@#%&/\\,><':;|_~`")

    /// What a password lacks, in Identity Platform's order. Lengths count UTF-16 units, as the SDKs' checks do.
    public func unmet(by password: String) -> [PasswordRequirement] {
        var missing: [PasswordRequirement] = []
        let length = password.utf16.count
        if length < minLength { missing.append(.minimumLength(minLength)) }
        if length > maxLength { missing.append(.maximumLength(maxLength)) }
        if requireLowercase, !password.contains(where: { ("a"..."z").contains($0) }) { missing.append(.lowercase) }
        if requireUppercase, !password.contains(where: { ("A"..."Z").contains($0) }) { missing.append(.uppercase) }
        if requireNumeric, !password.contains(where: { ("0"..."9").contains($0) }) { missing.append(.numeric) }
        if requireNonAlphanumeric, !password.contains(where: Self.nonAlphanumeric.contains) { missing.append(.nonAlphanumeric) }
        return missing
    }

    /// Refuses a configuration Identity Platform refuses (`INVALID_CONFIG` with its words).
    public func validate() throws {
        guard (6...30).contains(minLength) else {
            throw AuthFailure.invalidConfig("((minPasswordLength must be an integer between 6 and 30, inclusive.))")
        }
        guard maxLength >= minLength, maxLength <= 4096 else {
            throw AuthFailure.invalidConfig("((maxPasswordLength must be greater than or equal to minPasswordLength and at most 4096.))")
        }
    }
}

/// One requirement a password does not meet: its code (a sign-in's `userNotifications`) and message (as Identity
/// Platform words them in `PASSWORD_DOES_NOT_MEET_REQUIREMENTS`).
public enum PasswordRequirement: Sendable, Equatable {
    case minimumLength(Int), maximumLength(Int), lowercase, uppercase, numeric, nonAlphanumeric

    public var code: String {
        switch self {
        case .minimumLength: "MINIMUM_PASSWORD_LENGTH"
        case .maximumLength: "MAXIMUM_PASSWORD_LENGTH"
        case .lowercase: "MISSING_LOWERCASE_CHARACTER"
        case .uppercase: "MISSING_UPPERCASE_CHARACTER"
        case .numeric: "MISSING_NUMERIC_CHARACTER"
        case .nonAlphanumeric: "MISSING_NON_ALPHANUMERIC_CHARACTER"
        }
    }

    public var message: String {
        switch self {
        case .minimumLength(let count): "Password must contain at least \(count) characters"
        case .maximumLength(let count): "Password may contain at most \(count) characters"
        case .lowercase: "Password must contain a lower case character"
        case .uppercase: "Password must contain an upper case character"
        case .numeric: "Password must contain a numeric character"
        case .nonAlphanumeric: "Password must contain a non-alphanumeric character"
        }
    }
}
