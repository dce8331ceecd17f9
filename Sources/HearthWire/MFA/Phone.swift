/// `accounts:sendVerificationCode` (v3 `sendVerificationCode`).
public struct SendVerificationCodeRequest: Codable, Sendable, Equatable {
    public var phoneNumber: String?
    public var tenantId: String?
    /// Read for their types only, as Google checks them.
    public var clientType: ClientType?
    public var recaptchaVersion: RecaptchaVersion?
    public var autoRetrievalInfo: AutoRetrievalInfo?

    /// Android's SMS Retriever hash (unused: Hearth's messages do not carry it).
    public struct AutoRetrievalInfo: Codable, Sendable, Equatable {
        public var appSignatureHash: String?
    }

    public init(phoneNumber: String?, tenantId: String? = nil) {
        self.phoneNumber = phoneNumber
        self.tenantId = tenantId
    }
}

extension SendVerificationCodeRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["recaptchaToken", "playIntegrityToken", "safetyNetToken", "iosReceipt", "iosSecret", "captchaResponse"]
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
    public var tenantId: String?

    public init(sessionInfo: String?, code: String?, temporaryProof: String? = nil, phoneNumber: String? = nil,
                idToken: String? = nil, tenantId: String? = nil) {
        self.sessionInfo = sessionInfo
        self.code = code
        self.temporaryProof = temporaryProof
        self.phoneNumber = phoneNumber
        self.idToken = idToken
        self.tenantId = tenantId
    }
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
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?
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
