/// Why a use-case refused: the domain's error vocabulary, one case per Firebase error code it can produce.
///
/// The server maps each case to Firebase's wire code in one table (`AuthFailure+Wire.swift`); the detail strings
/// here are safe to show to clients. Internal causes are never carried by these cases.
public enum AuthFailure: Error, Equatable, Sendable {
    case emailExists
    /// The account already has this kind of credential (an email and password linked twice).
    case providerAlreadyLinked
    case emailNotFound
    case invalidPassword
    case invalidLoginCredentials
    case userDisabled
    case userNotFound
    case invalidEmail
    case missingEmail
    case missingPassword
    case weakPassword
    case operationNotAllowed
    case passwordLoginDisabled
    case adminOnlyOperation
    case invalidIDToken
    case missingIDToken
    case tokenExpired
    case credentialTooOldLoginAgain
    case invalidRefreshToken
    case missingRefreshToken
    case invalidGrantType
    case missingGrantType
    case projectNotFound
    case invalidIdentifier
    case missingIdentifier
    case missingContinueURI
    case invalidContinueURI
    case tooManyAttempts
    case invalidOobCode
    case missingOobCode
    case expiredOobCode
    case missingRequestType
    case missingNewEmail
    case unauthorizedDomain
    /// A `saml.*` provider outside emulator mode: its config is kept and served, its sign-in is not built yet.
    case samlSignInUnsupported
    /// `linkDomain` names a domain that does not serve this project's action links.
    case invalidHostingLinkDomain
    case emailLinkMismatch
    /// A direct email change under email-enumeration protection: the new address must be verified first
    /// (`verifyBeforeUpdateEmail`), so an account cannot be used to probe which addresses exist.
    case emailChangeNeedsVerification
    /// An import batch's parameters are unusable; carries Firebase's code (`INVALID_HASH_ROUNDS`, …).
    case invalidImportParameter(String)
    case missingLocalID
    /// `customAttributes` that are not a JSON object, larger than 1000 bytes, or use a reserved claim name.
    case invalidClaims
    case claimsTooLarge
    case forbiddenClaim(String)
    /// Two users of one import batch share a `localId` (or an admin create names a taken one: empty detail).
    case duplicateLocalID(String)
    /// A batch with `sanityCheck` names one email twice (the detail is the address).
    case duplicateEmail(String)
    /// A batch with `sanityCheck` names one identity twice (the detail says which).
    case duplicateRawID(String)
    /// A custom token that is malformed, badly signed, expired or not meant for Hearth; carries Firebase's detail.
    case invalidCustomToken(String?)
    case missingCustomToken
    /// A custom token signed by a key this project does not know.
    case credentialMismatch
    case tenantIDMismatch
    /// The user's tenant is disabled (`disableAuth`): its sessions stop too.
    case projectDisabled
    /// `createSessionCookie` with a duration outside 5 minutes to 14 days.
    case invalidDuration
    case phoneNumberExists
    /// The identity is already linked to another account.
    case federatedUserIDAlreadyLinked
    // Multi-factor and phone.
    case unverifiedEmail
    /// MFA and this first factor do not go together (the detail says how, in Firebase's words).
    case unsupportedFirstFactor(String)
    case secondFactorExists
    /// A second factor's phone number is not E.164.
    case invalidMFAPhoneNumber
    /// An admin update's factor without an id (emulator mode).
    case invalidMFAEnrollmentID
    /// A blocking-function trigger with an unknown event or a URI that is not absolute.
    case invalidBlockingFunction(String)
    /// Two factors of one request with the same id.
    case duplicateMFAEnrollmentID
    case secondFactorLimitExceeded
    case mfaEnrollmentNotFound
    case missingMFAPendingCredential
    /// `mfaSignIn:finalize` without its pending credential (Firebase's `MISSING_CREDENTIAL`).
    case missingCredential
    /// Passkeys: no `authenticatorRegistrationResponse` / `authenticatorAuthenticationResponse`.
    case missingAuthenticatorResponse
    /// A blocking function refused the call, failed, or answered what cannot be used (Firebase's
    /// `BLOCKING_FUNCTION_ERROR_RESPONSE`); carries the detail.
    case blockingFunctionError(String)
    /// A new password the project's policy refuses (`PASSWORD_DOES_NOT_MEET_REQUIREMENTS`): what it lacks.
    case passwordDoesNotMeetRequirements([PasswordRequirement])
    /// A new password found in the breached-password list.
    case passwordBreached
    /// A configuration value Identity Platform refuses (`INVALID_CONFIG`), with its detail.
    case invalidConfig(String)
    /// A code for a number in a region the project's `smsRegionConfig` does not allow.
    case smsRegionNotAllowed
    /// Passkeys: the response names no credential id.
    case invalidCredentialID
    /// Passkeys: the credential id is already enrolled (on this account or another).
    case credentialAlreadyInUse
    /// Passkeys: no account holds the credential.
    case passkeyCredentialNotFound
    /// Passkeys: a ceremony that does not verify (``WebAuthnError``): its reason.
    case invalidAuthenticatorResponse(String)
    /// Passkeys in production before the project (or tenant) has a `passkeyConfig`.
    case passkeysNotConfigured
    case missingMFAEnrollmentID
    case invalidMFAPendingCredential
    case invalidCode
    case missingCode
    case invalidSessionInfo
    case missingSessionInfo
    case sessionExpired
    case invalidTemporaryProof
    /// MFA or the factor asked for is not enabled for the project.
    case mfaNotEnabled(String)
    /// The IdP's credential cannot be used (forged, expired, wrong audience or nonce, provider unreachable).
    case invalidIDPResponse(String)
    case missingRequestURI
    /// `requestUri` is not an absolute URL.
    case invalidRequestURI
    /// The credential names no provider (the detail is the request URI, as Firebase's emulator reports it).
    case invalidCredentialOrProviderID(String)
    /// The provider is unknown or disabled for the project.
    case providerNotEnabled(String)
    /// A request that is malformed in a way the wire types cannot see (`INVALID_ARGUMENT : detail`).
    case invalidArgument(String)
    /// Too many SMS for this number or address (`QUOTA_EXCEEDED`), or too many wrong codes.
    case quotaExceeded
    case invalidProviderID
    case missingProviderID
    case missingRawID
    case invalidPhoneNumber
}

extension AuthFailure {
    /// Whether the failure is a wrong guess at a credential (no such email, a wrong password): the failed-sign-in
    /// limit keeps the slot such a request reserved; every other failure gives it back.
    public var isFailedGuess: Bool {
        switch self {
        case .invalidPassword, .emailNotFound, .invalidLoginCredentials: true
        default: false
        }
    }
}
