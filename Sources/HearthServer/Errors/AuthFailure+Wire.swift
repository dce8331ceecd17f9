import HearthCore
import HearthWire

/// The one table from domain failures to Firebase's wire codes (and the detail Firebase adds, if any).
extension AuthFailure {
    var wire: (code: ServerErrorCode, detail: String?) {
        switch self {
        case .emailExists: (.emailExists, nil)
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
        case .missingContinueURI: (.missingContinueURI, nil)
        case .invalidContinueURI: (.invalidContinueURI, nil)
        case .invalidOobCode: (.invalidOobCode, nil)
        case .expiredOobCode: (.expiredOobCode, nil)
        case .missingRequestType: (.missingRequestType, nil)
        case .missingNewEmail: (.missingNewEmail, nil)
        case .unauthorizedDomain: (.unauthorizedDomain, "Domain not allowlisted by project")
        case .invalidImportParameter(let code): (ServerErrorCode(rawValue: code) ?? .invalidArgument, nil)
        case .duplicateLocalID(let id): (.duplicateLocalID, id.isEmpty ? nil : id)
        case .invalidCustomToken(let detail): (.invalidCustomToken, detail)
        case .credentialMismatch: (.credentialMismatch, "The custom token corresponds to a different audience.")
        case .tenantIDMismatch: (.tenantIDMismatch, "Specified tenant ID does not match the custom token.")
        case .invalidDuration: (.invalidDuration, "The duration must be between 5 minutes and 14 days.")
        case .phoneNumberExists: (.phoneNumberExists, nil)
        case .federatedUserIDAlreadyLinked: (.federatedUserIDAlreadyLinked, nil)
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
