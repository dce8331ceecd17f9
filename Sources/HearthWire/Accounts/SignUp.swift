/// `accounts:signUp` (v3 `signupNewUser`): create an email/password account, an anonymous account (no email and
/// no password), or add email/password to the user of `idToken` in place.
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var idToken: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?
    /// Read for their types only.
    public var clientType: ClientType?
    public var recaptchaVersion: RecaptchaVersion?
    /// An admin caller's chosen user id; a client may not name one (`UNEXPECTED_PARAMETER : User ID`).
    public var localId: String?
    /// Phone second factors for the new account (honoured in emulator mode, as Firebase's emulator does).
    public var mfaInfo: [MFAInfoWire]?
    /// Accepted (type-checked) and ignored on the client path: the admin path reads them.
    public var emailVerified: Bool?
    public var disabled: Bool?

    public init(email: String? = nil, password: String? = nil, displayName: String? = nil, idToken: String? = nil,
                tenantId: String? = nil, returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.idToken = idToken
        self.tenantId = tenantId
        self.returnSecureToken = returnSecureToken
    }
}

extension SignUpRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["captchaResponse", "captchaChallenge", "instanceId", "photoUrl", "phoneNumber", "targetProjectId"]
}

public struct SignUpResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#SignupNewUserResponse"
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?

    public init(localId: String, email: String?, displayName: String?, idToken: String?, refreshToken: String?,
                expiresIn: String?) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
