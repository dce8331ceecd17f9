/// `accounts:sendOobCode` (v3 `getOobConfirmationCode`): email a password-reset, verification, sign-in or
/// change-of-email link.
public struct SendOobCodeRequest: Codable, Sendable, Equatable {
    /// The request types a client may ask for.
    public enum RequestType: String, Codable, Sendable, CaseIterable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case emailSignIn = "EMAIL_SIGNIN"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    }

    public var requestType: RequestType?
    public var email: String?
    public var idToken: String?
    public var newEmail: String?
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    public var returnOobLink: Bool?
    public var tenantId: String?
    /// The app a link hands over to (``ActionCodeSettings`` in the SDKs): accepted and not used, since links open
    /// the hosted action page, which hands over to the app.
    public var iOSBundleId: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?
    /// Read for their types only.
    public var clientType: ClientType?
    public var recaptchaVersion: RecaptchaVersion?
    public var linkDomain: String?

    public init(requestType: RequestType?, email: String? = nil, idToken: String? = nil, newEmail: String? = nil,
                continueUrl: String? = nil, canHandleCodeInApp: Bool? = nil) {
        self.requestType = requestType
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.continueUrl = continueUrl
        self.canHandleCodeInApp = canHandleCodeInApp
    }
}

extension SendOobCodeRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["iOSAppStoreId", "dynamicLinkDomain", "captchaResp", "captchaResponse", "userIp",
                                           "targetProjectId", "challenge"]
}

/// Android sends the proto's number (EMAIL_SIGNIN is 6); the JSON mapping takes either.
extension SendOobCodeRequest.RequestType: ProtoEnum {
    /// `OobReqType` in proto order.
    public static let protoNames = ["OOB_REQ_TYPE_UNSPECIFIED", "PASSWORD_RESET", "OLD_EMAIL_AGREE", "NEW_EMAIL_ACCEPT",
                                    "VERIFY_EMAIL", "RECOVER_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL",
                                    "REVERT_SECOND_FACTOR_ADDITION"]
}

public struct SendOobCodeResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#GetOobConfirmationCodeResponse"
    public var email: String?
    /// Admin calls with `returnOobLink`: the code and the link, which Hearth then does not send.
    public var oobCode: String?
    public var oobLink: String?

    public init(email: String?, oobCode: String? = nil, oobLink: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
    }
}

/// `accounts:resetPassword`: with `oobCode` alone, says what the code is for without using it; with
/// `newPassword`, applies a password reset.
public struct ResetPasswordRequest: Codable, Sendable, Equatable {
    public var oobCode: String?
    public var newPassword: String?
    public var email: String?
    public var oldPassword: String?
    public var tenantId: String?

    public init(oobCode: String?, newPassword: String? = nil) {
        self.oobCode = oobCode
        self.newPassword = newPassword
    }
}


public struct ResetPasswordResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#ResetPasswordResponse"
    public var requestType: String
    public var email: String?
    public var newEmail: String?

    public init(requestType: String, email: String?, newEmail: String?) {
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
    }
}

/// `GET /emulator/v1/projects/{id}/oobCodes`: the emulator's outbox.
public struct EmulatorOobCodes: Codable, Sendable, Equatable {
    public var oobCodes: [Entry]

    public struct Entry: Codable, Sendable, Equatable {
        public var email: String
        public var newEmail: String?
        public var requestType: String
        public var oobCode: String
        public var oobLink: String

        public init(email: String, newEmail: String?, requestType: String, oobCode: String, oobLink: String) {
            self.email = email
            self.newEmail = newEmail
            self.requestType = requestType
            self.oobCode = oobCode
            self.oobLink = oobLink
        }
    }

    public init(oobCodes: [Entry]) { self.oobCodes = oobCodes }
}
