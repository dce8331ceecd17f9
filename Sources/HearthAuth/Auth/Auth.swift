import Foundation
import HearthWire

/// The entry point: FirebaseAuth's `Auth`, against Hearth or Google's servers.
///
/// ```swift
/// Auth.configure(AuthOptions(apiKey: "my-key", projectID: "my-app"))
/// Auth.auth().useEmulator(withHost: "127.0.0.1", port: 9099)   // or endpoints: .hearth(url)
/// let result = try await Auth.auth().signIn(withEmail: "ada@example.com", password: "s3cret!")
/// print(result.user.uid)
/// ```
///
/// Every `Auth` of one app shares its state: `Auth()` and `Auth.auth()` see the same user and listeners.
public final class Auth: @unchecked Sendable {
    let core: AuthCore
    private static let defaultLock = NSLock()
    nonisolated(unsafe) private static var defaultAuth: Auth?

    init(core: AuthCore) { self.core = core }

    /// The default app's auth, as `Auth.auth()` in FirebaseAuth (options from ``configure(_:)`` or the environment).
    public convenience init() { self.init(core: AuthCore.shared()) }

    /// The default app's auth.
    public class func auth() -> Auth {
        defaultLock.locked {
            if let existing = defaultAuth { return existing }
            let created = Auth(core: AuthCore.shared())
            defaultAuth = created
            return created
        }
    }

    /// The auth of one configuration (FirebaseAuth's `Auth.auth(app:)`); the same options give the same state.
    public class func auth(options: AuthOptions) -> Auth { Auth(core: AuthCore.shared(options)) }

    /// Sets the default app's options (FirebaseApp.configure). Call once, before ``auth()``.
    public class func configure(_ options: AuthOptions) {
        AuthCore.configure(options)
        defaultLock.locked { defaultAuth = nil }
    }

    /// The options this auth was made with.
    public var options: AuthOptions { core.options }

    /// The ``FirebaseApp`` this auth belongs to, when it was made from one (``FirebaseApp/configure()``).
    public var app: FirebaseApp? { FirebaseApp.app(name: core.options.appName) }

    /// The host of the web sign-in handler (Firebase's custom auth domain): `auth.example.com` serves
    /// `https://auth.example.com/__/auth/handler`, for example a Hearth behind your own domain.
    ///
    /// ```swift
    /// Auth.auth().customAuthDomain = "auth.example.com"
    /// ```
    public var customAuthDomain: String? {
        get { core.customAuthDomain }
        set {
            core.customAuthDomain = newValue
            guard let newValue, !newValue.isEmpty else { return }
            let url = newValue.contains("://") ? URL(string: newValue) : URL(string: "https://" + newValue)
            if let url { core.backend.endpoints.authDomain = url }
        }
    }

    /// Keeps the signed-in user in iCloud Keychain, so the user's other devices share it (Apple platforms; on
    /// Linux storage is a local file either way).
    public var shareAuthStateAcrossDevices: Bool {
        get { core.shareAcrossDevices }
        set { core.shareAcrossDevices = newValue }
    }

    /// FirebaseAuth loads the project's reCAPTCHA Enterprise configuration here. Hearth asks for no reCAPTCHA, so
    /// there is nothing to load: it returns at once.
    public func initializeRecaptchaConfig() async throws {}

    public func initializeRecaptchaConfig(completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        deliver(completion) { try await self.initializeRecaptchaConfig() }
    }

    /// The signed-in user, or nil. Restored from storage at start.
    public var currentUser: User! { core.user }

    /// Sent as `X-Firebase-Locale`: the language of emails and SMS texts the server sends.
    public var languageCode: String? {
        get { core.languageCode }
        set { core.languageCode = newValue }
    }

    /// The Identity Platform tenant this `Auth` signs users in to, as FirebaseAuth's: every call names it, users
    /// are made and found in it, and its tokens carry it. `nil`: the project's own users.
    ///
    /// ```swift
    /// Auth.auth().tenantID = "acme-x7k2p"
    /// let result = try await Auth.auth().signIn(withEmail: "ada@acme.example", password: "…")
    /// result.user.tenantID   // "acme-x7k2p"
    /// ```
    public var tenantID: String? {
        get { core.tenantID }
        set { core.tenantID = newValue }
    }

    /// FirebaseAuth's settings, shared by the app's `Auth` handles.
    ///
    /// ```swift
    /// Auth.auth().settings?.isAppVerificationDisabledForTesting = true   // test setups written for Firebase
    /// ```
    public var settings: AuthSettings? {
        get { core.settings }
        set { core.settings = newValue }
    }

    /// Uses the device's preferred language for ``languageCode``.
    ///
    /// ```swift
    /// Auth.auth().useAppLanguage()
    /// ```
    public func useAppLanguage() {
        languageCode = Locale.preferredLanguages.first
    }

    /// Points this app at a Hearth server (or Firebase's emulator) on `host:port`.
    ///
    /// ```swift
    /// Auth.auth().useEmulator(withHost: "localhost", port: 9099)
    /// ```
    public func useEmulator(withHost host: String, port: Int) {
        core.backend.endpoints = .emulator(host: host, port: port)
    }

    /// The endpoints calls go to.
    public var endpoints: AuthEndpoints { core.backend.endpoints }

    // MARK: listeners

    /// Called now with the current user and then whenever a user signs in or out.
    ///
    /// ```swift
    /// handle = Auth.auth().addStateDidChangeListener { auth, user in print(user?.uid ?? "signed out") }
    /// ```
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping AuthStateDidChangeListenerBlock)
        -> AuthStateDidChangeListenerHandle {
        core.addListener(.state, listener, auth: self)
    }

    public func removeStateDidChangeListener(_ listenerHandle: AuthStateDidChangeListenerHandle) {
        core.removeListener(listenerHandle)
    }

    /// Called now, on sign-in and sign-out, and whenever the ID token changes (refresh, claims, linking).
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping IDTokenDidChangeListenerBlock)
        -> IDTokenDidChangeListenerHandle {
        core.addListener(.token, listener, auth: self)
    }

    public func removeIDTokenDidChangeListener(_ listenerHandle: IDTokenDidChangeListenerHandle) {
        core.removeListener(listenerHandle)
    }

    // MARK: sign-out

    /// Signs the current user out here (the refresh token stays valid on the server until revoked).
    ///
    /// ```swift
    /// do { try Auth.auth().signOut() } catch { … }
    /// ```
    public func signOut() throws {
        core.setCurrentUser(nil, auth: self)
    }

    /// The group whose stored user this app shares, or nil for its own (see ``useUserAccessGroup(_:)``).
    public var userAccessGroup: String? { core.accessGroup }

    /// Shares the signed-in user with the other apps of `accessGroup` that use the same API key: a Keychain access
    /// group on Apple platforms (the app needs the Keychain-sharing entitlement), a `groups/<name>` folder beside
    /// the user's file on Linux. The user stored there, or nobody, becomes the current user; nil goes back to the
    /// app's own storage.
    ///
    /// ```swift
    /// try Auth.auth().useUserAccessGroup("TEAMID.com.example.shared")
    /// ```
    public func useUserAccessGroup(_ accessGroup: String?) throws {
        try core.useAccessGroup(accessGroup, auth: self)
    }

    /// The user stored in `accessGroup` (nil: this app's own storage), without signing it in here.
    ///
    /// ```swift
    /// let shared = try Auth.auth().getStoredUser(forAccessGroup: "TEAMID.com.example.shared")
    /// ```
    public func getStoredUser(forAccessGroup accessGroup: String?) throws -> User? {
        try core.storedUser(accessGroup: accessGroup)
    }

    /// Makes `user` (of this app) the current user.
    ///
    /// ```swift
    /// try await Auth.auth().updateCurrentUser(previouslySignedInUser)
    /// ```
    public func updateCurrentUser(_ user: User) async throws {
        guard user.core === core else { throw AuthErrorFactory.make(.invalidUserToken, detail: "The user belongs to another app.") }
        core.setCurrentUser(user, auth: self)
    }

    public func updateCurrentUser(_ user: User?, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) {
            guard let user else { throw AuthErrorFactory.make(.nullUser, detail: "updateCurrentUser needs a user.") }
            try await self.updateCurrentUser(user)
        }
    }

    // MARK: for other Firebase SDKs

    /// The current user's ID token (refreshed when due, or when forced), or nil when nobody is signed in: what
    /// other Firebase SDKs ask FirebaseAuth for.
    public func getToken(forcingRefresh forceRefresh: Bool,
                         completion: @escaping @MainActor @Sendable (String?, (any Error)?) -> Void) {
        guard let user = currentUser else {
            Task { @MainActor in completion(nil, nil) }
            return
        }
        deliver(completion) { try await user.getIDToken(forcingRefresh: forceRefresh) }
    }

    /// The current user's uid, or nil.
    public func getUserID() -> String? { currentUser?.uid }
}

/// FirebaseAuth's `AuthSettings`. Firebase wants proof that a phone-number request comes from the real app
/// (APNs or reCAPTCHA) unless tests turn that off; Hearth asks for no such proof, so the flag changes nothing here.
/// It is kept so that test setups written for Firebase compile and read back what they set.
public final class AuthSettings: NSObject, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var disabled = false

    override public init() {}

    /// A settings object with the same flag.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = AuthSettings()
        copy.isAppVerificationDisabledForTesting = isAppVerificationDisabledForTesting
        return copy
    }

    /// Firebase: skip app verification for fictional test numbers. Hearth: never needed.
    public var isAppVerificationDisabledForTesting: Bool {
        get { lock.locked { disabled } }
        set { lock.locked { disabled = newValue } }
    }

    /// The same flag under its Objective-C property name.
    public var appVerificationDisabledForTesting: Bool {
        get { isAppVerificationDisabledForTesting }
        set { isAppVerificationDisabledForTesting = newValue }
    }
}
