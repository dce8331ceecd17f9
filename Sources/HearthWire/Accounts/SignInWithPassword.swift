/// `accounts:signInWithPassword` (v3 `verifyPassword`).
public struct SignInWithPasswordRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?
    /// Read for their types only.
    public var clientType: ClientType?
    public var recaptchaVersion: RecaptchaVersion?

    public init(email: String?, password: String?, tenantId: String? = nil, returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.tenantId = tenantId
        self.returnSecureToken = returnSecureToken
    }
}

extension SignInWithPasswordRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["captchaResponse", "captchaChallenge", "instanceId", "delegatedProjectNumber", "idToken", "pendingIdToken"]
}

public struct SignInWithPasswordResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#VerifyPasswordResponse"
    public var registered: Bool
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var profilePicture: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?

    public init(localId: String, email: String?, displayName: String?, profilePicture: String? = nil,
                idToken: String?, refreshToken: String?, expiresIn: String?) {
        self.registered = true
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.profilePicture = profilePicture
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
