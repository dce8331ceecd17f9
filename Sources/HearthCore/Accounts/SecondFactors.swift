import Foundation

/// A first-factor sign-in of a user with enrolled second factors: no tokens yet, a pending credential instead.
/// The server answers it with `mfaPendingCredential` + `mfaInfo` (200), as Firebase does.
public struct SecondFactorRequired: Error, Sendable {
    public var pendingCredential: String
    public var user: UserRecord
}

/// What a pending credential stands for (stored as the payload of its ``PendingRecord``).
struct MFAPendingSignIn: Codable {
    var localID: String
    var tenantID: String?
    var provider: String
    var extraClaims: String?
}

/// A TOTP enrollment in progress: the secret shown to the user, waiting for a first code.
struct TOTPEnrollmentSession: Codable {
    var localID: String
    var secret: String
}

/// What `mfaEnrollment:start` hands out for a TOTP factor.
public struct TOTPEnrollmentStart: Sendable {
    public var sessionInfo: String
    public var sharedSecretKey: String
    public var finalizeBy: Date
}

/// How a second factor is being proved.
public enum SecondFactorProof: Sendable {
    case phone(sessionInfo: String?, code: String?)
    case totp(enrollmentID: String?, code: String?)
}

/// Second factors (SMS and TOTP): enrolment, withdrawal, and the second step of a sign-in.
public struct SecondFactors: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// Wrong codes allowed per pending secret; the next one destroys it.


    // MARK: Enrollment


    /// Firebase's rules for enrolling: MFA and the factor enabled, a session from an eligible sign-in method, a
    /// verified email, not an anonymous or phone-only account, fewer than 5 factors.
    func checkEnrollable(_ user: UserRecord, provider: MFASettings.Provider, in project: ProjectContext,
                         session: IDTokenClaims? = nil) throws {
        let mfa = project.settings.mfa ?? MFASettings()
        guard mfa.state != .disabled else { throw AuthFailure.mfaNotEnabled("Multi-factor authentication is not enabled for this project.") }
        guard mfa.providers.contains(provider) else {
            throw AuthFailure.mfaNotEnabled(provider == .totp ? "TOTP based MFA not enabled." : "SMS based MFA not enabled.")
        }
        if let method = session?.firebase?.signInProvider, Self.mfaIneligibleProviders.contains(method) {
            throw AuthFailure.unsupportedFirstFactor(Self.mfaUnavailable)
        }
        guard !user.isAnonymous, user.email != nil else { throw AuthFailure.unsupportedFirstFactor(Self.mfaUnavailable) }
        guard user.emailVerified else { throw AuthFailure.unverifiedEmail }
        guard user.enrollments.count < MFASettings.maximumFactors else { throw AuthFailure.secondFactorLimitExceeded }
    }

    /// `mfaEnrollment:start` for TOTP: a new 160-bit secret, shown once, valid for 10 minutes.
    public func startTOTPEnrollment(in project: ProjectContext, idToken: String?) async throws -> TOTPEnrollmentStart {
        let (user, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .enrollSecondFactor)
        try checkEnrollable(user, provider: .totp, in: project, session: claims)
        let now = clock.now()
        let secret = Base32.encode(TOTP.newSecret())
        let sessionInfo = ScopedSecret.make(tenantID: project.tenantID)
        let expires = now + Self.pendingLifetime
        try await store.insertPending(PendingRecord(
            digest: pendingKey(sessionInfo, in: project), projectID: project.id, kind: .totpEnrollment,
            payload: try RecordCoding.encode(TOTPEnrollmentSession(localID: user.localID, secret: secret)),
            expiresAt: expires), now: now)
        return TOTPEnrollmentStart(sessionInfo: sessionInfo, sharedSecretKey: secret, finalizeBy: expires)
    }

    /// `mfaEnrollment:finalize`: checks the code of the factor being enrolled, adds it, and signs the user in again
    /// with it (the new ID token carries the second-factor claims).
    public func finalizeEnrollment(in project: ProjectContext, idToken: String?, displayName: String?,
                                   phone: (sessionInfo: String?, code: String?)?,
                                   totp: (sessionInfo: String?, code: String?)?) async throws -> SignInResult {
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .enrollSecondFactor)
        let now = clock.now()
        var enrollment: MFAEnrollment
        if let totp {
            try checkEnrollable(stored, provider: .totp, in: project, session: claims)
            let record = try await usePending(totp.sessionInfo, kind: .totpEnrollment, in: project, now: now)
            let session = try RecordCoding.decode(TOTPEnrollmentSession.self, from: record.payload)
            guard session.localID == stored.localID else { throw AuthFailure.invalidSessionInfo }
            guard let code = totp.code, !code.isEmpty else { throw AuthFailure.missingCode }
            let window = project.settings.mfa?.totpAdjacentIntervals ?? 1
            guard let secret = Base32.decode(session.secret),
                  let step = TOTP.match(code, secret: secret, at: now, window: window)
            else { throw try await wrongCode(record, in: project) }
            guard try await store.consumePending(projectID: project.id, digest: record.digest) != nil else {
                throw AuthFailure.invalidSessionInfo
            }
            enrollment = MFAEnrollment(displayName: displayName, totpSecret: session.secret, enrolledAt: now)
            enrollment.totpLastStep = step
        } else if let phone {
            try checkEnrollable(stored, provider: .phoneSMS, in: project, session: claims)
            let verified = try await context.phone.verifyPhoneCode(sessionInfo: phone.sessionInfo, code: phone.code,
                                                     purpose: .enrollment, in: project, now: now)
            guard verified.localID == stored.localID else { throw AuthFailure.invalidSessionInfo }
            enrollment = MFAEnrollment(displayName: displayName, phoneNumber: verified.phoneNumber, enrolledAt: now)
        } else {
            throw AuthFailure.invalidArgument("phoneVerificationInfo or totpVerificationInfo is required")
        }
        // The factor is added to the account as it is now; sessions from before it end (a thief holding one must
        // not keep it past the owner's new factor): the tokens issued here are the only ones left.
        let user = try await modifyUser(stored, in: project, session: claims) { user in
            guard user.enrollments.count < MFASettings.maximumFactors else { throw AuthFailure.secondFactorLimitExceeded }
            if let number = enrollment.phoneNumber, user.enrollments.contains(where: { $0.phoneNumber == number }) {
                throw AuthFailure.secondFactorExists
            }
            user.enrollments.append(enrollment)
            user.validSince = now.epochSeconds
            user.tokensValidAfter = now
        }
        return try await completeSignIn(user, provider: claims.firebase?.signInProvider ?? "password", in: project,
                                        now: now, .reissued(secondFactor: enrollment.factorID,
                                                            secondFactorID: enrollment.id)).signedIn()
    }

    /// `mfaEnrollment:withdraw`: removes a factor and returns fresh tokens without second-factor claims. Needs a
    /// recent sign-in that passed a second factor: a password alone must not remove what protects it.
    public func withdrawEnrollment(in project: ProjectContext, idToken: String?, enrollmentID: String?) async throws
        -> SignInResult
    {
        let (stored, claims) = try await authenticate(idToken, in: project)
        guard let enrollmentID, !enrollmentID.isEmpty else { throw AuthFailure.missingMFAEnrollmentID }
        guard stored.enrollments.contains(where: { $0.id == enrollmentID }) else { throw AuthFailure.mfaEnrollmentNotFound }
        try requireRecentLogin(claims, for: .withdrawSecondFactor)
        guard claims.firebase?.signInSecondFactor != nil else { throw AuthFailure.credentialTooOldLoginAgain }
        let user = try await modifyUser(stored, in: project, session: claims) { user in
            guard user.enrollments.contains(where: { $0.id == enrollmentID }) else { throw AuthFailure.mfaEnrollmentNotFound }
            user.enrollments.removeAll { $0.id == enrollmentID }
            // Firebase's emulator keeps an emptied list, and shows it (`mfaInfo: []`); its tests read it.
            if emulatorRules, user.mfaEnrollments == nil { user.mfaEnrollments = [] }
        }
        return try await completeSignIn(user, provider: claims.firebase?.signInProvider ?? "password", in: project,
                                        now: clock.now(), .reissued(secondFactor: nil, secondFactorID: nil)).signedIn()
    }

    // MARK: Second-factor sign-in

    /// The pending sign-in behind a credential, and its user (`mfaSignIn:start` and `:finalize`).
    func pendingSignIn(_ credential: String?, in project: ProjectContext, now: Date) async throws
        -> (record: PendingRecord, sign: MFAPendingSignIn, user: UserRecord)
    {
        guard let credential, !credential.isEmpty else { throw AuthFailure.missingMFAPendingCredential }
        guard credential.utf8.count <= 256,
              let record = try await store.pending(projectID: project.id, digest: pendingKey(credential, in: project), now: now),
              record.kind == .mfaPendingCredential,
              let sign = try? RecordCoding.decode(MFAPendingSignIn.self, from: record.payload)
        else { throw AuthFailure.invalidMFAPendingCredential }
        guard let user = try await store.user(projectID: project.id, tenantID: sign.tenantID, localID: sign.localID) else {
            throw AuthFailure.userNotFound
        }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        return (record, sign, user)
    }

    /// `mfaSignIn:start` for a phone factor: sends the code to the enrolled number.
    public func startPhoneSecondFactor(in project: ProjectContext, pendingCredential: String?, enrollmentID: String?,
                                       locale: String?, sender: any SMSSender) async throws -> String {
        let now = clock.now()
        let (_, _, user) = try await pendingSignIn(pendingCredential, in: project, now: now)
        guard let enrollmentID, !enrollmentID.isEmpty else { throw AuthFailure.missingMFAEnrollmentID }
        guard let enrollment = user.enrollments.first(where: { $0.id == enrollmentID }),
              let number = enrollment.phoneNumber
        else { throw AuthFailure.mfaEnrollmentNotFound }
        return try await context.phone.sendPhoneCode(to: number, purpose: .secondFactorSignIn, localID: user.localID,
                                       enrollmentID: enrollment.id, in: project, locale: locale, sender: sender)
    }

    /// `mfaSignIn:finalize`: proves the second factor and completes the sign-in begun with the first one. The
    /// pending credential is used up; wrong codes count against it.
    public func finalizeSecondFactor(in project: ProjectContext, pendingCredential: String?, proof: SecondFactorProof)
        async throws -> SignInResult
    {
        let now = clock.now()
        let (record, sign, stored) = try await pendingSignIn(pendingCredential, in: project, now: now)
        let enrollmentID: String
        var step: Int64?
        switch proof {
        case .phone(let sessionInfo, let code):
            // A wrong SMS code counts against the factor as a wrong TOTP code does, and a locked factor takes none.
            let verified = try await context.phone.verifyPhoneCode(
                sessionInfo: sessionInfo, code: code, purpose: .secondFactorSignIn, in: project, now: now,
                before: { phone in try checkNotLocked(stored, enrollmentID: phone.enrollmentID ?? "", now: now) },
                wrong: { record, phone in
                    try await wrongSecondFactor(record, user: stored, enrollmentID: phone.enrollmentID ?? "",
                                                in: project, now: now)
                })
            guard verified.localID == stored.localID, let id = verified.enrollmentID,
                  stored.enrollments.contains(where: { $0.id == id })
            else { throw AuthFailure.mfaEnrollmentNotFound }
            enrollmentID = id
        case .totp(let id, let code):
            guard let id, !id.isEmpty else { throw AuthFailure.missingMFAEnrollmentID }
            guard let factor = stored.enrollments.first(where: { $0.id == id }),
                  let secretText = factor.totpSecret, let secret = Base32.decode(secretText)
            else { throw AuthFailure.mfaEnrollmentNotFound }
            guard let code, !code.isEmpty else { throw AuthFailure.missingCode }
            try checkNotLocked(stored, enrollmentID: id, now: now)
            let window = project.settings.mfa?.totpAdjacentIntervals ?? 1
            guard let matched = TOTP.match(code, secret: secret, at: now, window: window),
                  matched > (factor.totpLastStep ?? Int64.min)  // a code works once
            else { throw try await wrongSecondFactor(record, user: stored, enrollmentID: id, in: project, now: now) }
            enrollmentID = id
            step = matched
        }
        // The time step is marked used in the same versioned write that checks it is unused, so of concurrent
        // uses of one code (through several pending credentials) exactly one passes.
        let user = try await modifyUser(stored, in: project) { user in
            guard !user.disabled else { throw AuthFailure.userDisabled }
            guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else {
                throw AuthFailure.mfaEnrollmentNotFound
            }
            if let step {
                guard step > (user.enrollments[index].totpLastStep ?? Int64.min) else { throw AuthFailure.invalidCode }
                user.enrollments[index].totpLastStep = step
            }
            user.enrollments[index].failedAttempts = nil
            user.lastLoginAt = now
            user.lastRefreshAt = now
        }
        guard try await store.consumePending(projectID: project.id, digest: record.digest) != nil else {
            throw AuthFailure.invalidMFAPendingCredential
        }
        let enrollment = user.enrollments.first { $0.id == enrollmentID }
        return try await completeSignIn(user, provider: sign.provider, in: project, now: now,
                                        .secondFactor(kind: enrollment?.factorID, id: enrollmentID),
                                        extraClaims: sign.extraClaims).signedIn()
    }

    /// A factor locked after too many wrong codes refuses every code until the lock ends.
    func checkNotLocked(_ user: UserRecord, enrollmentID: String, now: Date) throws {
        if let until = user.enrollments.first(where: { $0.id == enrollmentID })?.lockedUntil, until > now {
            throw AuthFailure.tooManyAttempts
        }
    }

    /// Counts a wrong second-factor code twice: against the pending credential (5 end it) and against the factor
    /// itself, across every pending credential — a new password sign-in does not start the count again. The
    /// ``MFAEnrollment/maximumFailures``th in a row locks the factor for ``MFAEnrollment/lockDuration``.
    func wrongSecondFactor(_ record: PendingRecord, user: UserRecord, enrollmentID: String, in project: ProjectContext,
                           now: Date) async throws -> AuthFailure {
        let failure = try await wrongCode(record, in: project)
        var locked = false
        try await modifyUser(user, in: project) { user in
            guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else { return }
            let failures = (user.enrollments[index].failedAttempts ?? 0) + 1
            if failures >= MFAEnrollment.maximumFailures {
                user.enrollments[index].failedAttempts = nil
                user.enrollments[index].lockedUntil = now + MFAEnrollment.lockDuration
                locked = true
            } else {
                user.enrollments[index].failedAttempts = failures
            }
        }
        if locked {
            await audit?.record(SecurityEvent(kind: .secondFactorLocked, projectID: project.id, localID: user.localID, details: [
                "enrollmentId": enrollmentID, "until": ISO8601DateFormatter().string(from: now + MFAEnrollment.lockDuration)]))
            return AuthFailure.tooManyAttempts
        }
        return failure
    }

    // MARK: Helpers




}

extension SecondFactors {
    /// The checks of a phone enrollment that come before any SMS is sent.
    public func checkPhoneEnrollment(_ user: UserRecord, number: String?, in project: ProjectContext,
                                     session: IDTokenClaims? = nil) throws {
        try checkEnrollable(user, provider: .phoneSMS, in: project, session: session)
        guard let number, PhoneNumber.isValid(number) else { throw AuthFailure.invalidPhoneNumber }
        if user.enrollments.contains(where: { $0.phoneNumber == number }) { throw AuthFailure.secondFactorExists }
    }
}

/// Shared by the use cases.
extension UseCase {
    /// Wrong codes a pending secret takes before it is destroyed.
    static var maximumAttempts: Int { 5 }
    /// Pending credentials, TOTP enrollment sessions and SMS sessions live this long.
    static var pendingLifetime: TimeInterval { 600 }
    func secondFactorRequired(for user: UserRecord, provider: String, extraClaims: String?, in project: ProjectContext,
                              now: Date) async throws -> SecondFactorRequired {
        let credential = ScopedSecret.make(tenantID: project.tenantID)
        let payload = MFAPendingSignIn(localID: user.localID, tenantID: user.tenantID, provider: provider,
                                       extraClaims: extraClaims)
        try await store.insertPending(PendingRecord(
            digest: pendingKey(credential, in: project), projectID: project.id, kind: .mfaPendingCredential,
            payload: try RecordCoding.encode(payload), expiresAt: now + Self.pendingLifetime), now: now)
        return SecondFactorRequired(pendingCredential: credential, user: user)
    }
    /// Sign-in methods whose sessions cannot enrol or use a second factor (Firebase's list).
    static var mfaIneligibleProviders: Set<String> { ["anonymous", "phone", "custom", "gc.apple.com"] }
    static var mfaUnavailable: String { "MFA is not available for the given first factor." }
    static var phoneOnSMSMFAUser: String { "A phone number cannot be set as a first factor on an SMS based MFA user." }
    /// The key a pending secret is kept under: its digest, bound to the tenant acting, so that a session, proof or
    /// pending credential made in one tenant is unknown in the project and in every other tenant.
    func pendingKey(_ secret: String, in project: ProjectContext) -> String {
        Self.pendingKey(digest: storageDigest(secret), tenantID: project.tenantID)
    }
    /// The same from a digest the client made (`/__/auth/handler?sessionId=`), or one listed back.
    public static func pendingKey(digest: String, tenantID: String?) -> String {
        guard let tenantID else { return digest }
        return storageDigest("tenant:" + tenantID + ":" + digest)
    }
    /// A pending secret of `kind` that has not expired, or the matching error.
    func usePending(_ secret: String?, kind: PendingRecord.Kind, in project: ProjectContext, now: Date) async throws
        -> PendingRecord
    {
        guard let secret, !secret.isEmpty else { throw AuthFailure.missingSessionInfo }
        guard secret.utf8.count <= 256,
              let record = try await store.pending(projectID: project.id, digest: pendingKey(secret, in: project), now: .distantPast),
              record.kind == kind
        else { throw AuthFailure.invalidSessionInfo }
        guard record.expiresAt > now else { throw AuthFailure.sessionExpired }
        return record
    }
    /// Counts a wrong code; the fifth destroys the secret (`TOO_MANY_ATTEMPTS_TRY_LATER`), so a 6-digit code
    /// cannot be guessed.
    func wrongCode(_ record: PendingRecord, in project: ProjectContext) async throws -> AuthFailure {
        let attempts = try await store.recordPendingAttempt(projectID: project.id, digest: record.digest) ?? Int.max
        if attempts >= Self.maximumAttempts {
            _ = try await store.consumePending(projectID: project.id, digest: record.digest)
            return AuthFailure.tooManyAttempts
        }
        return AuthFailure.invalidCode
    }
}
