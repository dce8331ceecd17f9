import Foundation

/// The account use-cases of the client API: sign up, sign in, look up, delete, refresh.
///
/// One value serves every project; each call names the ``ProjectContext`` it acts in. Clock, password-hashing
/// runner and token lifetimes are injected, so tests run on a ``ManualClock`` and the server hashes off its
/// event loops.
///
/// ```swift
/// let accounts = AccountService(store: store, clock: SystemClock(), hashing: InlineWorkRunner())
/// let result = try await accounts.signUp(in: project, email: "ada@example.com", password: "s3cret!")
/// let again = try await accounts.signInWithPassword(in: project, email: "ada@example.com", password: "s3cret!").signedIn()
/// ```
public struct AccountService: Sendable {
    public let store: any IdentityStore
    public let clock: any HearthClock
    public let hashing: any BlockingWorkRunner
    public let issuer: IDTokenIssuer
    /// How long after an interactive sign-in sensitive changes (delete, email, password) are allowed.
    public var recentLoginWindow: TimeInterval

    /// Firebase's emulator's rules where they are weaker than production's and the emulator's own tests depend on
    /// them (emulator mode only; the README lists them): any identity provider's verified email may sign in to
    /// the account with that email (production: only providers authoritative for the address,
    /// ``FederatedAssertion/isTrustedForEmail``); a revocation counts from its whole second, so a token from that
    /// second stays valid (production refuses the second); `signUp` with an `idToken` may replace an email and
    /// password the account already has (production: `PROVIDER_ALREADY_LINKED`).
    public var emulatorRules = false

    /// Receives the security events of the use-cases (sign-ins, a second factor locked, …) for the audit trail.
    public var audit: (any AuditTrail)?

    /// Rules every new account and every completed sign-in passes through (see ``AccountHook``).
    public var hooks: [any AccountHook] = []

    /// Live sessions (refresh tokens) kept per user: a sign-in beyond this many revokes the user's oldest. `nil`
    /// keeps them all.
    public var sessionsPerUser: Int? = 100

    /// Checks imported bcrypt hashes at sign-in; without one, bcrypt users cannot sign in with a password.
    public var bcrypt: (any BcryptVerifier)?

    public init(store: any IdentityStore, clock: any HearthClock, hashing: any BlockingWorkRunner,
                issuer: IDTokenIssuer = IDTokenIssuer(), recentLoginWindow: TimeInterval = 300,
                bcrypt: (any BcryptVerifier)? = nil) {
        self.bcrypt = bcrypt
        self.store = store
        self.clock = clock
        self.hashing = hashing
        self.issuer = issuer
        self.recentLoginWindow = recentLoginWindow
    }

    /// Tokens handed out by a sign-in or a refresh.
    public struct Tokens: Sendable {
        public var idToken: String
        public var refreshToken: String
        public var expiresIn: Int
    }

    /// A user together with fresh tokens.
    public struct SignInResult: Sendable {
        public var user: UserRecord
        public var tokens: Tokens
        public var isNewUser: Bool
    }

    /// How a first-factor sign-in ended: tokens, or a second factor still to prove (Firebase answers the latter
    /// with a 200 carrying `mfaPendingCredential` and `mfaInfo`, not with an error).
    public enum SignInOutcome: Sendable {
        case signedIn(SignInResult)
        case secondFactorRequired(SecondFactorRequired)

        /// The tokens, for callers that need them now (tools, tests): throws ``SecondFactorRequired`` otherwise.
        public func signedIn() throws -> SignInResult {
            switch self {
            case .signedIn(let result): return result
            case .secondFactorRequired(let required): throw required
            }
        }
    }

    // MARK: Sign-up

    /// `accounts:signUp`: email + password, or anonymous when both are absent. The new account and its identity
    /// rows are written in one step, so a failure leaves nothing behind.
    ///
    /// With `idToken` it is linking and nothing more: an email and password are added to that user (the `localId`
    /// stays) if it has no email credential yet, after a recent sign-in, and the email must be free. The call
    /// never re-issues a session for a bare ID token: a stolen token cannot be turned into a lasting one.
    public func signUp(in project: ProjectContext, email: String? = nil, password: String? = nil,
                       displayName: String? = nil, idToken: String? = nil,
                       secondFactors: [MFAEnrollmentInput] = []) async throws -> SignInResult {
        let now = clock.now()
        let settings = project.settings
        if let idToken {
            return try await linkEmailPassword(in: project, idToken: idToken, email: email, password: password,
                                               displayName: displayName)
        }
        switch (email, password) {
        case (nil, nil):
            guard settings.anonymousSignInEnabled else { throw AuthFailure.adminOnlyOperation }
            // An anonymous account takes no profile at sign-up, as Firebase's: a name comes with an update.
            var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(),
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            user.enrollments = try MFAEnrollmentInput.resolve(secondFactors, existing: [], now: now, ids: .generated)
            try ProfileLimits.check(user)
            user = try await create(user, origin: .anonymous, in: project)
            return try await completeSignIn(user, provider: "anonymous", in: project, now: now, .created).signedIn()
        case (nil, _):
            throw AuthFailure.missingEmail
        case (_, nil):
            throw AuthFailure.missingPassword
        case (let email?, let password?):
            guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail }
            guard settings.passwordSignInEnabled else { throw AuthFailure.operationNotAllowed }
            try PasswordPolicy.check(password)
            let hash = try await hashPassword(password, project: project)
            // Stored lowercased, as Firebase stores addresses (sign-up, admin create and import alike).
            var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(), email: EmailAddress.normalized(email),
                                  displayName: displayName, passwordHash: hash, passwordUpdatedAt: now,
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            user.enrollments = try MFAEnrollmentInput.resolve(secondFactors, existing: [], now: now, ids: .generated)
            try ProfileLimits.check(user)
            // A taken address is refused before the pipeline's hooks see an account that cannot be stored (the
            // store's unique index still decides a race).
            if !settings.allowDuplicateEmails,
               try await store.user(projectID: project.id, tenantID: project.tenantID, email: email) != nil {
                throw AuthFailure.emailExists
            }
            user = try await create(user, origin: .password, in: project)
            return try await completeSignIn(user, provider: "password", in: project, now: now, .created).signedIn()
        }
    }

    /// `accounts:signUp` with an `idToken`: links an email and password to the signed-in user, under the linking
    /// rules of ``SensitiveChange``.
    private func linkEmailPassword(in project: ProjectContext, idToken: String, email: String?, password: String?,
                                   displayName: String?) async throws -> SignInResult {
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .linkCredential)
        guard let email, !email.isEmpty else { throw AuthFailure.missingEmail }
        guard let password, !password.isEmpty else { throw AuthFailure.missingPassword }
        guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail }
        guard project.settings.passwordSignInEnabled else { throw AuthFailure.operationNotAllowed }
        try PasswordPolicy.check(password)
        guard emulatorRules || !stored.hasEmailCredential else { throw AuthFailure.providerAlreadyLinked }
        if !project.settings.allowDuplicateEmails,
           let owner = try await store.user(projectID: project.id, tenantID: stored.tenantID, email: email),
           owner.localID != stored.localID {
            throw AuthFailure.emailExists
        }
        let hash = try await hashPassword(password, project: project)
        let now = clock.now()
        let user = try await modifyUser(stored, in: project, session: claims) { user in
            guard emulatorRules || !user.hasEmailCredential else { throw AuthFailure.providerAlreadyLinked }
            if user.email.map(EmailAddress.normalized) != EmailAddress.normalized(email) { user.emailVerified = false }
            user.email = EmailAddress.normalized(email)
            user.passwordHash = hash
            user.passwordUpdatedAt = now
            if let displayName { user.displayName = displayName }
            try ProfileLimits.check(user)
        }
        return try await completeSignIn(user, provider: "password", in: project, now: now,
                                        .reissued(secondFactor: nil, secondFactorID: nil)).signedIn()
    }

    // MARK: Sign-in

    /// `accounts:signInWithPassword`. An unknown email still costs one hash, so timing does not reveal accounts.
    /// Under email-enumeration protection both failures read `INVALID_LOGIN_CREDENTIALS`.
    public func signInWithPassword(in project: ProjectContext, email: String?, password: String?) async throws
        -> SignInOutcome
    {
        guard let email else { throw AuthFailure.missingEmail }  // absent; an empty one is invalid, as Firebase answers
        guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail }
        guard let password, !password.isEmpty else { throw AuthFailure.missingPassword }
        let settings = project.settings
        guard settings.passwordSignInEnabled else { throw AuthFailure.passwordLoginDisabled }
        let protected = settings.enableImprovedEmailPrivacy

        let found = try await store.user(projectID: project.id, tenantID: project.tenantID, email: email)
        let stored = found?.passwordHash ?? project.dummyPasswordHash
        let bcrypt = self.bcrypt
        let matches = try await hashing.run {
            (try? PasswordHash.verify(password, against: stored, bcrypt: bcrypt)) ?? false
        }
        let audit = audit
        func failed(_ reason: String, _ failure: AuthFailure) async -> AuthFailure {
            await audit?.record(SecurityEvent(kind: .signInFailed, projectID: project.id, localID: found?.localID,
                                        details: ["provider": "password", "reason": reason, "email": email]))
            return failure
        }
        guard let user = found, user.passwordHash != nil else {
            throw await failed("unknown email", protected ? .invalidLoginCredentials : .emailNotFound)
        }
        guard matches else { throw await failed("wrong password", protected ? .invalidLoginCredentials : .invalidPassword) }
        guard !user.disabled else { throw await failed("account disabled", .userDisabled) }
        // An imported hash (or older parameters) is replaced by the project's Firebase scrypt now that the
        // password is known, as Firebase does; the password itself is unchanged, so sessions stay valid.
        var rehash: String?
        if PasswordHash.needsRehash(stored, for: project.record.hashConfig) {
            rehash = try await hashPassword(password, project: project)
        }
        // Written in place with the session, and only if the hash is still the one just verified: a password
        // change that landed while this sign-in hashed makes it fail instead of being undone by it.
        let stamp = SignInStamp(projectID: project.id, tenantID: user.tenantID, localID: user.localID, at: clock.now(),
                                signedIn: true, verifiedPasswordHash: stored, rehash: rehash)
        return try await completeSignIn(user, provider: "password", in: project, now: stamp.at, .firstFactor(stamp: stamp))
    }

    // MARK: Signed-in user

    /// Verifies an ID token and loads its user: signature, issuer, audience and expiry, then that the user
    /// exists, is enabled and has not revoked the token (`validSince`).
    public func authenticate(_ idToken: String?, in project: ProjectContext) async throws
        -> (user: UserRecord, claims: IDTokenClaims)
    {
        guard let idToken, !idToken.isEmpty else { throw AuthFailure.missingIDToken }
        let claims: IDTokenClaims
        do {
            claims = try issuer.verify(idToken, projectID: project.id, keys: project.keys, now: clock.now())
        } catch .expired {
            throw AuthFailure.tokenExpired
        } catch {
            throw AuthFailure.invalidIDToken
        }
        // A call that names a tenant takes only that tenant's tokens; one that names none acts in the token's, and
        // a disabled tenant's tokens stop working (a call naming the tenant was refused before it got here).
        if let tenant = project.tenantID, claims.firebase?.tenant != tenant { throw AuthFailure.tenantIDMismatch }
        if project.tenantID == nil, let tenant = claims.firebase?.tenant,
           try await store.tenant(projectID: project.id, id: tenant)?.disableAuth != false {
            throw AuthFailure.projectDisabled
        }
        guard let user = try await store.user(projectID: project.id, tenantID: claims.firebase?.tenant,
                                              localID: claims.sub)
        else { throw AuthFailure.userNotFound }
        try checkSession(claims, of: user)
        return (user, claims)
    }

    /// The checks an ID token passes against its (freshly read) user: enabled, and issued after the last
    /// revocation. A revocation counts from its exact instant: a token from the same second is refused, since it
    /// may predate it (tokens minted after a revocation wait for the next second, see ``issue(for:provider:in:now:isNewUser:secondFactor:secondFactorID:extraClaims:)``).
    func checkSession(_ claims: IDTokenClaims, of user: UserRecord) throws {
        guard !user.disabled else { throw AuthFailure.userDisabled }
        guard claims.iat >= user.validSince else { throw AuthFailure.tokenExpired }
        if !emulatorRules, let revoked = user.tokensValidAfter, claims.iat <= revoked.epochSeconds {
            throw AuthFailure.tokenExpired
        }
    }

    /// `accounts:lookup` with an ID token: the signed-in user's record.
    public func lookup(in project: ProjectContext, idToken: String?) async throws -> UserRecord {
        try await authenticate(idToken, in: project).user
    }

    /// `accounts:delete` with an ID token; needs a recent interactive sign-in.
    public func deleteAccount(in project: ProjectContext, idToken: String?) async throws {
        let (user, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .deleteAccount)
        try await store.deleteUser(projectID: project.id, tenantID: user.tenantID, localID: user.localID)
    }

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the token's `auth_time` is within the recent-login window.
    /// `change` names what is being done: every caller is one of ``SensitiveChange``'s cases.
    public func requireRecentLogin(_ claims: IDTokenClaims, for change: SensitiveChange) throws {
        let age = clock.now().timeIntervalSince1970 - TimeInterval(claims.authTime)
        guard age <= recentLoginWindow else { throw AuthFailure.credentialTooOldLoginAgain }
    }

    // MARK: Refresh

    /// `securetoken /v1/token` with `grant_type=refresh_token`: a new ID token carrying the original sign-in's
    /// provider, second factor and `auth_time`. The refresh token itself stays the same, as Firebase's does.
    public func refresh(in project: ProjectContext, refreshToken: String) async throws -> SignInResult {
        guard refreshToken.utf8.count <= 1024,
              let record = try await store.refreshToken(projectID: project.id, digest: storageDigest(refreshToken))
        else { throw AuthFailure.invalidRefreshToken }
        if let tenant = project.tenantID, record.tenantID != tenant { throw AuthFailure.tenantIDMismatch }
        // A disabled tenant's sessions end: its refresh tokens stop minting ID tokens.
        if let tenant = record.tenantID, try await store.tenant(projectID: project.id, id: tenant)?.disableAuth != false {
            throw AuthFailure.projectDisabled
        }
        guard var user = try await store.user(projectID: project.id, tenantID: record.tenantID, localID: record.localID)
        else { throw AuthFailure.userNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        // As for ID tokens, a revocation's whole second is refused (sessions started after it are dated later).
        guard record.createdAt.epochSeconds >= user.validSince,
              user.tokensValidAfter.map({ revoked in
                  emulatorRules ? record.createdAt >= revoked : record.createdAt.epochSeconds > revoked.epochSeconds
              }) ?? true
        else { throw AuthFailure.tokenExpired }
        let now = try await tokenInstant(for: user)
        // `lastRefreshAt` is written at most once a minute per user, in place: refreshes stay read-only on the hot
        // path and never write back anything else they read.
        if user.lastRefreshAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            let stamp = SignInStamp(projectID: project.id, tenantID: user.tenantID, localID: user.localID, at: now,
                                    signedIn: false)
            if let stamped = try? await store.stampSignIn(stamp) { user = stamped }
        }
        let session = SignInSession(signInProvider: record.signInProvider, authTime: record.authTime,
                                    secondFactor: record.secondFactor, secondFactorID: record.secondFactorID,
                                    extraClaims: record.extraClaims)
        let idToken = try issuer.mint(for: user, session: session, projectID: project.id, keys: project.keys, now: now)
        return SignInResult(user: user, tokens: Tokens(idToken: idToken, refreshToken: refreshToken,
                                                       expiresIn: Int(issuer.lifetime)), isNewUser: false)
    }

    // MARK: Helpers

    /// Hashes a new password under the project's parameters, off the async executor.
    public func hashPassword(_ password: String, project: ProjectContext) async throws -> String {
        let parameters = project.record.hashConfig
        return try await hashing.run { try PasswordHash.firebaseScrypt(password: password, parameters: parameters) }
    }


    /// When a new token for `user` may be dated: now, unless the account's sessions were revoked earlier in this
    /// same second — then the next second, waited for. ``checkSession(_:of:)`` refuses every token of a
    /// revocation's second (it cannot tell those minted before from those minted after), so this keeps the tokens
    /// of the request that revoked (a password change) valid; only such requests ever wait.
    func tokenInstant(for user: UserRecord, now given: Date? = nil) async throws -> Date {
        var now = given ?? clock.now()
        // A token is never dated before the account's `validSince` (seconds), which the same request may have moved
        // after `now` was read, across a second boundary: such a token would be born expired (`TOKEN_EXPIRED`).
        if now.epochSeconds < user.validSince { now = Date(timeIntervalSince1970: TimeInterval(user.validSince)) }
        guard !emulatorRules, let revoked = user.tokensValidAfter, now.epochSeconds <= revoked.epochSeconds,
              revoked.epochSeconds - now.epochSeconds < 2
        else { return now }
        try await clock.sleep(until: Date(timeIntervalSince1970: TimeInterval(revoked.epochSeconds + 1)))
        return max(clock.now(), Date(timeIntervalSince1970: TimeInterval(revoked.epochSeconds + 1)))
    }

    /// How often a change is re-applied to a fresh read when a concurrent write got there first.
    static let writeAttempts = 8

    /// The one way a use-case changes a stored user: applies `change` to `user` and writes the result only if
    /// nobody wrote the account since it was read (the store compares versions). On a conflict the account is read
    /// again and `change` re-applied to it, so a concurrent change is never undone; `change` must be quick and may
    /// run more than once (hash before, not inside), and it may throw to refuse what the fresh state no longer
    /// allows. With `session`, every fresh read is checked as ``authenticate(_:in:)`` checks it: a user disabled or
    /// revoked meanwhile stops the change. Gives up with `TOO_MANY_ATTEMPTS_TRY_LATER` after
    /// ``writeAttempts`` conflicts in a row.
    @discardableResult
    public func modifyUser(_ user: UserRecord, in project: ProjectContext, session: IDTokenClaims? = nil,
                           revokeRefreshTokens: Bool = false,
                           _ change: (inout UserRecord) throws -> Void) async throws -> UserRecord {
        var current = user
        for _ in 0..<Self.writeAttempts {
            if let session { try checkSession(session, of: current) }
            var changed = current
            try change(&changed)
            do {
                var saved = try await save(changed, project: project, revokeRefreshTokens: revokeRefreshTokens)
                if let revoked = saved.tokensValidAfter, revoked != current.tokensValidAfter {
                    saved = try await revocationStored(saved, revokedAt: revoked, project: project)
                }
                if let audit {
                    for event in SecurityEvent.changes(from: current, to: saved, projectID: project.id) { await audit.record(event) }
                }
                return saved
            } catch StoreError.conflict {
                guard let fresh = try await store.user(projectID: user.projectID, tenantID: user.tenantID,
                                                       localID: user.localID)
                else { throw AuthFailure.userNotFound }
                current = fresh
            }
        }
        throw AuthFailure.tooManyAttempts
    }

    /// A revocation is dated when its change was made but takes effect when it is stored. A token minted in between
    /// (a sign-in on another instance, hashing the old password) is dated after the revocation once a second has
    /// turned, and would outlive it. So when the clock has passed the revocation's second by the time it is stored,
    /// the revocation moves to now (and the refresh tokens made meanwhile go): every token minted before the change
    /// was stored is refused, however the seconds fall.
    private func revocationStored(_ saved: UserRecord, revokedAt: Date, project: ProjectContext) async throws -> UserRecord {
        var user = saved
        for _ in 0..<Self.writeAttempts {
            let now = clock.now()
            guard now.epochSeconds > (user.tokensValidAfter ?? revokedAt).epochSeconds else { return user }
            var moved = user
            moved.tokensValidAfter = now
            moved.validSince = max(moved.validSince, now.epochSeconds)
            do {
                return try await save(moved, project: project, revokeRefreshTokens: true)
            } catch StoreError.conflict {
                guard let fresh = try await store.user(projectID: user.projectID, tenantID: user.tenantID, localID: user.localID)
                else { throw AuthFailure.userNotFound }
                user = fresh
            }
        }
        throw AuthFailure.tooManyAttempts
    }

    /// Stores a new user on its own (an admin's), mapping a taken email to `EMAIL_EXISTS`; sign-ups store theirs
    /// with their first session (``completeSignIn(_:provider:in:now:_:extraClaims:)``).
    func insert(_ user: UserRecord, project: ProjectContext) async throws {
        do {
            try await store.insertUser(user, uniqueEmail: !project.settings.allowDuplicateEmails)
        } catch StoreError.emailExists {
            throw AuthFailure.emailExists
        } catch StoreError.identityLinked {
            throw AuthFailure.federatedUserIDAlreadyLinked
        }
    }

    /// Stores a changed user (version compared), mapping the store's refusals to Firebase's (`EMAIL_EXISTS`,
    /// `USER_NOT_FOUND`); ``StoreError/conflict`` is left to ``modifyUser(_:in:session:revokeRefreshTokens:_:)``.
    @discardableResult
    func save(_ user: UserRecord, project: ProjectContext, revokeRefreshTokens: Bool = false) async throws
        -> UserRecord {
        do {
            return try await store.updateUser(user, uniqueEmail: !project.settings.allowDuplicateEmails,
                                              revokeRefreshTokens: revokeRefreshTokens)
        } catch StoreError.emailExists {
            throw AuthFailure.emailExists
        } catch StoreError.notFound {
            throw AuthFailure.userNotFound
        } catch StoreError.identityLinked {
            throw AuthFailure.federatedUserIDAlreadyLinked
        }
    }
}

/// Firebase's default password rule: at least 6 characters.
public enum PasswordPolicy {
    public static let minimumLength = 6
    /// Longest accepted password, so that hashing cannot be abused with huge inputs.
    public static let maximumLength = 4096

    public static func check(_ password: String) throws {
        guard password.count >= minimumLength, password.utf8.count <= maximumLength else {
            throw AuthFailure.weakPassword
        }
    }
}
