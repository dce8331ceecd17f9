import Foundation

/// The keys and domain of FirebaseAuth's errors. Every error the SDK reports is an `NSError` in
/// ``AuthErrors/domain`` whose `code` is an ``AuthErrorCode`` raw value.
///
/// ```swift
/// do { try await Auth.auth().signIn(withEmail: email, password: password) }
/// catch let error as NSError where error.code == AuthErrorCode.wrongPassword.rawValue { … }
/// ```
public enum AuthErrors {
    /// `FIRAuthErrorDomain`.
    public static let domain: String = "FIRAuthErrorDomain"
    /// The short name of the code (`ERROR_WRONG_PASSWORD`).
    public static let userInfoNameKey: String = "FIRAuthErrorUserInfoNameKey"
    /// The email of the account that already exists (email-in-use and credential-in-use errors).
    public static let userInfoEmailKey: String = "FIRAuthErrorUserInfoEmailKey"
    /// The credential to sign in with instead (``AuthErrorCode/credentialAlreadyInUse``,
    /// ``AuthErrorCode/accountExistsWithDifferentCredential``): an ``OAuthCredential``.
    public static let userInfoUpdatedCredentialKey: String = "FIRAuthErrorUserInfoUpdatedCredentialKey"
    /// The ``MultiFactorResolver`` of a ``AuthErrorCode/secondFactorRequired`` error.
    public static let userInfoMultiFactorResolverKey: String = "FIRAuthErrorUserInfoMultiFactorResolverKey"
}

/// The Objective-C-era global names the guides use.
public let AuthErrorDomain: String = AuthErrors.domain
public let AuthErrorUserInfoNameKey: String = AuthErrors.userInfoNameKey
public let AuthErrorUserInfoEmailKey: String = AuthErrors.userInfoEmailKey
public let AuthErrorUserInfoUpdatedCredentialKey: String = AuthErrors.userInfoUpdatedCredentialKey
public let AuthErrorUserInfoMultiFactorResolverKey: String = AuthErrors.userInfoMultiFactorResolverKey

/// FirebaseAuth's error codes, with its raw values.
///
/// ```swift
/// if (error as NSError).code == AuthErrorCode.secondFactorRequired.rawValue { … }
/// ```
public enum AuthErrorCode: Int, Error, CaseIterable, Sendable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case invalidMessagePayload = 17031
    case invalidSender = 17032
    case invalidRecipientEmail = 17033
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    case missingPhoneNumber = 17041
    case invalidPhoneNumber = 17042
    case missingVerificationCode = 17043
    case invalidVerificationCode = 17044
    case missingVerificationID = 17045
    case invalidVerificationID = 17046
    case missingAppCredential = 17047
    case invalidAppCredential = 17048
    case sessionExpired = 17051
    case quotaExceeded = 17052
    case missingAppToken = 17053
    case notificationNotForwarded = 17054
    case appNotVerified = 17055
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case appVerificationUserInteractionFailure = 17059
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case localPlayerNotAuthenticated = 17066
    case nullUser = 17067
    case invalidProviderID = 17071
    case tenantIDMismatch = 17072
    case unsupportedTenantOperation = 17073
    case rejectedCredential = 17075
    case gameKitNotLinked = 17076
    case secondFactorRequired = 17078
    case missingMultiFactorSession = 17081
    case missingMultiFactorInfo = 17082
    case invalidMultiFactorSession = 17083
    case multiFactorInfoNotFound = 17084
    case adminRestrictedOperation = 17085
    case unverifiedEmail = 17086
    case secondFactorAlreadyEnrolled = 17087
    case maximumSecondFactorCountExceeded = 17088
    case unsupportedFirstFactor = 17089
    case emailChangeNeedsVerification = 17090
    case missingClientIdentifier = 17093
    case missingOrInvalidNonce = 17094
    case blockingCloudFunctionError = 17105
    case recaptchaNotEnabled = 17200
    case missingRecaptchaToken = 17201
    case invalidRecaptchaToken = 17202
    case invalidRecaptchaAction = 17203
    case missingClientType = 17204
    case missingRecaptchaVersion = 17205
    case invalidRecaptchaVersion = 17206
    case invalidReqType = 17207
    case recaptchaSDKNotLinked = 17208
    case recaptchaSiteKeyMissing = 17209
    case recaptchaActionCreationFailed = 17210
    case passwordDoesNotMeetRequirements = 17211
    /// Passkeys (FirebaseAuth's preview): no credential id to remove. 17212 as in its passkey branch.
    case missingPasskeyEnrollment = 17212
    /// Passkeys: the authenticator's answer does not verify. FirebaseAuth's passkey branch numbers it 17211, which
    /// released FirebaseAuth gives `passwordDoesNotMeetRequirements`; HearthAuth keeps the released one.
    case invalidAuthenticatorResponse = 17213
    case invalidHostingLinkDomain = 17214
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000

    /// `ERROR_` and the case name in capitals: what `FIRAuthErrorUserInfoNameKey` holds.
    /// The code itself, as `AuthErrorCode(...).code` reads in FirebaseAuth (whose codes wrap an `NSError`).
    public var code: Self { self }

    public var errorName: String {
        var name = "ERROR"
        var previousWasLower = false
        for character in String(describing: self) {
            if character.isUppercase && previousWasLower { name += "_" }
            if name == "ERROR" { name += "_" }
            name += character.uppercased()
            previousWasLower = character.isLowercase || character.isNumber
        }
        return name
    }

    /// What to tell the user when the server gave no detail.
    public var defaultMessage: String {
        switch self {
        case .invalidCustomToken: "The custom token format is incorrect. Please check the documentation."
        case .customTokenMismatch: "The custom token corresponds to a different audience."
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed: "The given sign-in provider is disabled for this project. Enable it in the server's configuration."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .accountExistsWithDifferentCredential: "An account already exists with the same email address but different sign-in credentials. Sign in using a provider associated with this email address."
        case .requiresRecentLogin: "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .providerAlreadyLinked: "User can only be linked to one identity for the given provider."
        case .noSuchProvider: "User was not linked to an account with the given provider."
        case .invalidUserToken: "This user's credential isn't valid for this project. This may happen if the user's token has been tampered with, or if the user isn't for the project associated with this API key."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .expiredActionCode: "The action code has expired."
        case .invalidActionCode: "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .missingEmail: "An email address must be provided."
        case .unauthorizedDomain: "The domain of the continue URL is not whitelisted. Please whitelist the domain in the server's authorizedDomains."
        case .invalidContinueURI: "The continue URL provided in the request is invalid."
        case .missingContinueURI: "A continue URL must be provided in the request."
        case .missingPhoneNumber: "To send verification codes, provide a phone number for the recipient."
        case .invalidPhoneNumber: "The format of the phone number provided is incorrect. Please enter the phone number in a format that can be parsed into E.164 format."
        case .missingVerificationCode: "The phone auth credential was created with an empty SMS verification code."
        case .invalidVerificationCode: "The verification code used to create the phone auth credential is invalid. Please resend the verification code SMS and be sure to use the verification code provided by the user."
        case .missingVerificationID: "The phone auth credential was created with an empty verification ID."
        case .invalidVerificationID: "The verification ID used to create the phone auth credential is invalid."
        case .sessionExpired: "The SMS code has expired. Please re-send the verification code to try again."
        case .quotaExceeded: "The quota for this operation has been exceeded. Try again later."
        case .webContextCancelled: "The interaction was cancelled by the user."
        case .webNetworkRequestFailed: "The web sign-in could not complete: the browser never came back to the app."
        case .webSignInUserInteractionFailure: "The web sign-in ended with an error from the identity provider."
        case .nullUser: "A null user object was provided as the argument for an operation which requires a non-null user object."
        case .invalidProviderID: "The provider ID is not supported for this operation."
        case .secondFactorRequired: "Please complete a second factor challenge to finish signing into this account."
        case .missingMultiFactorSession: "The request is missing proof of first factor successful sign-in."
        case .missingMultiFactorInfo: "No second factor identifier is provided."
        case .invalidMultiFactorSession: "The request does not contain a valid proof of first factor successful sign-in."
        case .multiFactorInfoNotFound: "The user does not have a second factor matching the identifier provided."
        case .adminRestrictedOperation: "This operation is restricted to administrators only."
        case .unverifiedEmail: "The operation requires a verified email."
        case .secondFactorAlreadyEnrolled: "The second factor is already enrolled on this account."
        case .maximumSecondFactorCountExceeded: "The maximum allowed number of second factors on a user has been exceeded."
        case .unsupportedFirstFactor: "Enrolling a second factor or signing in with a multi-factor account requires sign-in with a supported first factor."
        case .emailChangeNeedsVerification: "Multi-factor users must always have a verified email."
        case .missingOrInvalidNonce: "The request doesn't contain a valid nonce."
        case .tenantIDMismatch: "The provided user's tenant ID does not match the Auth instance's tenant ID."
        case .unsupportedTenantOperation: "This operation is not supported in a multi-tenant context."
        case .keychainError: "An error occurred when accessing the keychain or the user file."
        case .malformedJWT: "Failed to parse JWT. Check the error's underlying error for details."
        case .missingPasskeyEnrollment: "No passkey with this credential id is enrolled."
        case .invalidAuthenticatorResponse: "The passkey response is not valid: it may be for another site or challenge."
        default: "An internal error has occurred, print and inspect the error details for more information."
        }
    }
}
