import Foundation

/// What every account use case shares: the store, the clock, the hashing runner, the token issuer, the rules of the
/// mode, the audit trail and the hooks. The use cases are small types over it (``PasswordAccounts``, ``Sessions``,
/// ``AccountUpdates``, ``ActionCodes``, ``FederatedSignIn``, ``SecondFactors``, ``PhoneSignIn``, ``CustomTokens``,
/// ``Administration``, ``Importer``, ``ConsoleOperators``), reached from here; the steps they share (``UseCase``)
/// include the two pipelines every account and every sign-in pass through.
///
/// One value serves every project; each call names the ``ProjectContext`` it acts in. Clock, password-hashing
/// runner and token lifetimes are injected, so tests run on a ``ManualClock`` and the server hashes off its
/// event loops.
///
/// ```swift
/// let accounts = AccountContext(store: store, clock: SystemClock(), hashing: InlineWorkRunner())
/// let result = try await accounts.passwords.signUp(in: project, email: "ada@example.com", password: "s3cret!")
/// let again = try await accounts.passwords.signInWithPassword(in: project, email: "ada@example.com", password: "s3cret!").signedIn()
/// ```
public struct AccountContext: Sendable {
    public let store: any IdentityStore
    public let clock: any HearthClock
    public let hashing: any BlockingWorkRunner
    public let issuer: IDTokenIssuer
    /// How long after an interactive sign-in sensitive changes (delete, email, password) are allowed.
    public var recentLoginWindow: TimeInterval

    /// Firebase's emulator's rules where they are weaker than production's and the emulator's own tests depend on
    /// them (emulator mode only; docs/modes.md lists them): any identity provider's verified email may sign in to
    /// the account with that email (production: only providers authoritative for the address,
    /// ``FederatedAssertion/isTrustedForEmail``); a revocation counts from its whole second, so a token from that
    /// second stays valid (production refuses the second); `signUp` with an `idToken` may replace an email and
    /// password the account already has (production: `PROVIDER_ALREADY_LINKED`).
    public var emulatorRules = false

    /// Receives the security events of the use-cases (sign-ins, a second factor locked, …) for the audit trail.
    public var audit: (any AuditTrail)?

    /// Rules every new account and every completed sign-in passes through (see ``AccountHook``).
    public var hooks: [any AccountHook] = []
    /// Passwords users may not choose (`breachedPasswords` in the config); `nil`: no list.
    public var breachedPasswords: (any BreachedPasswordList)?

    /// Live sessions (refresh tokens) kept per user: a sign-in beyond this many revokes the user's oldest. `nil`
    /// keeps them all.
    public var sessionsPerUser: Int? = 100

    /// Checks imported bcrypt hashes at sign-in; without one, bcrypt users cannot sign in with a password.
    public var bcrypt: (any BcryptVerifier)?

    /// The verification SMS budgets every code spends from (``SMSBudget``); `nil`: unlimited (abuse limits off).
    public var smsBudget: SMSBudget?
    /// Checks passwords Hearth has no hash for at the source project of a lazy migration; `nil`: never.
    public var passwordSource: (any PasswordSource)?

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

    // MARK: Use cases

    public var passwords: PasswordAccounts { PasswordAccounts(context: self) }
    public var sessions: Sessions { Sessions(context: self) }
    public var updates: AccountUpdates { AccountUpdates(context: self) }
    public var actionCodes: ActionCodes { ActionCodes(context: self) }
    public var federated: FederatedSignIn { FederatedSignIn(context: self) }
    public var secondFactors: SecondFactors { SecondFactors(context: self) }
    public var passkeys: Passkeys { Passkeys(context: self) }
    public var phone: PhoneSignIn { PhoneSignIn(context: self) }
    public var customTokens: CustomTokens { CustomTokens(context: self) }
    public var administration: Administration { Administration(context: self) }
    public var importer: Importer { Importer(context: self) }
    public var console: ConsoleOperators { ConsoleOperators(context: self) }
    public var tenants: Tenants { Tenants(context: self) }
    public var operatorTools: OperatorTools { OperatorTools(context: self) }
}

/// A use case over the shared ``AccountContext``: what every use case reads (store, clock, hashing, issuer, rules)
/// and the steps they share (authenticate a token, change a user compare-and-set, the create and sign-in pipelines)
/// come from here, so each use case type holds only its own operations.
public protocol UseCase: Sendable {
    var context: AccountContext { get }
}

extension UseCase {
    public var store: any IdentityStore { context.store }
    public var clock: any HearthClock { context.clock }
    public var hashing: any BlockingWorkRunner { context.hashing }
    public var issuer: IDTokenIssuer { context.issuer }
    var recentLoginWindow: TimeInterval { context.recentLoginWindow }
    var emulatorRules: Bool { context.emulatorRules }
    var audit: (any AuditTrail)? { context.audit }
    var hooks: [any AccountHook] { context.hooks }
    var sessionsPerUser: Int? { context.sessionsPerUser }
    var bcrypt: (any BcryptVerifier)? { context.bcrypt }

    public typealias Tokens = AccountContext.Tokens
    public typealias SignInResult = AccountContext.SignInResult
    public typealias SignInOutcome = AccountContext.SignInOutcome
}

/// The context is a use case of its own: the shared steps, for the server's guards and for tools.
extension AccountContext: UseCase {
    public var context: AccountContext { self }
}

/// The steps every use case shares.
extension UseCase {
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
        // A token acts only in its own scope: the server puts a call that names no tenant in its token's tenant
        // before any rule runs (so the tenant's settings apply), and one left in another scope is refused here.
        guard claims.firebase?.tenant == project.tenantID else { throw AuthFailure.tenantIDMismatch }
        guard let user = try await store.user(projectID: project.id, tenantID: project.tenantID,
                                              localID: claims.sub)
        else { throw AuthFailure.userNotFound }
        try checkSession(claims, of: user)
        return (user, claims)
    }

    /// The checks an ID token passes against its (freshly read) user: enabled, and issued after the last
    /// revocation. A revocation counts from its exact instant: a token from the same second is refused, since it
    /// may predate it (tokens minted after a revocation wait for the next second, see ``tokenInstant(for:now:)``).
    func checkSession(_ claims: IDTokenClaims, of user: UserRecord) throws {
        guard !user.disabled else { throw AuthFailure.userDisabled }
        guard claims.iat >= user.validSince else { throw AuthFailure.tokenExpired }
        if !emulatorRules, let revoked = user.tokensValidAfter, claims.iat <= revoked.epochSeconds {
            throw AuthFailure.tokenExpired
        }
    }

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the token's `auth_time` is within the recent-login window.
    /// `change` names what is being done: every caller is one of ``SensitiveChange``'s cases.
    public func requireRecentLogin(_ claims: IDTokenClaims, for change: SensitiveChange) throws {
        let age = clock.now().timeIntervalSince1970 - TimeInterval(claims.authTime)
        guard age <= recentLoginWindow else { throw AuthFailure.credentialTooOldLoginAgain }
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
    static var writeAttempts: Int { 8 }

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
            try await store.insertUser(user, uniqueEmail: !project.settings[.allowDuplicateEmails])
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
            return try await store.updateUser(user, uniqueEmail: !project.settings[.allowDuplicateEmails],
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

extension UseCase {
    /// The rules a password a user chooses must meet (sign-up, linking, a change, a reset): Firebase's 6-character
    /// minimum, then the project's or tenant's enforced policy (`PASSWORD_DOES_NOT_MEET_REQUIREMENTS` with what is
    /// missing), then the breached-password list when one is configured. An administrator's password meets the
    /// minimum only, as Identity Platform's Admin SDK calls are not held to the policy.
    func checkNewPassword(_ password: String, in project: ProjectContext) async throws {
        try PasswordPolicy.check(password)
        if let policy = project.settings.passwordPolicy, policy.enforcement == .enforce {
            let missing = policy.unmet(by: password)
            if !missing.isEmpty { throw AuthFailure.passwordDoesNotMeetRequirements(missing) }
        }
        if let breached = context.breachedPasswords, try await breached.contains(password) {
            throw AuthFailure.passwordBreached
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
