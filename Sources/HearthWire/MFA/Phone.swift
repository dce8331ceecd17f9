/// `accounts:sendVerificationCode` (v3 `sendVerificationCode`).
public struct SendVerificationCodeRequest: Codable, Sendable, Equatable {
    public var phoneNumber: String?
}

extension SendVerificationCodeRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["recaptchaToken", "playIntegrityToken", "safetyNetToken", "iosReceipt", "iosSecret", "captchaResponse", "clientType", "recaptchaVersion", "autoRetrievalInfo"]
}

public struct SendVerificationCodeResponse: Codable, Sendable, Equatable {
    public var sessionInfo: String
    public init(sessionInfo: String) { self.sessionInfo = sessionInfo }
}

/// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`).
public struct SignInWithPhoneNumberRequest: Codable, Sendable, Equatable {
    public var sessionInfo: String?
    public var code: String?
    public var temporaryProof: String?
    public var phoneNumber: String?
    public var idToken: String?
    public var operation: String?
}

extension SignInWithPhoneNumberRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["verificationProof", "returnSecureToken"]
}

public struct SignInWithPhoneNumberResponse: Codable, Sendable, Equatable {
    public var localId: String?
    public var phoneNumber: String?
    public var isNewUser: Bool?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// When linking a number another account has: sign in with this instead.
    public var temporaryProof: String?
    public var temporaryProofExpiresIn: String?

    public init() {}
}

/// The emulator's SMS outbox (`GET /emulator/v1/projects/{id}/verificationCodes`).
public struct EmulatorVerificationCodes: Codable, Sendable, Equatable {
    public var verificationCodes: [Entry]

    public struct Entry: Codable, Sendable, Equatable {
        public var code: String
        public var phoneNumber: String
        public var sessionInfo: String

        public init(code: String, phoneNumber: String, sessionInfo: String) {
            self.code = code
            self.phoneNumber = phoneNumber
            self.sessionInfo = sessionInfo
        }
    }

    public init(verificationCodes: [Entry]) { self.verificationCodes = verificationCodes }
}
