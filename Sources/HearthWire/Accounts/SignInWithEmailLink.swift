/// `accounts:signInWithEmailLink` (v3 `emailLinkSignin`): complete a passwordless sign-in, or link the email to the
/// user of `idToken`.
public struct SignInWithEmailLinkRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var oobCode: String?
    public var idToken: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?

    public init(email: String?, oobCode: String?, idToken: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.idToken = idToken
    }
}


public struct SignInWithEmailLinkResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#EmailLinkSigninResponse"
    public var email: String?
    public var localId: String
    public var isNewUser: Bool
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?

    public init(email: String?, localId: String, isNewUser: Bool, idToken: String?, refreshToken: String?,
                expiresIn: String?) {
        self.email = email
        self.localId = localId
        self.isNewUser = isNewUser
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
