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
    /// The hosts a token must have been solved on (the answer's `hostname`), when set.
    let hostnames: Set<String>?
    /// The action a token must name (the answer's `action`), when set.
    let action: String?
    let target: OutboundTarget
    let timeout: TimeAmount

    public init(provider: Provider, secret: String, verifyURL: String? = nil, minScore: Double = 0.5,
                hostnames: [String]? = nil, action: String? = nil,
                target: OutboundTarget = .captcha, timeout: TimeAmount = .seconds(5)) {
        self.provider = provider
        self.secret = secret
        self.verifyURL = verifyURL ?? provider.verifyURL
        self.minScore = minScore
        self.hostnames = hostnames.map { Set($0.map { $0.lowercased() }) }
        self.action = action
        self.target = target
        self.timeout = timeout
    }

    public func verify(_ token: String, remoteIP: String?) async throws -> CaptchaVerdict {
        var fields = ["secret": secret, "response": token]
        if let remoteIP { fields["remoteip"] = remoteIP }
        var request = HTTPClientRequest(url: verifyURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let (response, body) = try await target.call(request, timeout: timeout, maximumBody: 64 << 10)
        guard (200..<300).contains(response.status.code),
              let reply = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        else { throw CaptchaProviderError(status: Int(response.status.code)) }
        var reasons = reply["error-codes"] as? [String] ?? []
        var passed = reply["success"] as? Bool == true
        if passed, let score = (reply["score"] as? NSNumber)?.doubleValue, score < minScore {
            passed = false
            reasons.append("score \(score) below \(minScore)")
        }
        // A token solved elsewhere (a farm's page) or for another action passes the provider but not this site.
        if passed, let hostnames, !hostnames.contains(((reply["hostname"] as? String) ?? "").lowercased()) {
            passed = false
            reasons.append("hostname \(reply["hostname"] as? String ?? "missing") not configured")
        }
        if passed, let action, (reply["action"] as? String) != action {
            passed = false
            reasons.append("action \(reply["action"] as? String ?? "missing") is not \(action)")
        }
        return CaptchaVerdict(passed: passed, reasons: reasons)
    }
}

/// The provider answered with something other than a verdict (an error page, a 5xx).
public struct CaptchaProviderError: Error, CustomStringConvertible {
    public let status: Int
    public var description: String { "the CAPTCHA provider answered HTTP \(status) without a verdict" }
}
