/// One entry of `mfaInfo` (lookup, import, sign-in challenges). `phoneInfo` is the whole number for the user and
/// administrators, obfuscated (`+*******1234`) in a sign-in challenge.
public struct MFAInfoWire: Codable, Sendable, Equatable {
    public var mfaEnrollmentId: String?
    public var displayName: String?
    public var phoneInfo: String?
    /// The whole number, next to `phoneInfo`, where the reader may see it (lookups).
    public var unobfuscatedPhoneInfo: String?
    public var totpInfo: [String: String]?
    /// RFC 3339.
    public var enrolledAt: String?

    public init(mfaEnrollmentId: String?, displayName: String?, phoneInfo: String?, totpInfo: [String: String]?,
                enrolledAt: String?) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.phoneInfo = phoneInfo
        self.totpInfo = totpInfo
        self.enrolledAt = enrolledAt
    }

}

/// The answer of a first-factor sign-in when a second factor is required: no tokens.
public struct SecondFactorRequiredResponse: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var mfaPendingCredential: String
    public var mfaInfo: [MFAInfoWire]

    public init(localId: String, email: String?, displayName: String?, mfaPendingCredential: String,
                mfaInfo: [MFAInfoWire]) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaInfo = mfaInfo
    }
}

/// `v2/accounts/mfaEnrollment:start`: `phoneEnrollmentInfo` or `totpEnrollmentInfo` says which factor.
public struct StartMFAEnrollmentRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var phoneEnrollmentInfo: PhoneStart?
    public var totpEnrollmentInfo: TOTPStart?

    public var hasPhone: Bool { phoneEnrollmentInfo != nil }
    public var hasTOTP: Bool { totpEnrollmentInfo != nil }
    public var phoneNumber: String? { phoneEnrollmentInfo?.phoneNumber }

    public init(idToken: String?, phoneNumber: String? = nil, totp: Bool = false) {
        self.idToken = idToken
        phoneEnrollmentInfo = phoneNumber.map { PhoneStart(phoneNumber: $0) }
        totpEnrollmentInfo = totp ? TOTPStart() : nil
    }

    /// The number a code goes to (`phoneEnrollmentInfo`, `phoneSignInInfo`); app-verification proofs are accepted and
    /// ignored.
    public struct PhoneStart: Codable, Sendable, Equatable, IgnoresWireFields {
        public var phoneNumber: String?
        public init(phoneNumber: String?) { self.phoneNumber = phoneNumber }
        public static let ignoredWireFields = ["recaptchaToken", "iosReceipt", "iosSecret", "playIntegrityToken",
                                               "autoRetrievalInfo", "captchaResponse", "clientType", "recaptchaVersion",
                                               "safetyNetToken"]
    }

    /// `totpEnrollmentInfo`: an empty object.
    public struct TOTPStart: Codable, Sendable, Equatable {
        public init() {}

        /// An object it must be, though it holds nothing (the synthesized decoder would take any value).
        public init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: EmptyKeys.self)
        }

        private enum EmptyKeys: CodingKey {}
    }
}

public struct StartMFAEnrollmentResponse: Codable, Sendable, Equatable {
    public var phoneSessionInfo: PhoneSession?
    public var totpSessionInfo: TOTPSession?

    public struct PhoneSession: Codable, Sendable, Equatable {
        public var sessionInfo: String
        public init(sessionInfo: String) { self.sessionInfo = sessionInfo }
    }

    public struct TOTPSession: Codable, Sendable, Equatable {
        public var sharedSecretKey: String
        public var verificationCodeLength: Int
        public var hashingAlgorithm: String
        public var periodSec: Int
        public var sessionInfo: String
        public var finalizeEnrollmentTime: String

        public init(sharedSecretKey: String, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
                    sessionInfo: String, finalizeEnrollmentTime: String) {
            self.sharedSecretKey = sharedSecretKey
            self.verificationCodeLength = verificationCodeLength
            self.hashingAlgorithm = hashingAlgorithm
            self.periodSec = periodSec
            self.sessionInfo = sessionInfo
            self.finalizeEnrollmentTime = finalizeEnrollmentTime
        }
    }

    public init(phoneSessionInfo: PhoneSession? = nil, totpSessionInfo: TOTPSession? = nil) {
        self.phoneSessionInfo = phoneSessionInfo
        self.totpSessionInfo = totpSessionInfo
    }
}

/// A `{sessionInfo, code}` pair (`phoneVerificationInfo`) or `{sessionInfo, verificationCode}` (`totpVerificationInfo`),
/// as handlers read it.
public struct VerificationInfo: Sendable, Equatable {
    public var sessionInfo: String?
    public var code: String?
}

/// `phoneVerificationInfo`: the session and the texted code.
public struct PhoneVerificationInfo: Codable, Sendable, Equatable, IgnoresWireFields {
    public var sessionInfo: String?
    public var code: String?
    public init(sessionInfo: String?, code: String?) {
        self.sessionInfo = sessionInfo
        self.code = code
    }
    public static let ignoredWireFields = ["phoneNumber", "androidVerificationProof", "temporaryProof"]
}

/// `totpVerificationInfo`: the session (enrolment only) and the authenticator's code.
public struct TOTPVerificationInfo: Codable, Sendable, Equatable, IgnoresWireFields {
    public var sessionInfo: String?
    public var verificationCode: String?
    public init(sessionInfo: String? = nil, verificationCode: String?) {
        self.sessionInfo = sessionInfo
        self.verificationCode = verificationCode
    }
    public static let ignoredWireFields = PhoneVerificationInfo.ignoredWireFields
}

/// Either factor's proof, as handlers read it.
public protocol SecondFactorVerification {
    var phoneVerificationInfo: PhoneVerificationInfo? { get }
    var totpVerificationInfo: TOTPVerificationInfo? { get }
}

extension SecondFactorVerification {
    public var phone: VerificationInfo? { phoneVerificationInfo.map { VerificationInfo(sessionInfo: $0.sessionInfo, code: $0.code) } }
    public var totp: VerificationInfo? {
        totpVerificationInfo.map { VerificationInfo(sessionInfo: $0.sessionInfo, code: $0.verificationCode) }
    }
}

/// `v2/accounts/mfaEnrollment:finalize`.
public struct FinalizeMFAEnrollmentRequest: Codable, Sendable, Equatable, SecondFactorVerification {
    public var idToken: String?
    public var displayName: String?
    public var phoneVerificationInfo: PhoneVerificationInfo?
    public var totpVerificationInfo: TOTPVerificationInfo?

    public init(idToken: String?, displayName: String?, phoneVerificationInfo: PhoneVerificationInfo? = nil,
                totpVerificationInfo: TOTPVerificationInfo? = nil) {
        self.idToken = idToken
        self.displayName = displayName
        self.phoneVerificationInfo = phoneVerificationInfo
        self.totpVerificationInfo = totpVerificationInfo
    }
}

/// `v2/accounts/mfaEnrollment:withdraw`.
public struct WithdrawMFARequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var mfaEnrollmentId: String?

    public init(idToken: String?, mfaEnrollmentId: String?) {
        self.idToken = idToken
        self.mfaEnrollmentId = mfaEnrollmentId
    }
}


/// Fresh tokens after an enrollment change or a second-factor sign-in.
public struct MFATokensResponse: Codable, Sendable, Equatable {
    public var idToken: String
    public var refreshToken: String
    /// Seconds, as a string; sent by `mfaEnrollment:withdraw` only, as Firebase's emulator does.
    public var expiresIn: String?

    public init(idToken: String, refreshToken: String, expiresIn: String? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `v2/accounts/mfaSignIn:start`.
public struct StartMFASignInRequest: Codable, Sendable, Equatable {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phoneSignInInfo: StartMFAEnrollmentRequest.PhoneStart?

    public init(mfaPendingCredential: String?, mfaEnrollmentId: String?) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
    }
}

public struct StartMFASignInResponse: Codable, Sendable, Equatable {
    public var phoneResponseInfo: StartMFAEnrollmentResponse.PhoneSession

    public init(sessionInfo: String) { phoneResponseInfo = .init(sessionInfo: sessionInfo) }
}

/// `v2/accounts/mfaSignIn:finalize`.
public struct FinalizeMFASignInRequest: Codable, Sendable, Equatable, SecondFactorVerification {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phoneVerificationInfo: PhoneVerificationInfo?
    public var totpVerificationInfo: TOTPVerificationInfo?

    public init(mfaPendingCredential: String?, mfaEnrollmentId: String? = nil,
                phoneVerificationInfo: PhoneVerificationInfo? = nil, totpVerificationInfo: TOTPVerificationInfo? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
        self.phoneVerificationInfo = phoneVerificationInfo
        self.totpVerificationInfo = totpVerificationInfo
    }
}
