/// `accounts:signInWithCustomToken` (v3 `verifyCustomToken`).
public struct SignInWithCustomTokenRequest: Codable, Sendable, Equatable {
    public var token: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?

    public init(token: String?, tenantId: String? = nil, returnSecureToken: Bool? = true) {
        self.token = token
        self.tenantId = tenantId
        self.returnSecureToken = returnSecureToken
    }
}

extension SignInWithCustomTokenRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["instanceId", "delegatedProjectNumber"]
}

public struct SignInWithCustomTokenResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#VerifyCustomTokenResponse"
    public var isNewUser: Bool
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: String
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?

    public init(isNewUser: Bool, idToken: String, refreshToken: String, expiresIn: String) {
        self.isNewUser = isNewUser
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
