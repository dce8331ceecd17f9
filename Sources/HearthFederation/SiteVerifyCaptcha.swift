import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore

/// Checks CAPTCHA tokens with a provider's `siteverify` endpoint. Turnstile, hCaptcha and reCAPTCHA (v2 and v3) share
/// one protocol: a form POST of `secret`, `response` and `remoteip`, answered with JSON `{"success": …,
/// "error-codes": […]}` (and, for reCAPTCHA v3, a `score` held to `minScore`). Each token is asked about once:
/// providers refuse a second use (`timeout-or-duplicate`), so nothing is cached here.
///
/// ```swift
/// let verifier = SiteVerifyCaptcha(provider: .turnstile, secret: "0x4AAA…")
/// let verdict = try await verifier.verify(token, remoteIP: "203.0.113.7")
/// ```
public struct SiteVerifyCaptcha: CaptchaVerifier {
    public enum Provider: String, Sendable, CaseIterable {
        case turnstile, hcaptcha, recaptcha

        /// The provider's public endpoint.
        public var verifyURL: String {
            switch self {
            case .turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify"
            case .hcaptcha: "https://api.hcaptcha.com/siteverify"
            case .recaptcha: "https://www.google.com/recaptcha/api/siteverify"
            }
        }
    }

    public let provider: Provider
    let secret: String
    let verifyURL: String
    let minScore: Double
    let http: HTTPClient
    let timeout: TimeAmount

    public init(provider: Provider, secret: String, verifyURL: String? = nil, minScore: Double = 0.5,
                http: HTTPClient = .shared, timeout: TimeAmount = .seconds(5)) {
        self.provider = provider
        self.secret = secret
        self.verifyURL = verifyURL ?? provider.verifyURL
        self.minScore = minScore
        self.http = http
        self.timeout = timeout
    }

    public func verify(_ token: String, remoteIP: String?) async throws -> CaptchaVerdict {
        var fields = ["secret": secret, "response": token]
        if let remoteIP { fields["remoteip"] = remoteIP }
        var request = HTTPClientRequest(url: verifyURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let response = try await http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 << 10)
        guard (200..<300).contains(response.status.code),
              let reply = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        else { throw CaptchaProviderError(status: Int(response.status.code)) }
        var reasons = reply["error-codes"] as? [String] ?? []
        var passed = reply["success"] as? Bool == true
        if passed, let score = (reply["score"] as? NSNumber)?.doubleValue, score < minScore {
            passed = false
            reasons.append("score \(score) below \(minScore)")
        }
        return CaptchaVerdict(passed: passed, reasons: reasons)
    }
}

/// The provider answered with something other than a verdict (an error page, a 5xx).
public struct CaptchaProviderError: Error, CustomStringConvertible {
    public let status: Int
    public var description: String { "the CAPTCHA provider answered HTTP \(status) without a verdict" }
}
