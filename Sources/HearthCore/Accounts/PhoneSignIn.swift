import Foundation

/// Why a phone code was sent.
public enum PhoneCodePurpose: String, Codable, Sendable {
    case signIn, enrollment, secondFactorSignIn
}

/// An SMS session as stored: the number, the code's digest (keyed by the session, so the table alone cannot be
/// brute-forced), and whom it is for.
struct PhoneVerificationSession: Codable {
    var phoneNumber: String
    var codeDigest: String
    var purpose: PhoneCodePurpose
    var localID: String?
    var enrollmentID: String?
}

/// The proven number of a completed SMS session.
struct VerifiedPhone {
    var phoneNumber: String
    var localID: String?
    var enrollmentID: String?
}

/// The result of `signInWithPhoneNumber`: a sign-in, or — when linking a number another account has — a
/// temporary proof that signs in to that account instead.
public enum PhoneSignInOutcome: Sendable {
    case signedIn(AccountContext.SignInResult)
    case numberTaken(temporaryProof: String, phoneNumber: String, expiresIn: Int)
    /// The number's owner has enrolled second factors: a pending credential instead of tokens.
    case secondFactorRequired(SecondFactorRequired)
}

public enum PhoneOperation: String, Sendable {
    case signUpOrIn = "SIGN_UP_OR_IN", reauth = "REAUTH", update = "UPDATE", link = "LINK"
}

/// Phone numbers as a first factor: sending the code, signing in or linking with it.
public struct PhoneSignIn: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    static func codeDigest(session: String, code: String) -> String { storageDigest(session + ":" + code) }

    /// Sends a 6-digit code to `number` (a project's test number gets its fixed code and no SMS) and returns the
    /// `sessionInfo` that must come back with it. Codes live 10 minutes and allow 5 wrong tries.
    public func sendPhoneCode(to number: String, purpose: PhoneCodePurpose, localID: String? = nil,
                              enrollmentID: String? = nil, in project: ProjectContext, locale: String?,
                              sender: any SMSSender) async throws -> String {
        guard PhoneNumber.isValid(number) else { throw AuthFailure.invalidPhoneNumber }
        // Firebase's emulator tells a sign-in code apart for an account with second factors (production does not
        // say whose number it is).
        if emulatorRules, purpose == .signIn,
           let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, phoneNumber: number), !owner.enrollments.isEmpty {
            throw AuthFailure.unsupportedFirstFactor(Self.phoneOnSMSMFAUser)
        }
        let now = clock.now()
        let testCode = project.settings.testPhoneNumbers?[number]
        let code = testCode ?? SecureRandom.string(length: 6, alphabet: Array("0123456789"))
        // `smsRegionConfig`: a code for a number in a region the project does not allow is never sent (nor made).
        if testCode == nil, let regions = project.settings.smsRegions, !regions.allows(number) {
            throw AuthFailure.smsRegionNotAllowed
        }
        // The code is asked for (a `beforeSendSms` function), made and sent only with a slot of every SMS budget held: a
        // flood is refused before it reaches a blocking function or the SMS gateway. A text that does not go out gives
        // the slots back.
        let spend = { (work: () async throws -> String) async throws -> String in
            guard let budget = context.smsBudget else { return try await work() }
            return try await budget.spending(on: number, in: project, work)
        }
        return try await spend {
            if testCode == nil, !hooks.isEmpty {
                let type = switch purpose {
                case .signIn: "SIGN_IN_OR_SIGN_UP"
                case .enrollment: "MULTI_FACTOR_ENROLLMENT"
                case .secondFactorSignIn: "MULTI_FACTOR_SIGN_IN"
                }
                try await beforeSend(OutgoingMessage(.sms(type: type, phoneNumber: number), localID: localID,
                                                     tenantID: project.tenantID), in: project)
            }
            let sessionInfo = ScopedSecret.make(tenantID: project.tenantID, byteCount: 48)
            let session = PhoneVerificationSession(phoneNumber: number, codeDigest: Self.codeDigest(session: sessionInfo, code: code),
                                                   purpose: purpose, localID: localID, enrollmentID: enrollmentID)
            try await store.insertPending(PendingRecord(
                digest: pendingKey(sessionInfo, in: project), projectID: project.id, kind: .phoneVerification,
                payload: try RecordCoding.encode(session), expiresAt: now + Self.pendingLifetime), now: now)
            if testCode == nil {
                try await sender.send(SMSMessage(projectID: project.id, tenantID: project.tenantID, phoneNumber: number,
                                                 code: code, sessionInfo: sessionInfo, locale: locale))
            }
            return sessionInfo
        }
    }

    /// Checks a code against its session; right → the session is used up; wrong → counted (5 at most), or as
    /// `wrong` says (a second factor also counts against the factor). `before` may refuse the session first (a
    /// locked factor).
    func verifyPhoneCode(sessionInfo: String?, code: String?, purpose: PhoneCodePurpose, in project: ProjectContext,
                         now: Date, before: (VerifiedPhone) throws -> Void = { _ in },
                         wrong: ((PendingRecord, VerifiedPhone) async throws -> AuthFailure)? = nil)
        async throws -> VerifiedPhone {
        // Absent input first, as Firebase checks it: MISSING_SESSION_INFO, then MISSING_CODE.
        guard let sessionInfo, !sessionInfo.isEmpty else { throw AuthFailure.missingSessionInfo }
        guard let code, !code.isEmpty else { throw AuthFailure.missingCode }
        let record = try await usePending(sessionInfo, kind: .phoneVerification, in: project, now: now)
        guard let session = try? RecordCoding.decode(PhoneVerificationSession.self, from: record.payload),
              session.purpose == purpose
        else { throw AuthFailure.invalidSessionInfo }
        let verified = VerifiedPhone(phoneNumber: session.phoneNumber, localID: session.localID,
                                     enrollmentID: session.enrollmentID)
        try before(verified)
        guard constantTimeEquals(Array(Self.codeDigest(session: sessionInfo, code: code).utf8),
                                 Array(session.codeDigest.utf8))
        else {
            if let wrong { throw try await wrong(record, verified) }
            throw try await wrongCode(record, in: project)
        }
        guard try await store.consumePending(projectID: project.id, digest: record.digest) != nil else {
            throw AuthFailure.invalidSessionInfo
        }
        return verified
    }

    /// `accounts:signInWithPhoneNumber`: sign up or in with a verified number, link it to the `idToken`'s user,
    /// or re-authenticate. Linking a number that belongs to another account answers a temporary proof.
    public func signInWithPhoneNumber(in project: ProjectContext, sessionInfo: String?, code: String?,
                                      temporaryProof: String?, phoneNumber: String?, idToken: String?,
                                      operation: PhoneOperation?) async throws -> PhoneSignInOutcome {
        let now = clock.now()
        let number: String
        if let temporaryProof, !temporaryProof.isEmpty {
            let record = try await usePending(temporaryProof, kind: .phoneVerification, in: project, now: now)
            guard let session = try? RecordCoding.decode(PhoneVerificationSession.self, from: record.payload),
                  session.codeDigest.isEmpty, phoneNumber == nil || phoneNumber == session.phoneNumber,
                  try await store.consumePending(projectID: project.id, digest: record.digest) != nil
            else { throw AuthFailure.invalidTemporaryProof }
            number = session.phoneNumber
        } else {
            number = try await verifyPhoneCode(sessionInfo: sessionInfo, code: code, purpose: .signIn, in: project,
                                               now: now).phoneNumber
        }
        let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, phoneNumber: number)

        if let idToken, operation != .reauth {  // link (or update) the number on the signed-in user
            let (current, claims) = try await authenticate(idToken, in: project)
            try requireRecentLogin(claims, for: .linkCredential)
            if current.enrollments.contains(where: { $0.phoneNumber != nil }) {
                throw AuthFailure.unsupportedFirstFactor(Self.phoneOnSMSMFAUser)
            }
            if let owner, owner.localID != current.localID {
                // A proof is answered once; coming back with it, the number is still someone else's.
                if !(temporaryProof ?? "").isEmpty { throw AuthFailure.phoneNumberExists }
                let proof = ScopedSecret.make(tenantID: project.tenantID, byteCount: 48)
                try await store.insertPending(PendingRecord(
                    digest: pendingKey(proof, in: project), projectID: project.id, kind: .phoneVerification,
                    payload: try RecordCoding.encode(PhoneVerificationSession(phoneNumber: number, codeDigest: "",
                                                                              purpose: .signIn)),
                    expiresAt: now + Self.pendingLifetime), now: now)
                return .numberTaken(temporaryProof: proof, phoneNumber: number, expiresIn: Int(Self.pendingLifetime))
            }
            let user = try await modifyUser(current, in: project, session: claims) { $0.phoneNumber = number }
            return .signedIn(try await completeSignIn(user, provider: claims.firebase?.signInProvider ?? "phone",
                                                      in: project, now: now,
                                                      .reissued(secondFactor: nil, secondFactorID: nil)).signedIn())
        }
        if operation == .reauth {
            guard let owner else { throw AuthFailure.userNotFound }
            if let idToken {
                let signedIn = try await authenticate(idToken, in: project).user
                guard signedIn.localID == owner.localID else { throw AuthFailure.userNotFound }
            }
            return try await phoneSignIn(owner, in: project, now: now)
        }
        if let owner { return try await phoneSignIn(owner, in: project, now: now) }
        let user = try await create(
            UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(), phoneNumber: number,
                       validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now),
            origin: .phone, in: project)
        return .signedIn(try await completeSignIn(user, provider: "phone", in: project, now: now, .created).signedIn())
    }

    /// Signs in the owner of a verified number, recording the sign-in in place.
    private func phoneSignIn(_ owner: UserRecord, in project: ProjectContext, now: Date) async throws -> PhoneSignInOutcome {
        guard !owner.disabled else { throw AuthFailure.userDisabled }
        let stamp = SignInStamp(projectID: project.id, tenantID: owner.tenantID, localID: owner.localID, at: now, signedIn: true)
        switch try await completeSignIn(owner, provider: "phone", in: project, now: now, .firstFactor(stamp: stamp)) {
        case .signedIn(let result): return .signedIn(result)
        case .secondFactorRequired(let required): return .secondFactorRequired(required)
        }
    }
}

extension PhoneSignIn {
    /// Whether a sent code's session is still open (the emulator lists only those, as Firebase's does).
    public func isUnused(_ message: SMSMessage) async throws -> Bool {
        let key = Self.pendingKey(digest: storageDigest(message.sessionInfo), tenantID: message.tenantID)
        return try await store.pending(projectID: message.projectID, digest: key, now: .distantPast) != nil
    }
}
