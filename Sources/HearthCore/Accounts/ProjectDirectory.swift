import Foundation

/// A project ready to serve: its stored record and its parsed signing keys, plus a dummy password hash so that
/// a sign-in with an unknown email costs exactly one hash (no timing oracle).
public struct ProjectContext: Sendable {
    public let record: ProjectRecord
    public let keys: KeyRing
    public let dummyPasswordHash: String
    /// The tenant a call acts in (its users, sign-in switches, second factors and test numbers); `nil`: the
    /// project's own users.
    public private(set) var tenant: TenantRecord?
    /// The sign-in settings in force: the project's, with a tenant's switches over them.
    public private(set) var settings: ProjectSettings

    public var id: String { record.id }
    public var tenantID: String? { tenant?.id }

    init(record: ProjectRecord, keys: KeyRing, dummyPasswordHash: String) {
        self.record = record
        self.keys = keys
        self.dummyPasswordHash = dummyPasswordHash
        self.settings = record.settings
    }

    /// The same project, acting in `tenant`: new users are made there, lookups stay there, and the tenant's
    /// switches decide what may sign in.
    ///
    /// ```swift
    /// let acme = project.scoped(to: try await store.tenant(projectID: project.id, id: "acme-x7k2p")!)
    /// try await accounts.passwords.signUp(in: acme, email: "ada@acme.example", password: "…")   // an Acme user
    /// ```
    public func scoped(to tenant: TenantRecord?) -> ProjectContext {
        var copy = self
        copy.tenant = tenant
        copy.settings = record.settings
        if let tenant {
            copy.settings.declared = .inForce(project: record.settings.declared, tenant: tenant.declared)
            copy.settings.mfa = tenant.mfa
            copy.settings.testPhoneNumbers = tenant.testPhoneNumbers.isEmpty ? nil : tenant.testPhoneNumbers
            copy.settings.identityProviders = tenant.identityProviders.isEmpty ? nil : tenant.identityProviders
            copy.settings.passwordPolicy = tenant.passwordPolicy ?? record.settings.passwordPolicy
            copy.settings.smsRegions = tenant.smsRegions ?? record.settings.smsRegions
            copy.settings.captcha = tenant.captcha ?? record.settings.captcha
            copy.settings.passkeys = tenant.passkeys ?? record.settings.passkeys
        }
        return copy
    }
}

extension ProjectContext {
    /// Whether email links may be sent to sign in and redeemed: a tenant's `enableEmailLinkSignin`; in the project,
    /// email sign-in on (`signIn.email.enabled`) without a required password (`passwordRequired: false`).
    public var emailLinkSignInAllowed: Bool {
        if tenant != nil { return settings[.emailLinkSignIn] }
        return settings[.passwordSignIn] && settings[.emailLinkSignIn]
    }

    /// Whether a phone number may be a first factor (`signIn.phoneNumber.enabled`; unset in older records: on). A
    /// tenant follows its project's switch.
    public var phoneSignInAllowed: Bool { settings[.phoneSignIn] }
}

/// Loads, creates and caches ``ProjectContext``s.
///
/// Contexts are cached for `cacheLifetime` seconds so that settings changed by another instance sharing the
/// same PostgreSQL are seen soon, while the hot path parses no keys.
public final class ProjectDirectory: @unchecked Sendable {
    private let store: any ConfigStore
    private let clock: any HearthClock
    private let cacheLifetime: TimeInterval
    private let defaults: @Sendable (String) -> ProjectSettings
    private let hashParameters: @Sendable () -> FirebaseScryptParameters
    private let lock = NSLock()
    private var cache: [String: (context: ProjectContext, loadedAt: Date)] = [:]

    /// - Parameters:
    ///   - defaults: settings for a project created on first use.
    ///   - hashParameters: Firebase-scrypt parameters for a new project (tests choose cheaper ones).
    public init(store: any ConfigStore, clock: any HearthClock, cacheLifetime: TimeInterval = 5,
                defaults: @escaping @Sendable (String) -> ProjectSettings,
                hashParameters: @escaping @Sendable () -> FirebaseScryptParameters = { .generate() }) {
        self.store = store
        self.clock = clock
        self.cacheLifetime = cacheLifetime
        self.defaults = defaults
        self.hashParameters = hashParameters
    }

    /// The project with this id, or `nil` if there is none.
    public func context(for id: String) async throws -> ProjectContext? {
        let now = clock.now()
        if let cached = lock.withLock({ cache[id] }), now.timeIntervalSince(cached.loadedAt) < cacheLifetime {
            return cached.context
        }
        guard let record = try await store.project(id: id) else { return nil }
        return try remember(record, now: now)
    }

    /// The project as stored now, past the cache: for a credential the cached record does not know yet (a service
    /// account created a moment ago by `hearth service-accounts create`).
    public func reloaded(_ id: String) async throws -> ProjectContext? {
        guard let record = try await store.project(id: id) else { return nil }
        return try remember(record, now: clock.now())
    }

    /// The project with this id, created (keys, hash parameters, API key) if it does not exist yet.
    /// With `signingKeys`, the new project shares those keys instead of generating its own.
    public func contextCreatingIfNeeded(for id: String, apiKey: String? = nil,
                                        signingKeys: [SigningKeyRecord]? = nil) async throws -> ProjectContext {
        if let existing = try await context(for: id) { return existing }
        let now = clock.now()
        var keys = signingKeys ?? []
        if keys.isEmpty { keys = [try await SigningKey.generate(now: now)] }
        let record = ProjectRecord(
            id: id, number: SecureRandom.digits(12), apiKeys: [apiKey ?? Self.newAPIKey()],
            signingKeys: keys, hashConfig: hashParameters(),
            settings: defaults(id), createdAt: now)
        let stored = try await store.createProjectIfAbsent(record)
        return try remember(stored, now: now)
    }

    /// Applies `change` to the project as stored now, never to a cached copy, and stores it compare-and-set: a write
    /// that lost a race (another request, instance or `hearth` command came first) reads again and applies `change`
    /// again, so racing changes all land. Returns the stored project; `change` leaving it as it was writes nothing.
    ///
    /// ```swift
    /// try await projects.modify("demo") { $0.settings[.anonymousSignIn] = false }
    /// ```
    @discardableResult
    public func modify(_ id: String, _ change: (inout ProjectRecord) throws -> Void) async throws -> ProjectContext {
        try remember(try await store.modifyProject(id, change), now: clock.now())
    }

    /// Forgets cached contexts (after a change made elsewhere).
    public func invalidate() { lock.withLock { cache.removeAll() } }

    private func remember(_ record: ProjectRecord, now: Date) throws -> ProjectContext {
        if let cached = lock.withLock({ cache[record.id] }), cached.context.record == record,
           cached.context.keys.nextChange.map({ now < $0 }) ?? true {
            lock.withLock { cache[record.id] = (cached.context, now) }
            return cached.context
        }
        let dummy = try PasswordHash.firebaseScrypt(password: SecureRandom.token(), parameters: record.hashConfig)
        let context = ProjectContext(record: record, keys: try KeyRing(record.signingKeys, now: now), dummyPasswordHash: dummy)
        lock.withLock {
            // Racing writes finish in any order: a newer version already cached is not replaced by an older one.
            if let cached = cache[record.id], cached.context.record.version > record.version { return }
            cache[record.id] = (context, now)
        }
        return context
    }

    /// An API key in Google's shape: `AIza` followed by 35 url-safe characters.
    public static func newAPIKey() -> String {
        "AIza" + SecureRandom.string(length: 35, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"))
    }
}
