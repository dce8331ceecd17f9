import Foundation

/// Email and password accounts: sign-up (anonymous too), linking a password to a signed-in user, sign-in.
///
/// ```swift
/// let created = try await accounts.passwords.signUp(in: project, email: "ada@example.com", password: "s3cret!")
/// ```
public struct PasswordAccounts: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore { context.store }
    public init(context: AccountContext) { self.context = context }

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
            guard settings[.anonymousSignIn] else { throw AuthFailure.adminOnlyOperation }
            // An anonymous account takes no profile at sign-up, as Firebase's: a name comes with an update.
            var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(),
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            user.anonymousSignUp = true
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
            guard settings[.passwordSignIn] else { throw AuthFailure.operationNotAllowed }
            try await checkNewPassword(password, in: project)
            let hash = try await hashPassword(password, project: project)
            // Stored lowercased, as Firebase stores addresses (sign-up, admin create and import alike).
            var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(), email: EmailAddress.normalized(email),
                                  displayName: displayName, passwordHash: hash, passwordUpdatedAt: now,
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            user.anonymousSignUp = true
            user.enrollments = try MFAEnrollmentInput.resolve(secondFactors, existing: [], now: now, ids: .generated)
            try ProfileLimits.check(user)
            // A taken address is refused before the pipeline's hooks see an account that cannot be stored (the
            // store's unique index still decides a race).
            if !settings[.allowDuplicateEmails],
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
        guard project.settings[.passwordSignIn] else { throw AuthFailure.operationNotAllowed }
        try await checkNewPassword(password, in: project)
        guard emulatorRules || !stored.hasEmailCredential else { throw AuthFailure.providerAlreadyLinked }
        if !project.settings[.allowDuplicateEmails],
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
        guard settings[.passwordSignIn] else { throw AuthFailure.passwordLoginDisabled }
        let protected = settings[.enableImprovedEmailPrivacy]

        let found = try await store.user(projectID: project.id, tenantID: project.tenantID, email: email)
        var stored = found?.passwordHash ?? project.dummyPasswordHash
        let bcrypt = self.bcrypt
        var matches = try await hashing.run { [stored] in
            (try? PasswordHash.verify(password, against: stored, bcrypt: bcrypt)) ?? false
        }
        let audit = audit
        func failed(_ reason: String, _ failure: AuthFailure) async -> AuthFailure {
            await audit?.record(SecurityEvent(kind: .signInFailed, projectID: project.id, localID: found?.localID,
                                        details: ["provider": "password", "reason": reason, "email": email]))
            return failure
        }
        guard var user = found else {
            throw await failed("unknown email", protected ? .invalidLoginCredentials : .emailNotFound)
        }
        if let migrated = try await migratedFromSource(user, email: email, password: password, in: project) {
            (user, stored, matches) = (migrated, migrated.passwordHash ?? stored, true)
        }
        // An account with the email but no password (an IdP's, or one an IdP took over) is a wrong password, as
        // Firebase answers: `createAuthUri` and `signUp` already say the email is registered. A disabled account
        // says so only to the one who knows its password (Firebase production's order; its emulator checks
        // `disabled` first).
        guard matches, user.passwordHash != nil else {
            throw await failed(user.passwordHash == nil ? "no password" : "wrong password",
                               protected ? .invalidLoginCredentials : .invalidPassword)
        }
        guard !user.disabled else { throw await failed("account disabled", .userDisabled) }
        // `forceUpgradeOnSignin`: a password the enforced policy no longer allows must be changed (by a reset)
        // before it signs in again; said only to the one who knows it.
        if let policy = project.settings.passwordPolicy, policy.enforcement == .enforce, policy.forceUpgradeOnSignin {
            let missing = policy.unmet(by: password)
            if !missing.isEmpty { throw await failed("password policy", .passwordDoesNotMeetRequirements(missing)) }
        }
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

    /// A lazy migration's one check: a user whose password is still only at the source, while the project's switch
    /// is on, is checked there; on success the password is hashed and stored (compare-and-set: not over a password
    /// set meanwhile) and the user is returned with it. `nil`: not such a user, or the source refused the password.
    private func migratedFromSource(_ user: UserRecord, email: String, password: String, in project: ProjectContext)
        async throws -> UserRecord? {
        guard user.passwordHash == nil, user.passwordAtSource == true, let source = context.passwordSource,
              let migration = project.record.settings.lazyPasswordMigration, migration.isActive(at: clock.now())
        else { return nil }
        var sourceTenant: String?
        if let tenant = project.tenantID {
            guard let mapped = migration.tenants?[tenant] else { return nil }
            sourceTenant = mapped
        }
        guard let sourceID = try await source.check(email: email, password: password, sourceTenantID: sourceTenant,
                                                    migration: migration),
              sourceID == user.localID
        else { return nil }
        let hash = try await hashPassword(password, project: project)
        let now = clock.now()
        let saved = try await context.modifyUser(user, in: project) { changed in
            guard changed.passwordHash == nil else { throw AuthFailure.invalidPassword }
            changed.passwordHash = hash
            changed.passwordUpdatedAt = now
            changed.passwordAtSource = nil
        }
        await audit?.record(SecurityEvent(kind: .passwordMigrated, projectID: project.id, localID: user.localID,
                                          details: ["source": migration.sourceURL, "email": email]))
        return saved
    }
}
