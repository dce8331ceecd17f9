import Foundation

/// The one mapping from the server's error codes (the text before the first colon of `error.message`, or a 200
/// `errorMessage`) to ``AuthErrorCode``. FirebaseAuth's table, plus the codes of the Secure Token API and the
/// request-shape codes a client can provoke. Anything else is ``AuthErrorCode/internalError`` with the server's
/// message kept as the underlying reason.
enum ServerErrorTable {
    static let codes: [String: AuthErrorCode] = [
        "USER_NOT_FOUND": .userNotFound,
        "EMAIL_NOT_FOUND": .userNotFound,
        "MISSING_CONTINUE_URI": .missingContinueURI,
        "INVALID_IDENTIFIER": .invalidEmail,
        "INVALID_ID_TOKEN": .invalidUserToken,
        "MISSING_ID_TOKEN": .invalidUserToken,
        "INVALID_REFRESH_TOKEN": .invalidUserToken,
        "MISSING_REFRESH_TOKEN": .invalidUserToken,
        "TOKEN_EXPIRED": .userTokenExpired,
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin,
        "EMAIL_EXISTS": .emailAlreadyInUse,
        "PROVIDER_ALREADY_LINKED": .providerAlreadyLinked,
        "OPERATION_NOT_ALLOWED": .operationNotAllowed,
        "PASSWORD_LOGIN_DISABLED": .operationNotAllowed,
        "USER_DISABLED": .userDisabled,
        "INVALID_EMAIL": .invalidEmail,
        "MISSING_EMAIL": .missingEmail,
        "MISSING_PASSWORD": .wrongPassword,
        "EXPIRED_OOB_CODE": .expiredActionCode,
        "INVALID_OOB_CODE": .invalidActionCode,
        "INVALID_MESSAGE_PAYLOAD": .invalidMessagePayload,
        "INVALID_SENDER": .invalidSender,
        "INVALID_RECIPIENT_EMAIL": .invalidRecipientEmail,
        "WEAK_PASSWORD": .weakPassword,
        "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests,
        "MISSING_IOS_BUNDLE_ID": .missingIosBundleID,
        "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName,
        "UNAUTHORIZED_DOMAIN": .unauthorizedDomain,
        "INVALID_CONTINUE_URI": .invalidContinueURI,
        "INVALID_PASSWORD": .wrongPassword,
        "INVALID_IDP_RESPONSE": .invalidCredential,
        "INVALID_PENDING_TOKEN": .invalidCredential,
        "INVALID_LOGIN_CREDENTIALS": .invalidCredential,
        "INVALID_CUSTOM_TOKEN": .invalidCustomToken,
        "CREDENTIAL_MISMATCH": .customTokenMismatch,
        "INVALID_PHONE_NUMBER": .invalidPhoneNumber,
        "MISSING_PHONE_NUMBER": .missingPhoneNumber,
        "PHONE_NUMBER_EXISTS": .credentialAlreadyInUse,
        "QUOTA_EXCEEDED": .quotaExceeded,
        "MISSING_RECAPTCHA_TOKEN": .missingRecaptchaToken,
        "INVALID_RECAPTCHA_TOKEN": .invalidRecaptchaToken,
        "INVALID_AUTHENTICATOR_RESPONSE": .invalidAuthenticatorResponse,
        "PASSKEY_ENROLLMENT_NOT_FOUND": .missingPasskeyEnrollment,
        "PASSKEY_CREDENTIAL_NOT_FOUND": .userNotFound,
        "CREDENTIAL_ALREADY_IN_USE": .credentialAlreadyInUse,
        "APP_NOT_VERIFIED": .appNotVerified,
        "CAPTCHA_CHECK_FAILED": .captchaCheckFailed,
        "INVALID_APP_CREDENTIAL": .invalidAppCredential,
        "MISSING_APP_CREDENTIAL": .missingAppCredential,
        "INVALID_CODE": .invalidVerificationCode,
        "MISSING_CODE": .missingVerificationCode,
        "INVALID_SESSION_INFO": .invalidVerificationID,
        "MISSING_SESSION_INFO": .missingVerificationID,
        "INVALID_TEMPORARY_PROOF": .invalidCredential,
        "SESSION_EXPIRED": .sessionExpired,
        "INVALID_HOSTING_LINK_DOMAIN": .invalidHostingLinkDomain,
        "ADMIN_ONLY_OPERATION": .adminRestrictedOperation,
        "BLOCKING_FUNCTION_ERROR_RESPONSE": .blockingCloudFunctionError,
        "EMAIL_CHANGE_NEEDS_VERIFICATION": .emailChangeNeedsVerification,
        "INVALID_MFA_PENDING_CREDENTIAL": .invalidMultiFactorSession,
        "MISSING_MFA_PENDING_CREDENTIAL": .missingMultiFactorSession,
        "MFA_ENROLLMENT_NOT_FOUND": .multiFactorInfoNotFound,
        "MISSING_MFA_ENROLLMENT_ID": .missingMultiFactorInfo,
        "INVALID_PROVIDER_ID": .invalidProviderID,
        "MISSING_CLIENT_IDENTIFIER": .missingClientIdentifier,
        "MISSING_IOS_APP_TOKEN": .missingAppToken,
        "MISSING_OR_INVALID_NONCE": .missingOrInvalidNonce,
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": .passwordDoesNotMeetRequirements,
        "SECOND_FACTOR_EXISTS": .secondFactorAlreadyEnrolled,
        "SECOND_FACTOR_LIMIT_EXCEEDED": .maximumSecondFactorCountExceeded,
        "TENANT_ID_MISMATCH": .tenantIDMismatch,
        "UNSUPPORTED_FIRST_FACTOR": .unsupportedFirstFactor,
        "UNSUPPORTED_TENANT_OPERATION": .unsupportedTenantOperation,
        "UNVERIFIED_EMAIL": .unverifiedEmail,
        "FEDERATED_USER_ID_ALREADY_LINKED": .credentialAlreadyInUse,
    ]

    /// `CODE : detail` → (`CODE`, `detail`). Google separates with " : "; older messages with ":".
    static func split(_ message: String) -> (code: String, detail: String?) {
        guard let colon = message.firstIndex(of: ":") else { return (message.trimmingCharacters(in: .whitespaces), nil) }
        let detail = message[message.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (message[..<colon].trimmingCharacters(in: .whitespaces), detail.isEmpty ? nil : detail)
    }

    /// The error for a server message. `reasons` are the `errors[].reason` values (API-key problems are said there).
    static func error(message: String, reasons: [String] = [], extra: [String: Any] = [:]) -> NSError {
        let (code, detail) = split(message)
        if let mapped = codes[code] { return AuthErrorFactory.make(mapped, detail: detail, extra: extra) }
        if reasons.contains(where: { $0.hasPrefix("keyInvalid") }) || message.hasPrefix("API key not valid") {
            return AuthErrorFactory.make(.invalidAPIKey, detail: nil, extra: extra)
        }
        if reasons.contains("ipRefererBlocked") { return AuthErrorFactory.make(.appNotAuthorized, detail: nil, extra: extra) }
        return AuthErrorFactory.make(.internalError, detail: nil,
                                     extra: extra.merging(["FIRAuthErrorUserInfoDeserializedResponseKey": message]) { a, _ in a })
    }
}

/// Builds the `NSError`s the SDK reports.
enum AuthErrorFactory {
    static func make(_ code: AuthErrorCode, detail: String? = nil, extra: [String: Any] = [:],
                     underlying: (any Error)? = nil) -> NSError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: detail ?? code.defaultMessage,
            AuthErrors.userInfoNameKey: code.errorName,
        ]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        info.merge(extra) { _, new in new }
        return NSError(domain: AuthErrors.domain, code: code.rawValue, userInfo: info)
    }
}
