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
/// let again = try await accounts.signInWithPassword(in: project, email: "ada@example.com", password: "s3cret!")
/// ```
public struct AccountService: Sendable {
    public let store: any IdentityStore
    public let clock: any HearthClock
    public let hashing: any BlockingWorkRunner
    public let issuer: IDTokenIssuer
    /// How long after an interactive sign-in sensitive changes (delete, email, password) are allowed.
    public var recentLoginWindow: TimeInterval

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

    // MARK: Sign-up

    /// `accounts:signUp`: email + password, or anonymous when both are absent. With `idToken` of an existing
    /// (typically anonymous) user, the credential is added to that user in place: the `localId` stays.
    public func signUp(in project: ProjectContext, email: String? = nil, password: String? = nil,
                       displayName: String? = nil, idToken: String? = nil) async throws -> SignInResult {
        let now = clock.now()
        var existing: UserRecord?
        if let idToken { existing = try await authenticate(idToken, in: project).user }
        let settings = project.settings

        switch (email, password) {
        case (nil, nil):
            if let existing {  // nothing to add: a fresh session for the same user
                return try await issue(for: existing, provider: existing.isAnonymous ? "anonymous" : "password",
                                       in: project, now: now, isNewUser: false)
            }
            guard settings.anonymousSignInEnabled else { throw AuthFailure.adminOnlyOperation }
            let user = UserRecord(projectID: project.id, localID: SecureRandom.localID(), displayName: displayName,
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            try await insert(user, project: project)
            return try await issue(for: user, provider: "anonymous", in: project, now: now, isNewUser: true)
        case (nil, _):
            throw AuthFailure.missingEmail
        case (_, nil):
            throw AuthFailure.missingPassword
        case (let email?, let password?):
            guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail }
            guard settings.passwordSignInEnabled else { throw AuthFailure.operationNotAllowed }
            try PasswordPolicy.check(password)
            let hash = try await hashPassword(password, project: project)
            if var user = existing {
                user.email = email
                user.emailVerified = false
                user.passwordHash = hash
                user.passwordUpdatedAt = now
                user.lastLoginAt = now
                user.lastRefreshAt = now
                if let displayName { user.displayName = displayName }
                try await save(user, project: project, revokeRefreshTokens: false)
                return try await issue(for: user, provider: "password", in: project, now: now, isNewUser: false)
            }
            let user = UserRecord(projectID: project.id, localID: SecureRandom.localID(), email: email,
                                  displayName: displayName, passwordHash: hash, passwordUpdatedAt: now,
                                  validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
            try await insert(user, project: project)
            return try await issue(for: user, provider: "password", in: project, now: now, isNewUser: true)
        }
    }

    // MARK: Sign-in

    /// `accounts:signInWithPassword`. An unknown email still costs one hash, so timing does not reveal accounts.
    /// Under email-enumeration protection both failures read `INVALID_LOGIN_CREDENTIALS`.
    public func signInWithPassword(in project: ProjectContext, email: String?, password: String?) async throws
        -> SignInResult
    {
        guard let email, !email.isEmpty else { throw AuthFailure.invalidEmail }
        guard let password, !password.isEmpty else { throw AuthFailure.missingPassword }
        guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail }
        let settings = project.settings
        guard settings.passwordSignInEnabled else { throw AuthFailure.passwordLoginDisabled }
        let protected = settings.enableImprovedEmailPrivacy

        let found = try await store.user(projectID: project.id, tenantID: nil, email: email)
        let stored = found?.passwordHash ?? project.dummyPasswordHash
        let bcrypt = self.bcrypt
        let matches = try await hashing.run {
            (try? PasswordHash.verify(password, against: stored, bcrypt: bcrypt)) ?? false
        }
        guard var user = found, user.passwordHash != nil else {
            throw protected ? AuthFailure.invalidLoginCredentials : AuthFailure.emailNotFound
        }
        guard matches else { throw protected ? AuthFailure.invalidLoginCredentials : AuthFailure.invalidPassword }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        // An imported hash (or older parameters) is replaced by the project's Firebase scrypt now that the
        // password is known, as Firebase does; the password itself is unchanged, so sessions stay valid.
        if let current = user.passwordHash, PasswordHash.needsRehash(current, for: project.record.hashConfig) {
            user.passwordHash = try await hashPassword(password, project: project)
        }
        let now = clock.now()
        user.lastLoginAt = now
        user.lastRefreshAt = now
        try await save(user, project: project, revokeRefreshTokens: false)
        return try await issue(for: user, provider: "password", in: project, now: now, isNewUser: false,
                               firstFactor: true)
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
        guard let user = try await store.user(projectID: project.id, tenantID: claims.firebase?.tenant,
                                              localID: claims.sub)
        else { throw AuthFailure.userNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        guard claims.iat >= user.validSince else { throw AuthFailure.tokenExpired }
        return (user, claims)
    }

    /// `accounts:lookup` with an ID token: the signed-in user's record.
    public func lookup(in project: ProjectContext, idToken: String?) async throws -> UserRecord {
        try await authenticate(idToken, in: project).user
    }

    /// `accounts:delete` with an ID token; needs a recent interactive sign-in.
    public func deleteAccount(in project: ProjectContext, idToken: String?) async throws {
        let (user, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims)
        try await store.deleteUser(projectID: project.id, tenantID: user.tenantID, localID: user.localID)
    }

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the token's `auth_time` is within the recent-login window.
    public func requireRecentLogin(_ claims: IDTokenClaims) throws {
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
        guard var user = try await store.user(projectID: project.id, tenantID: record.tenantID, localID: record.localID)
        else { throw AuthFailure.userNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        guard record.createdAt.epochSeconds >= user.validSince,
              user.tokensValidAfter.map({ record.createdAt >= $0 }) ?? true
        else { throw AuthFailure.tokenExpired }
        let now = clock.now()
        // `lastRefreshAt` is written at most once a minute per user: refreshes stay read-only on the hot path.
        if user.lastRefreshAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            user.lastRefreshAt = now
            try? await store.updateUser(user, uniqueEmail: false, revokeRefreshTokens: false)
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

    /// Mints an ID token and a new refresh token for an interactive sign-in. A `firstFactor` sign-in of a user
    /// with enrolled second factors gets no tokens: it throws ``SecondFactorRequired`` with a pending credential.
    public func issue(for user: UserRecord, provider: String, in project: ProjectContext, now: Date,
                      isNewUser: Bool, secondFactor: String? = nil, secondFactorID: String? = nil,
                      extraClaims: String? = nil, firstFactor: Bool = false) async throws -> SignInResult
    {
        if firstFactor, !user.enrollments.isEmpty {
            throw try await secondFactorRequired(for: user, provider: provider, extraClaims: extraClaims,
                                                 in: project, now: now)
        }
        let session = SignInSession(signInProvider: provider, authTime: now, secondFactor: secondFactor,
                                    secondFactorID: secondFactorID, extraClaims: extraClaims)
        let idToken = try issuer.mint(for: user, session: session, projectID: project.id, keys: project.keys, now: now)
        let refreshToken = SecureRandom.token()
        try await store.insertRefreshToken(RefreshTokenRecord(
            tokenDigest: storageDigest(refreshToken), projectID: project.id, tenantID: user.tenantID,
            localID: user.localID, signInProvider: provider, secondFactor: secondFactor,
            secondFactorID: secondFactorID, extraClaims: extraClaims, authTime: now, createdAt: now))
        return SignInResult(user: user, tokens: Tokens(idToken: idToken, refreshToken: refreshToken,
                                                       expiresIn: Int(issuer.lifetime)), isNewUser: isNewUser)
    }

    /// Stores a new user, mapping a taken email to `EMAIL_EXISTS`.
    func insert(_ user: UserRecord, project: ProjectContext) async throws {
        do {
            try await store.insertUser(user, uniqueEmail: !project.settings.allowDuplicateEmails)
        } catch StoreError.emailExists {
            throw AuthFailure.emailExists
        } catch StoreError.identityLinked {
            throw AuthFailure.federatedUserIDAlreadyLinked
        }
    }

    /// Stores a changed user, mapping the store's refusals to Firebase's (`EMAIL_EXISTS`, `USER_NOT_FOUND`).
    func save(_ user: UserRecord, project: ProjectContext, revokeRefreshTokens: Bool = false) async throws {
        do {
            try await store.updateUser(user, uniqueEmail: !project.settings.allowDuplicateEmails,
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
