import HearthCore
import HearthWire

/// The one table from domain failures to Firebase's wire codes (and the detail Firebase adds, if any).
extension AuthFailure {
    /// The failure as Firebase words it (`CODE` or `CODE : detail`): what clients see, and the CLI prints.
    public var firebaseMessage: String {
        let (code, detail) = wire
        return detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue
    }

    var wire: (code: ServerErrorCode, detail: String?) {
        switch self {
        case .emailExists: (.emailExists, nil)
        case .providerAlreadyLinked: (.providerAlreadyLinked, nil)
        case .emailNotFound: (.emailNotFound, nil)
        case .invalidPassword: (.invalidPassword, nil)
        case .invalidLoginCredentials: (.invalidLoginCredentials, nil)
        case .userDisabled: (.userDisabled, nil)
        case .userNotFound: (.userNotFound, nil)
        case .invalidEmail: (.invalidEmail, nil)
        case .missingEmail: (.missingEmail, nil)
        case .missingPassword: (.missingPassword, nil)
        case .weakPassword: (.weakPassword, "Password should be at least \(PasswordPolicy.minimumLength) characters")
        case .operationNotAllowed: (.operationNotAllowed, nil)
        case .passwordLoginDisabled: (.passwordLoginDisabled, nil)
        case .adminOnlyOperation: (.adminOnlyOperation, nil)
        case .invalidIDToken: (.invalidIDToken, nil)
        case .missingIDToken: (.missingIDToken, nil)
        case .tokenExpired: (.tokenExpired, nil)
        case .credentialTooOldLoginAgain: (.credentialTooOldLoginAgain, nil)
        case .invalidRefreshToken: (.invalidRefreshToken, nil)
        case .missingRefreshToken: (.missingRefreshToken, nil)
        case .invalidGrantType: (.invalidGrantType, nil)
        case .missingGrantType: (.missingGrantType, nil)
        case .projectNotFound: (.projectNotFound, nil)
        case .invalidIdentifier: (.invalidIdentifier, nil)
        case .missingIdentifier: (.missingIdentifier, nil)
        case .missingContinueURI: (.missingContinueURI, nil)
        case .invalidContinueURI: (.invalidContinueURI, nil)
        case .invalidOobCode: (.invalidOobCode, nil)
        case .missingOobCode: (.missingOobCode, nil)
        case .expiredOobCode: (.expiredOobCode, nil)
        case .missingRequestType: (.missingRequestType, nil)
        case .missingNewEmail: (.missingNewEmail, nil)
        case .unauthorizedDomain: (.unauthorizedDomain, "Domain not allowlisted by project")
        case .samlSignInUnsupported: (.operationNotAllowed, "SAML sign-in is not supported by Hearth in production "
            + "mode yet: its inboundSamlConfigs are stored, but only emulator mode signs in with them. Use an OIDC provider.")
        case .invalidHostingLinkDomain: (.invalidHostingLinkDomain, "The provided hosting link domain is not configured in "
            + "Firebase Hosting or is not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com).")
        case .invalidImportParameter(let code): (ServerErrorCode(rawValue: code) ?? .invalidArgument, nil)
        case .duplicateLocalID(let id): (.duplicateLocalID, id.isEmpty ? nil : id)
        case .duplicateEmail(let email): (.duplicateEmail, email)
        case .duplicateRawID(let detail): (.duplicateRawID, detail)
        case .invalidCustomToken(let detail): (.invalidCustomToken, detail)
        case .missingCustomToken: (.missingCustomToken, nil)
        case .credentialMismatch: (.credentialMismatch, "The custom token corresponds to a different audience.")
        case .tenantIDMismatch: (.tenantIDMismatch, nil)
        case .projectDisabled: (.projectDisabled, nil)
        case .invalidDuration: (.invalidDuration, nil)
        case .phoneNumberExists: (.phoneNumberExists, nil)
        case .federatedUserIDAlreadyLinked: (.federatedUserIDAlreadyLinked, nil)
        case .unverifiedEmail: (.unverifiedEmail, "Need to verify email first before enrolling second factors.")
        case .unsupportedFirstFactor(let detail): (.unsupportedFirstFactor, detail)
        case .secondFactorExists: (.secondFactorExists, "Phone number already enrolled as second factor for this account.")
        case .invalidMFAPhoneNumber: (.invalidMFAPhoneNumber, "Invalid format.")
        case .invalidBlockingFunction(let detail): (.invalidBlockingFunction, detail)
        case .invalidMFAEnrollmentID: (.invalidMFAEnrollmentID, "mfaEnrollmentId must be defined.")
        case .duplicateMFAEnrollmentID: (.duplicateMFAEnrollmentID, nil)
        case .secondFactorLimitExceeded: (.secondFactorLimitExceeded, "At most 5 second factors can be enrolled.")
        case .mfaEnrollmentNotFound: (.mfaEnrollmentNotFound, nil)
        case .missingMFAPendingCredential: (.missingMFAPendingCredential, "Request does not have MFA pending credential.")
        case .missingCredential: (.missingCredential, "Please set MFA Pending Credential.")
        case .missingAuthenticatorResponse: (.missingAuthenticatorResponse, nil)
        case .blockingFunctionError(let detail): (.blockingFunctionErrorResponse, detail)
        case .passwordDoesNotMeetRequirements(let missing):
            (.passwordDoesNotMeetRequirements, "Missing password requirements: [\(missing.map(\.message).joined(separator: ", "))]")
        // Hearth's own reason, under Firebase's code for a refused password: the SDKs show it as a weak password.
        case .passwordBreached:
            (.weakPassword, "This password has appeared in a data breach; choose another")
        case .invalidConfig(let detail): (.invalidConfig, detail)
        case .smsRegionNotAllowed: (.operationNotAllowed, "SMS unable to be sent until this region enabled by the app developer.")
        case .invalidCredentialID: (.invalidCredentialID, nil)
        case .credentialAlreadyInUse: (.credentialAlreadyInUse, nil)
        case .passkeyCredentialNotFound: (.passkeyCredentialNotFound, nil)
        case .invalidAuthenticatorResponse(let reason): (.invalidAuthenticatorResponse, reason)
        case .passkeysNotConfigured: (.operationNotAllowed, "Passkeys need a relying party first: set passkeyConfig (rpId, "
            + "expectedOrigins) with PATCH v2/projects/{project}/passkeyConfig or in the console.")
        case .missingMFAEnrollmentID: (.missingMFAEnrollmentID, nil)
        case .invalidMFAPendingCredential: (.invalidMFAPendingCredential, nil)
        case .invalidCode: (.invalidCode, nil)
        case .missingCode: (.missingCode, nil)
        case .invalidSessionInfo: (.invalidSessionInfo, nil)
        case .missingSessionInfo: (.missingSessionInfo, nil)
        case .sessionExpired: (.sessionExpired, nil)
        case .invalidTemporaryProof: (.invalidTemporaryProof, nil)
        case .mfaNotEnabled(let detail): (.operationNotAllowed, detail)
        case .quotaExceeded: (.quotaExceeded, nil)
        case .invalidArgument(let detail): (.invalidArgument, detail)
        case .invalidIDPResponse(let detail): (.invalidIdpResponse, detail)
        case .missingRequestURI: (.missingRequestURI, nil)
        case .invalidRequestURI: (.invalidRequestURI, nil)
        case .invalidCredentialOrProviderID(let uri): (.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(uri)")
        case .providerNotEnabled(let provider): (.operationNotAllowed, "The identity provider \(provider) is not enabled for this project.")
        case .missingProviderID: (.missingProviderID, nil)
        case .missingRawID: (.missingRawID, nil)
        case .invalidProviderID: (.invalidProviderID, nil)
        case .invalidPhoneNumber: (.invalidPhoneNumber, "Invalid format.")
        case .missingLocalID: (.missingLocalID, nil)
        case .invalidClaims: (.invalidClaims, nil)
        case .claimsTooLarge: (.claimsTooLarge, nil)
        case .forbiddenClaim(let name): (.forbiddenClaim, name)
        case .emailChangeNeedsVerification:
            (.operationNotAllowed, "Please verify the new email before changing email.")
        case .emailLinkMismatch: (.invalidEmail, "The email provided does not match the sign-in email address.")
        case .tooManyAttempts: (.tooManyAttemptsTryLater, "Too many attempts from this address or for this account. Try again later.")
        }
    }

    var apiError: APIError { APIError.business(wire.code, wire.detail) }
}
