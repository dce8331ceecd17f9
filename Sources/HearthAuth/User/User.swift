import Foundation
import HearthWire

/// What is kept of a user: profile, providers, second factors and tokens. Saved by ``AuthPersistence``.
struct UserSnapshot: Codable, Sendable {
    var uid: String
    var email: String?
    var displayName: String?
    var photoURL: URL?
    var phoneNumber: String?
    var emailVerified = false
    var isAnonymous = false
    var providers: [ProviderInfo] = []
    var metadata = UserMetadata()
    var mfa: [MFAInfoWire] = []
    var passkeys: [PasskeyInfoWire] = []
    var tenantID: String?
    var refreshToken: String
    var accessToken: String
    var expirationDate: Date

    /// The account behind `idToken`, as `accounts:lookup` reports it.
    static func fetch(core: AuthCore, idToken: String, refreshToken: String, expiresIn: String?,
                      previous: UserSnapshot?) async throws -> UserSnapshot {
        let reply = try await core.call(Endpoints.lookup, LookupRequest(idToken: idToken))
        guard let account = reply.users?.first else {
            throw AuthErrorFactory.make(.userNotFound)
        }
        let claims = (try? AuthTokenResult(token: idToken))
        let expiration = claims?.expirationDate
            ?? Date().addingTimeInterval(TimeInterval(expiresIn.flatMap(Int.init) ?? 3600))
        var snapshot = UserSnapshot(uid: account.localId, refreshToken: refreshToken, accessToken: idToken,
                                    expirationDate: expiration)
        snapshot.apply(account)
        let signedInAnonymously = claims?.signInProvider == "anonymous" || previous?.isAnonymous == true
        snapshot.isAnonymous = signedInAnonymously && snapshot.providers.isEmpty && snapshot.email == nil
        return snapshot
    }

    mutating func apply(_ account: HearthWire.UserInfo) {
        uid = account.localId
        email = account.email
        displayName = account.displayName
        photoURL = account.photoUrl.flatMap(URL.init(string:))
        phoneNumber = account.phoneNumber
        emailVerified = account.emailVerified ?? false
        providers = (account.providerUserInfo ?? []).map(ProviderInfo.init)
        mfa = account.mfaInfo ?? []
        passkeys = account.passkeyInfo ?? []
        tenantID = account.tenantId
        func date(_ millis: String?) -> Date? { millis.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) } }
        metadata = UserMetadata(creationDate: date(account.createdAt), lastSignInDate: date(account.lastLoginAt))
    }
}

/// A signed-in user: FirebaseAuth's `User`.
///
/// ```swift
/// if let user = Auth.auth().currentUser {
///     print(user.uid, user.email ?? "-", user.providerData.map(\.providerID))
///     let token = try await user.getIDToken()   // for your own server's Authorization header
/// }
/// ```
public final class User: NSObject, UserInfo, NSSecureCoding, @unchecked Sendable {
    /// Tokens are refreshed when they have less than this many seconds left (FirebaseAuth: five minutes).
    static let refreshMargin: TimeInterval = 300

    let core: AuthCore
    let lock = NSLock()
    private var state: UserSnapshot
    private var refreshing: Task<String, any Error>?
    /// The name `passkeyRegistrationOptions(withName:)` was given, for the enrollment it starts (under `lock`).
    var pendingPasskeyName: String?

    init(core: AuthCore, snapshot: UserSnapshot) {
        self.core = core
        self.state = snapshot
    }

    public static let supportsSecureCoding = true

    /// The user's tokens and profile, and the app it belongs to.
    public func encode(with coder: NSCoder) {
        coder.encodeJSON(snapshot, "snapshot")
        coder.encodeString(core.options.appName, "appName")
    }

    /// A user archived by this app (or an app of the same name and API key, in an extension): it belongs to that
    /// app's ``Auth`` again, so ``Auth/updateCurrentUser(_:)`` accepts it. Nil when no such app is configured.
    public init?(coder: NSCoder) {
        guard let snapshot = coder.decodeJSON(UserSnapshot.self, "snapshot"),
              let appName = coder.decodeString("appName"), let core = AuthCore.existing(appName: appName)
        else { return nil }
        self.core = core
        self.state = snapshot
    }

    var snapshot: UserSnapshot { lock.locked { state } }

    /// The auth this user belongs to.
    public var auth: Auth { Auth(core: core) }

    // MARK: profile

    public var providerID: String { "firebase" }
    public var uid: String { snapshot.uid }
    public var email: String? { snapshot.email }
    public var displayName: String? { snapshot.displayName }
    public var photoURL: URL? { snapshot.photoURL }
    public var phoneNumber: String? { snapshot.phoneNumber }
    public var isAnonymous: Bool { snapshot.isAnonymous }
    public var isEmailVerified: Bool { snapshot.emailVerified }
    /// ``isAnonymous`` and ``isEmailVerified`` as methods, FirebaseAuth's Objective-C-era spellings.
    public func anonymous() -> Bool { isAnonymous }
    public func emailVerified() -> Bool { isEmailVerified }
    public var metadata: UserMetadata { snapshot.metadata }
    public var tenantID: String? { snapshot.tenantID }
    public var refreshToken: String? { snapshot.refreshToken }
    /// The user's profile at each linked provider.
    public var providerData: [any UserInfo] { snapshot.providers }
    /// The user's second factors and how to change them.
    public var multiFactor: MultiFactor { MultiFactor(user: self) }

    // MARK: tokens

    /// The ID token, refreshed first if it has less than five minutes left. Concurrent calls share one refresh.
    ///
    /// ```swift
    /// request.setValue("Bearer " + (try await user.getIDToken()), forHTTPHeaderField: "Authorization")
    /// ```
    public func getIDToken() async throws -> String { try await getIDToken(forcingRefresh: false) }

    public func getIDToken(forcingRefresh: Bool) async throws -> String {
        let (cached, task): (String?, Task<String, any Error>?) = lock.locked {
            if !forcingRefresh, state.expirationDate.timeIntervalSinceNow > Self.refreshMargin {
                return (state.accessToken, nil)
            }
            if let refreshing { return (nil, refreshing) }
            let refreshToken = state.refreshToken
            let task = Task { try await self.refresh(using: refreshToken) }
            refreshing = task
            return (nil, task)
        }
        if let cached { return cached }
        return try await task!.value
    }

    public func getIDToken(completion: (@MainActor @Sendable (String?, (any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.getIDToken() }
    }

    public func getIDTokenForcingRefresh(_ forceRefresh: Bool,
                                         completion: (@MainActor @Sendable (String?, (any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.getIDToken(forcingRefresh: forceRefresh) }
    }

    /// The ID token with its claims (custom claims, `signInProvider`, `authDate`).
    ///
    /// ```swift
    /// let result = try await user.getIDTokenResult(forcingRefresh: true)
    /// print(result.signInProvider, result.claims["role"] ?? "none")
    /// ```
    public func getIDTokenResult(forcingRefresh: Bool = false) async throws -> AuthTokenResult {
        try AuthTokenResult(token: try await getIDToken(forcingRefresh: forcingRefresh))
    }

    public func getIDTokenResult(forcingRefresh: Bool,
                                 completion: (@MainActor @Sendable (AuthTokenResult?, (any Error)?) -> Void)?) {
        deliver(completion) { try await self.getIDTokenResult(forcingRefresh: forcingRefresh) }
    }

    public func getIDTokenResult(completion: (@MainActor @Sendable (AuthTokenResult?, (any Error)?) -> Void)?) {
        getIDTokenResult(forcingRefresh: false, completion: completion)
    }

    /// ``getIDToken(forcingRefresh:)`` under the name FirebaseAuth's Swift extension gives it.
    public func idTokenForcingRefresh(_ forceRefresh: Bool) async throws -> String {
        try await getIDToken(forcingRefresh: forceRefresh)
    }

    private func refresh(using refreshToken: String) async throws -> String {
        defer { lock.locked { refreshing = nil } }
        do {
            let reply = try await core.call(Endpoints.token, TokenRequest(refreshToken: refreshToken))
            let (idToken, newRefresh) = (reply.idToken, reply.refreshToken)
            guard !idToken.isEmpty, !newRefresh.isEmpty else {
                throw AuthErrorFactory.make(.internalError, detail: "The token endpoint's answer had no tokens.")
            }
            let expiration = (try? AuthTokenResult(token: idToken))?.expirationDate
                ?? Date().addingTimeInterval(TimeInterval(Int(reply.expiresIn) ?? 3600))
            lock.locked {
                state.accessToken = idToken
                state.refreshToken = newRefresh
                state.expirationDate = expiration
            }
            core.userDidChange(self, tokenChanged: true)
            return idToken
        } catch {
            // The server will never refresh this user again: sign it out, as FirebaseAuth does.
            throw signingOutIfSessionEnded(error)
        }
    }

    /// A call made with this user's ID token. If the server says the session is over (revoked, disabled,
    /// deleted), the user is signed out, as FirebaseAuth does.
    func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request) async throws -> Reply {
        do { return try await core.call(endpoint, request) } catch { throw signingOutIfSessionEnded(error) }
    }

    /// Signs this user out if `error` says the server will not accept its tokens again; returns `error`.
    func signingOutIfSessionEnded(_ error: any Error) -> any Error {
        let error = error as NSError
        if Self.endsSession(error), core.user === self { core.setCurrentUser(nil, auth: auth) }
        return error
    }

    static func endsSession(_ error: NSError) -> Bool {
        [AuthErrorCode.userTokenExpired, .userDisabled, .userNotFound, .invalidUserToken]
            .map(\.rawValue).contains(error.code) && error.domain == AuthErrors.domain
    }

    /// Takes new tokens (and, with `reload`, the account as it is now) after a call that changed the user.
    func adopt(_ reply: SignInReply, reload: Bool = true) async throws {
        if let idToken = reply.idToken, let refreshToken = reply.refreshToken {
            let fresh = try await UserSnapshot.fetch(core: core, idToken: idToken, refreshToken: refreshToken,
                                                     expiresIn: reply.expiresIn, previous: snapshot)
            guard fresh.uid == uid else { throw AuthErrorFactory.make(.userMismatch) }
            lock.locked { state = fresh }
            core.userDidChange(self, tokenChanged: true)
        } else if reload {
            try await self.reload()
        }
    }

    /// Reads the account again from the server.
    ///
    /// ```swift
    /// try await user.reload(); print(user.isEmailVerified)
    /// ```
    public func reload() async throws {
        let token = try await getIDToken()
        let current = snapshot
        let fresh: UserSnapshot
        do {
            fresh = try await UserSnapshot.fetch(core: core, idToken: token, refreshToken: current.refreshToken,
                                                 expiresIn: nil, previous: current)
        } catch {
            throw signingOutIfSessionEnded(error)
        }
        lock.locked {
            let tokens = (state.accessToken, state.refreshToken, state.expirationDate)
            state = fresh
            (state.accessToken, state.refreshToken, state.expirationDate) = tokens
        }
        core.userDidChange(self, tokenChanged: false)
    }

    public func reload(completion: (@MainActor @Sendable ((any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.reload() }
    }
}
