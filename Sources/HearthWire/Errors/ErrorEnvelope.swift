import Foundation

/// Google's error envelope: `{"error":{"code":400,"message":"CODE : detail","errors":[…],"status":…}}`.
///
/// Business errors (400 with a Firebase code) carry no `status`; transport and validation errors do
/// (`INVALID_ARGUMENT`, `PERMISSION_DENIED`, `NOT_FOUND`, …). Clients split `message` at the first colon.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public var error: Body

    public struct Body: Codable, Sendable, Equatable {
        public var code: Int
        public var message: String
        public var errors: [Item]
        public var status: String?
    }

    public struct Item: Codable, Sendable, Equatable {
        public var message: String
        public var domain: String?
        public var reason: String
        public var location: String?
        public var locationType: String?
    }

    /// Google's 401 for a missing or bad bearer token on an admin call.
    public static let unauthenticated: Self = {
        var envelope = Self(
            code: 401,
            message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            reason: "authError", status: "UNAUTHENTICATED")
        envelope.error.errors = [Item(message: "Invalid Credentials", domain: "global", reason: "authError",
                                      location: "Authorization", locationType: "header")]
        return envelope
    }()

    public init(code: Int, message: String, reason: String, domain: String? = "global", status: String? = nil) {
        error = Body(code: code, message: message,
                     errors: [Item(message: message, domain: domain, reason: reason)], status: status)
    }

    /// A Firebase business error: 400, `CODE` or `CODE : detail`, reason `invalid`, no status.
    public static func business(_ code: ServerErrorCode, detail: String? = nil) -> Self {
        let message = detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue
        return Self(code: 400, message: message, reason: "invalid")
    }

    /// The Firebase code at the start of `message` (what clients switch on).
    public var serverCode: String {
        let message = error.message
        guard let colon = message.range(of: " : ") else { return message }
        return String(message[..<colon.lowerBound])
    }
}
