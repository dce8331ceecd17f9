/// `accounts:createAuthUri` (v3 `createAuthUri`): how an email can sign in (`fetchSignInMethods(forEmail:)`),
/// or, with `providerId`, the start of a federated redirect flow.
public struct CreateAuthUriRequest: Codable, Sendable, Equatable {
    public var identifier: String?
    public var continueUri: String?
    public var providerId: String?
    public var tenantId: String?
    /// Redirect flow: extra authorization parameters (`lang`, `prompt`, …) and scopes (comma- or space-separated).
    public var customParameter: [String: String]?
    public var oauthScope: String?
    /// The caller's own session id: an email lookup answers with it, as Firebase does.
    public var sessionId: String?

    public init(identifier: String?, continueUri: String? = "http://localhost", providerId: String? = nil) {
        self.identifier = identifier
        self.continueUri = continueUri
        self.providerId = providerId
    }
}

extension CreateAuthUriRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["openidRealm", "otaApp", "oauthConsumerKey", "context", "appId", "clientId", "authFlowType", "hostedDomain"]
}

public struct CreateAuthUriResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#CreateAuthUriResponse"
    /// Omitted under email-enumeration protection, with `allProviders` and `signinMethods`.
    public var registered: Bool?
    public var allProviders: [String]?
    public var signinMethods: [String]?
    public var sessionId: String
    public var authUri: String?
    public var providerId: String?

    public init(registered: Bool?, allProviders: [String]?, signinMethods: [String]?, sessionId: String) {
        self.registered = registered
        self.allProviders = allProviders
        self.signinMethods = signinMethods
        self.sessionId = sessionId
    }
}
