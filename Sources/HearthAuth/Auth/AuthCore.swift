import Foundation
import HearthWire

/// The state one app's ``Auth`` handles share: the signed-in user, listeners, settings and the backend. Guarded by
/// one lock; listeners run on the main actor, never under it.
final class AuthCore: @unchecked Sendable {
    private let lock = NSLock()
    private var _backend: AuthBackend
    private var _user: User?
    private var _languageCode: String?
    private var _tenantID: String?
    private var stateListeners: [ObjectIdentifier: (handle: ListenerHandle, block: AuthStateDidChangeListenerBlock)] = [:]
    private var tokenListeners: [ObjectIdentifier: (handle: ListenerHandle, block: IDTokenDidChangeListenerBlock)] = [:]
    private var refreshTimer: Task<Void, Never>?
    private var _defaultUIDelegate: (any AuthURLOpener)?
    private var _settings: AuthSettings? = AuthSettings()
    private var _apnsToken: Data?
    private var _storage: any UserStorage
    private var _accessGroup: String?
    private var _shareAcrossDevices = false
    private var _customAuthDomain: String?
    /// Password policies fetched, by tenant id ("" for the project's); dropped when the server refuses a password.
    private var _passwordPolicies: [String: PasswordPolicy] = [:]
    let options: AuthOptions

    init(options: AuthOptions) {
        self.options = options
        _backend = AuthBackend(apiKey: options.apiKey, endpoints: options.endpoints, transport: options.transport)
        _storage = UserStorages.make(options.persistence, appName: options.appName, apiKey: options.apiKey)
        if let snapshot = try? Self.storedSnapshot(in: _storage) { _user = User(core: self, snapshot: snapshot) }
        if let user = _user { scheduleRefresh(user) }
    }

    var storage: any UserStorage { lock.locked { _storage } }
    var accessGroup: String? { lock.locked { _accessGroup } }

    private static func storedSnapshot(in storage: any UserStorage) throws -> UserSnapshot? {
        guard let data = try storage.load() else { return nil }
        return try? JSONDecoder().decode(UserSnapshot.self, from: data)
    }

    /// The user kept in `accessGroup`'s storage (this app's own with nil), without making it current.
    func storedUser(accessGroup: String?) throws -> User? {
        let storage = UserStorages.make(options.persistence, appName: options.appName, apiKey: options.apiKey,
                                        accessGroup: accessGroup)
        return try Self.storedSnapshot(in: storage).map { User(core: self, snapshot: $0) }
    }

    /// Keeps the signed-in user in storage that syncs to the user's other devices (iCloud Keychain), or not:
    /// the current user is written again where it now belongs.
    var shareAcrossDevices: Bool {
        get { lock.locked { _shareAcrossDevices } }
        set {
            let storage = lock.locked { () -> any UserStorage in
                _shareAcrossDevices = newValue
                _storage = UserStorages.make(options.persistence, appName: options.appName, apiKey: options.apiKey,
                                             accessGroup: _accessGroup, synchronizable: newValue)
                return _storage
            }
            if let user { if let data = try? JSONEncoder().encode(user.snapshot) { try? storage.save(data) } }
        }
    }

    var customAuthDomain: String? {
        get { lock.locked { _customAuthDomain } }
        set { lock.locked { _customAuthDomain = newValue } }
    }

    /// Moves to `accessGroup`'s storage; its user (or nobody) becomes the current user.
    func useAccessGroup(_ accessGroup: String?, auth: Auth) throws {
        let user = try storedUser(accessGroup: accessGroup)
        let storage = UserStorages.make(options.persistence, appName: options.appName, apiKey: options.apiKey,
                                        accessGroup: accessGroup, synchronizable: shareAcrossDevices)
        lock.locked {
            _storage = storage
            _accessGroup = accessGroup
        }
        setCurrentUser(user, auth: auth)
    }

    var backend: AuthBackend {
        get { lock.locked { _backend } }
        set { lock.locked { _backend = newValue } }
    }

    var user: User? { lock.locked { _user } }

    var languageCode: String? {
        get { lock.locked { _languageCode } }
        set { lock.locked { _languageCode = newValue } }
    }

    var defaultUIDelegate: (any AuthURLOpener)? {
        get { lock.locked { _defaultUIDelegate } }
        set { lock.locked { _defaultUIDelegate = newValue } }
    }

    var tenantID: String? {
        get { lock.locked { _tenantID } }
        set { lock.locked { _tenantID = newValue } }
    }

    var apnsToken: Data? {
        get { lock.locked { _apnsToken } }
        set { lock.locked { _apnsToken = newValue } }
    }

    var settings: AuthSettings? {
        get { lock.locked { _settings } }
        set { lock.locked { _settings = newValue } }
    }

    /// Calls the backend with the current language.
    func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request) async throws -> Reply {
        do {
            return try await backend.call(endpoint, request, locale: languageCode)
        } catch let error as NSError where error.code == AuthErrorCode.passwordDoesNotMeetRequirements.rawValue {
            lock.locked { _passwordPolicies = [:] }  // the policy changed since it was read: read it again next time
            throw error
        }
    }

    /// The password policy of `tenantID` (the project's for nil), fetched once and kept until a password is refused.
    func passwordPolicy(tenantID: String?) async throws -> PasswordPolicy {
        let key = tenantID ?? ""
        if let cached = lock.locked({ _passwordPolicies[key] }) { return cached }
        let reply = try await backend.get(Endpoints.passwordPolicy, query: tenantID.map { ["tenantId": $0] } ?? [:])
        let policy = PasswordPolicy(reply)
        lock.locked { _passwordPolicies[key] = policy }
        return policy
    }

    // MARK: the current user

    /// Makes `user` the current user (or signs out with nil): persists it, restarts the refresh timer, and tells
    /// the listeners — state listeners only when the user changed, token listeners always.
    func setCurrentUser(_ user: User?, auth: Auth) {
        let (previous, states, tokens) = lock.locked {
            let previous = _user
            _user = user
            return (previous, Array(stateListeners.values), Array(tokenListeners.values))
        }
        if let user { persist(user) } else { try? storage.remove() }
        if let user { scheduleRefresh(user) } else { lock.locked { refreshTimer?.cancel(); refreshTimer = nil } }
        let changed = previous?.uid != user?.uid || (previous == nil) != (user == nil)
        Task { @MainActor in
            if changed { for listener in states { listener.block(auth, user) } }
            for listener in tokens { listener.block(auth, user) }
            NotificationCenter.default.post(name: Auth.authStateDidChangeNotification, object: auth)
        }
    }

    /// The user's tokens or profile changed: save it, and tell token listeners if its token did.
    func userDidChange(_ user: User, tokenChanged: Bool) {
        guard lock.locked({ _user === user }) else { return }
        persist(user)
        guard tokenChanged else { return }
        scheduleRefresh(user)
        let tokens = lock.locked { Array(tokenListeners.values) }
        let auth = Auth(core: self)
        Task { @MainActor in
            for listener in tokens { listener.block(auth, user) }
            NotificationCenter.default.post(name: Auth.authStateDidChangeNotification, object: auth)
        }
    }

    private func persist(_ user: User) {
        if let data = try? JSONEncoder().encode(user.snapshot) { try? storage.save(data) }
    }

    /// Refreshes the ID token five minutes before it expires, for as long as the user is signed in.
    private func scheduleRefresh(_ user: User) {
        let delay = max(0, user.snapshot.expirationDate.timeIntervalSinceNow - User.refreshMargin)
        let timer = Task { [weak user, wait = options.waitBeforeRefresh] in
            await wait(delay)
            guard !Task.isCancelled, let user else { return }
            // Forced: the sleep ran on the monotonic clock and the expiry is wall-clock time, so an unforced call
            // could find a hair more than the margin left, keep the token and never wake again. A refresh by anyone
            // else since scheduling cancelled this timer and set a new one.
            _ = try? await user.getIDToken(forcingRefresh: true)
        }
        lock.locked {
            refreshTimer?.cancel()
            refreshTimer = timer
        }
    }

    /// The timer ``scheduleRefresh(_:)`` set last, for tests that wait for it.
    var scheduledRefresh: Task<Void, Never>? { lock.locked { refreshTimer } }

    // MARK: listeners

    enum ListenerKind { case state, token }

    /// Registers a listener and calls it at once with the current user, as FirebaseAuth does.
    func addListener(_ kind: ListenerKind, _ block: @escaping AuthStateDidChangeListenerBlock, auth: Auth) -> ListenerHandle {
        let handle = ListenerHandle()
        let user = lock.locked {
            switch kind {
            case .state: stateListeners[ObjectIdentifier(handle)] = (handle, block)
            case .token: tokenListeners[ObjectIdentifier(handle)] = (handle, block)
            }
            return _user
        }
        Task { @MainActor in block(auth, user) }
        return handle
    }

    func removeListener(_ handle: any NSObjectProtocol) {
        guard let handle = handle as? ListenerHandle else { return }
        lock.locked {
            _ = stateListeners.removeValue(forKey: ObjectIdentifier(handle))
            _ = tokenListeners.removeValue(forKey: ObjectIdentifier(handle))
        }
    }

    // MARK: one registry per app

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var registry: [String: AuthCore] = [:]
    nonisolated(unsafe) private static var configured: AuthOptions?

    static func configure(_ options: AuthOptions) {
        registryLock.locked {
            if options.appName == "[DEFAULT]" { configured = options }
            registry[options.appName] = nil
        }
    }

    /// The state of an app already made, by name (the default app once configured), without making one.
    static func existing(appName: String) -> AuthCore? {
        registryLock.locked {
            if let core = registry[appName] { return core }
            guard appName == "[DEFAULT]", let chosen = configured ?? AuthOptions.fromEnvironment() else { return nil }
            let core = AuthCore(options: chosen)
            registry[chosen.appName] = core
            return core
        }
    }

    static func shared(_ options: AuthOptions? = nil) -> AuthCore {
        registryLock.locked {
            let chosen = options ?? configured ?? AuthOptions.fromEnvironment()
            guard let chosen else {
                preconditionFailure("HearthAuth: no options. Call Auth.configure(AuthOptions(apiKey:projectID:endpoints:)) "
                                    + "first, or set HEARTH_API_KEY (and HEARTH_URL) in the environment.")
            }
            if let existing = registry[chosen.appName] { return existing }
            let core = AuthCore(options: chosen)
            registry[chosen.appName] = core
            return core
        }
    }
}

/// A listener registration; pass it back to remove the listener.
final class ListenerHandle: NSObject, @unchecked Sendable {}

/// Called on the main actor with the auth and its current user.
public typealias AuthStateDidChangeListenerBlock = @MainActor @Sendable (Auth, User?) -> Void
public typealias IDTokenDidChangeListenerBlock = @MainActor @Sendable (Auth, User?) -> Void
public typealias AuthStateDidChangeListenerHandle = any NSObjectProtocol
public typealias IDTokenDidChangeListenerHandle = any NSObjectProtocol

/// Runs `work` and hands its outcome to a FirebaseAuth-style completion on the main actor.
func deliver<T: Sendable>(_ completion: (@MainActor @Sendable (T?, (any Error)?) -> Void)?,
                          _ work: @escaping @Sendable () async throws -> T) {
    Task {
        do {
            let value = try await work()
            if let completion { await MainActor.run { completion(value, nil) } }
        } catch {
            if let completion { await MainActor.run { completion(nil, error) } }
        }
    }
}

/// The same for completions that only take an error.
func deliver(_ completion: (@MainActor @Sendable ((any Error)?) -> Void)?, _ work: @escaping @Sendable () async throws -> Void) {
    Task {
        do {
            try await work()
            if let completion { await MainActor.run { completion(nil) } }
        } catch {
            if let completion { await MainActor.run { completion(error) } }
        }
    }
}
