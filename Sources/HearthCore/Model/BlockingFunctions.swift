import Foundation

/// A project's blocking functions (Firebase's `blockingFunctions` config), as the config resource has them: which
/// function each event calls, and which of an identity provider's credentials it receives (docs/blocking-functions.md).
public struct BlockingFunctions: Sendable, Codable, Equatable {
    /// The events Firebase can block on.
    public static let events: Set<String> = ["beforeCreate", "beforeSignIn", "beforeSendEmail", "beforeSendSms"]

    public struct Trigger: Sendable, Codable, Equatable {
        public var functionURI: String
        public var updatedAt: Date
        public init(functionURI: String, updatedAt: Date) {
            self.functionURI = functionURI
            self.updatedAt = updatedAt
        }
    }

    /// Triggers by event name.
    public var triggers: [String: Trigger] = [:]
    /// `forwardInboundCredentials`: which of the IdP's credentials a function would receive.
    public var forwardIDToken = false
    public var forwardAccessToken = false
    public var forwardRefreshToken = false

    public init() {}

    /// Checks triggers as Firebase does: a known event, and an absolute http(s) URI with a host.
    public static func validate(event: String, functionURI: String) throws {
        guard events.contains(event) else { throw AuthFailure.invalidBlockingFunction("((Event type is invalid.))") }
        guard let url = URLComponents(string: functionURI), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              !(url.host ?? "").isEmpty
        else { throw AuthFailure.invalidBlockingFunction("((Expected an absolute URI with valid scheme and host.))") }
    }
}
