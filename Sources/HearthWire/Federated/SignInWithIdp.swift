/// `accounts:signInWithIdp` (v3 `verifyAssertion`): sign in, sign up or link with an identity provider's credential.
/// `postBody` is URL-encoded: `providerId`, `id_token`, `access_token`, `oauth_token_secret`, `code`, `nonce`, `user`.
public struct SignInWithIdpRequest: Codable, Sendable, Equatable {
    public var requestUri: String?
    public var postBody: String?
    public var sessionId: String?
    public var idToken: String?
    public var returnIdpCredential: Bool?
    public var returnSecureToken: Bool?
    public var tenantId: String?
    public var pendingToken: String?
    /// Read for their types only (Hearth always creates the account and returns a refresh token, as Firebase).
    public var autoCreate: Bool?
    public var returnRefreshToken: Bool?

    public init(requestUri: String?, postBody: String?, idToken: String? = nil, returnIdpCredential: Bool? = nil) {
        self.requestUri = requestUri
        self.postBody = postBody
        self.idToken = idToken
        self.returnIdpCredential = returnIdpCredential
    }

    /// The fields of `postBody`.
    public var postBodyFields: [String: String] {
        var fields: [String: String] = [:]
        for pair in (postBody ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}

extension SignInWithIdpRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["delegatedProjectNumber", "instanceId", "pendingIdToken"]
}

/// `VerifyAssertionResponse`: the IdP's profile and credential, then tokens — or `needConfirmation`, or
/// `errorMessage` (200) when the credential is linked elsewhere and the client asked for it back.
public struct SignInWithIdpResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#VerifyAssertionResponse"
    public var context = ""
    public var providerId: String
    public var displayName: String?
    public var fullName: String?
    public var firstName: String?
    public var lastName: String?
    public var screenName: String?
    public var email: String?
    public var emailVerified: Bool?
    public var photoUrl: String?
    public var rawUserInfo: String?
    public var federatedId: String
    public var oauthAccessToken: String?
    public var oauthIdToken: String?
    public var oauthTokenSecret: String?
    public var oauthRefreshToken: String?
    public var oauthExpireIn: Int?
    /// Present (true) only for a new account, as Firebase's emulator does.
    public var isNewUser: Bool?
    public var needConfirmation: Bool?
    public var verifiedProvider: [String]?
    public var errorMessage: String?
    /// Production: present with `needConfirmation` or `errorMessage`; `signInWithIdp` with it signs in with the same,
    /// already verified credential (the IdP's own token is single use).
    public var pendingToken: String?
    public var localId: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?
    /// The tenant signed in to, when the call named one.
    public var tenantId: String?

    public init(providerId: String, federatedId: String) {
        self.providerId = providerId
        self.federatedId = federatedId
    }
}
