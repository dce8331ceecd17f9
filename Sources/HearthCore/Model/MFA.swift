import Foundation

/// One enrolled second factor (Firebase's `mfaInfo` entry): an SMS phone number or a TOTP authenticator.
public struct MFAEnrollment: Sendable, Codable, Equatable {
    /// `mfaEnrollmentId`.
    public var id: String
    public var displayName: String?
    /// E.164 number of a phone factor.
    public var phoneNumber: String?
    /// Base32 shared secret of a TOTP factor.
    public var totpSecret: String?
    /// The last TOTP time step accepted: a code is never accepted twice.
    public var totpLastStep: Int64?
    /// Wrong codes for this factor in a row, across every pending sign-in (a new password sign-in does not
    /// reset it); reaching ``MFAEnrollment/maximumFailures`` locks the factor.
    public var failedAttempts: Int?
    /// Until when the factor refuses every code after too many wrong ones.
    public var lockedUntil: Date?
    public var enrolledAt: Date

    public init(id: String = SecureRandom.localID(), displayName: String?, phoneNumber: String? = nil,
                totpSecret: String? = nil, enrolledAt: Date) {
        self.id = id
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.totpSecret = totpSecret
        self.enrolledAt = enrolledAt
    }

    /// `phone` or `totp`: the `firebase.sign_in_second_factor` claim after using it.
    /// Wrong codes in a row that lock a factor, and for how long.
    public static let maximumFailures = 5
    public static let lockDuration: TimeInterval = 15 * 60

    public var factorID: String { phoneNumber != nil ? "phone" : "totp" }

    /// The number as Firebase shows it to a signing-in client: all but the last four digits hidden (`+*******1234`).
    public var obfuscatedPhoneNumber: String? {
        phoneNumber.map { number in
            let visible = number.suffix(4)
            return "+" + String(repeating: "*", count: max(0, number.count - 1 - visible.count)) + visible
        }
    }
}

/// A phone second factor as an administrator or an import gives it (Firebase's `mfaInfo` entry in requests).
public struct MFAEnrollmentInput: Sendable, Equatable {
    public var id: String?
    public var displayName: String?
    public var phoneNumber: String?
    public var enrolledAt: Date?

    public init(id: String? = nil, displayName: String? = nil, phoneNumber: String? = nil, enrolledAt: Date? = nil) {
        self.id = id
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.enrolledAt = enrolledAt
    }

    /// Where the enrollment ids come from.
    public enum IDs: Sendable {
        /// New ids for every factor, whatever the request says (creating an account, as Firebase does).
        case generated
        /// The request's ids, kept; a missing one is generated, or refused (`INVALID_MFA_ENROLLMENT_ID`) when
        /// `required` (emulator mode, as Firebase's emulator).
        case given(required: Bool)
    }

    /// The enrollments that replace `existing`: an entry naming an existing non-phone factor (TOTP) without a number
    /// keeps that factor; otherwise it is a phone factor with a valid E.164 number. A number given twice
    /// counts once (the first), as Firebase does; an id given for two numbers is refused. At most 5.
    public static func resolve(_ inputs: [MFAEnrollmentInput], existing: [MFAEnrollment], now: Date,
                               ids: IDs = .given(required: false)) throws -> [MFAEnrollment]
    {
        var result: [MFAEnrollment] = []
        for input in inputs {
            let givenID = input.id.flatMap { $0.isEmpty ? nil : $0 }
            if input.phoneNumber == nil, let id = givenID,
               let kept = existing.first(where: { $0.id == id && $0.phoneNumber == nil }) {
                result.append(kept)
                continue
            }
            guard let number = input.phoneNumber, PhoneNumber.isValid(number) else { throw AuthFailure.invalidMFAPhoneNumber }
            if result.contains(where: { $0.phoneNumber == number }) { continue }
            let id: String
            switch ids {
            case .generated: id = SecureRandom.localID()
            case .given(let required):
                if required, givenID == nil { throw AuthFailure.invalidMFAEnrollmentID }
                id = givenID ?? SecureRandom.localID()
            }
            guard !result.contains(where: { $0.id == id }) else { throw AuthFailure.duplicateMFAEnrollmentID }
            result.append(MFAEnrollment(id: id, displayName: input.displayName, phoneNumber: number,
                                        enrolledAt: input.enrolledAt ?? now))
        }
        guard result.count <= MFASettings.maximumFactors else { throw AuthFailure.secondFactorLimitExceeded }
        return result
    }
}

/// A project's multi-factor settings (Firebase's `mfa` config).
public struct MFASettings: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case disabled = "DISABLED", enabled = "ENABLED", mandatory = "MANDATORY"
    }

    public enum Provider: String, Sendable, Codable, CaseIterable {
        case phoneSMS = "PHONE_SMS", totp = "TOTP"
    }

    public var state: State
    public var providers: Set<Provider>
    /// TOTP codes of this many periods before and after the current one are accepted too (`adjacentIntervals`).
    public var totpAdjacentIntervals: Int

    enum CodingKeys: String, CodingKey { case state, providers, totpAdjacentIntervals }

    /// Reads the stored form and the config file's (`providers` and `totpAdjacentIntervals` optional).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(State.self, forKey: .state)
        providers = try container.decodeIfPresent(Set<Provider>.self, forKey: .providers) ?? []
        totpAdjacentIntervals = try container.decodeIfPresent(Int.self, forKey: .totpAdjacentIntervals) ?? 1
    }

    public init(state: State = .disabled, providers: Set<Provider> = [], totpAdjacentIntervals: Int = 1) {
        self.state = state
        self.providers = providers
        self.totpAdjacentIntervals = totpAdjacentIntervals
    }

    public static let maximumFactors = 5
}

/// A short-lived secret handed to a client and kept only as a digest: an MFA pending credential, a TOTP enrollment
/// session, an SMS verification session. `payload` is the kind's JSON.
public struct PendingRecord: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case mfaPendingCredential, totpEnrollment, phoneVerification, idpCredential, idpRedirect, idpReturn
        /// A console operator's session (``ConsoleSession``).
        case consoleSession
        /// A halt on sending SMS to a number prefix (``SMSPumpingWatch``).
        case smsPrefixHalt
        /// A passkey ceremony's challenge (``Passkeys``).
        case passkeyChallenge
    }

    public var digest: String
    public var projectID: String
    public var kind: Kind
    public var payload: String
    public var expiresAt: Date
    /// Wrong codes tried so far.
    public var attempts: Int

    public init(digest: String, projectID: String, kind: Kind, payload: String, expiresAt: Date, attempts: Int = 0) {
        self.digest = digest
        self.projectID = projectID
        self.kind = kind
        self.payload = payload
        self.expiresAt = expiresAt
        self.attempts = attempts
    }
}
