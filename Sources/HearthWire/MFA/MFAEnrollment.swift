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

    /// Reads an entry of a request (`mfaInfo[]` in imports and admin creates, `mfa.enrollments[]` in updates).
    public static func read(_ entry: inout WireObject) throws(WireDecodingError) -> MFAInfoWire {
        let value = MFAInfoWire(
            mfaEnrollmentId: try entry.string("mfaEnrollmentId"), displayName: try entry.string("displayName"),
            phoneInfo: try entry.string("phoneInfo"), totpInfo: nil, enrolledAt: try entry.string("enrolledAt"))
        entry.ignore("totpInfo", "unobfuscatedPhoneInfo")
        return value
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

/// `v2/accounts/mfaEnrollment:start`.
public struct StartMFAEnrollmentRequest: Sendable, Equatable {
    public var idToken: String?
    public var phoneNumber: String?
    public var hasPhone: Bool
    public var hasTOTP: Bool
}

extension StartMFAEnrollmentRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        phoneNumber = nil
        hasPhone = false
        hasTOTP = false
        if var phone = try body.object("phoneEnrollmentInfo") {
            hasPhone = true
            phoneNumber = try phone.string("phoneNumber")
            phone.ignore("recaptchaToken", "iosReceipt", "iosSecret", "playIntegrityToken", "autoRetrievalInfo",
                         "captchaResponse", "clientType", "recaptchaVersion", "safetyNetToken")
            body.absorb(phone)
        }
        if let totp = try body.object("totpEnrollmentInfo") {
            hasTOTP = true
            body.absorb(totp)
        }
        body.ignore("tenantId")
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

/// A `{sessionInfo, code}` pair (`phoneVerificationInfo`) or `{sessionInfo, verificationCode}` (`totpVerificationInfo`).
public struct VerificationInfo: Sendable, Equatable {
    public var sessionInfo: String?
    public var code: String?

    static func read(_ body: inout WireObject, _ key: String, codeKey: String) throws(WireDecodingError) -> VerificationInfo? {
        guard var info = try body.object(key) else { return nil }
        let value = VerificationInfo(sessionInfo: try info.string("sessionInfo"), code: try info.string(codeKey))
        info.ignore("phoneNumber", "androidVerificationProof", "temporaryProof")
        body.absorb(info)
        return value
    }
}

/// `v2/accounts/mfaEnrollment:finalize`.
public struct FinalizeMFAEnrollmentRequest: Sendable, Equatable {
    public var idToken: String?
    public var displayName: String?
    public var phone: VerificationInfo?
    public var totp: VerificationInfo?
}

extension FinalizeMFAEnrollmentRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        displayName = try body.string("displayName")
        phone = try VerificationInfo.read(&body, "phoneVerificationInfo", codeKey: "code")
        totp = try VerificationInfo.read(&body, "totpVerificationInfo", codeKey: "verificationCode")
        body.ignore("tenantId")
    }
}

/// `v2/accounts/mfaEnrollment:withdraw`.
public struct WithdrawMFARequest: Sendable, Equatable {
    public var idToken: String?
    public var mfaEnrollmentId: String?
}

extension WithdrawMFARequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        mfaEnrollmentId = try body.string("mfaEnrollmentId")
        body.ignore("tenantId")
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
public struct StartMFASignInRequest: Sendable, Equatable {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
}

extension StartMFASignInRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        mfaPendingCredential = try body.string("mfaPendingCredential")
        mfaEnrollmentId = try body.string("mfaEnrollmentId")
        if var phone = try body.object("phoneSignInInfo") {
            phone.ignore("recaptchaToken", "iosReceipt", "iosSecret", "playIntegrityToken", "autoRetrievalInfo",
                         "captchaResponse", "clientType", "recaptchaVersion", "safetyNetToken")
            body.absorb(phone)
        }
        body.ignore("tenantId")
    }
}

public struct StartMFASignInResponse: Codable, Sendable, Equatable {
    public var phoneResponseInfo: StartMFAEnrollmentResponse.PhoneSession

    public init(sessionInfo: String) { phoneResponseInfo = .init(sessionInfo: sessionInfo) }
}

/// `v2/accounts/mfaSignIn:finalize`.
public struct FinalizeMFASignInRequest: Sendable, Equatable {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phone: VerificationInfo?
    public var totp: VerificationInfo?
}

extension FinalizeMFASignInRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        mfaPendingCredential = try body.string("mfaPendingCredential")
        mfaEnrollmentId = try body.string("mfaEnrollmentId")
        phone = try VerificationInfo.read(&body, "phoneVerificationInfo", codeKey: "code")
        totp = try VerificationInfo.read(&body, "totpVerificationInfo", codeKey: "verificationCode")
        body.ignore("tenantId")
    }
}
