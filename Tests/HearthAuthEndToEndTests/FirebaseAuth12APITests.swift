import Foundation
import HearthAuth
import HearthTestSupport
import Testing

/// What FirebaseAuth 12 added that apps call, against a live Hearth: the async sequences of sign-ins and token
/// changes, the notification, federated sign-in in one call, the provider-id forms, and the small members.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil, "needs authlib and aiosmtpd: \(LiveHearth.unavailableReason ?? "")"))
struct FirebaseAuth12APITests {
    /// The values a sequence has delivered so far, for the test to wait on (no fixed sleeps: a busy machine may
    /// take longer to start listening).
    actor Seen {
        private(set) var values: [String?] = []
        func append(_ value: String?) { values.append(value) }

        /// Waits until `count` values have arrived (or gives up; then the expectations report what did).
        func wait(for count: Int) async {
            await eventually { values.count >= count }
        }
    }

    /// Records the sequence's values into `seen` until it has `count`.
    static func collect(_ sequence: some AsyncSequence<User?, Never> & Sendable, _ count: Int, into seen: Seen) async {
        for await user in sequence {
            await seen.append(user?.uid)
            if await seen.values.count == count { break }
        }
    }

    @Test func authStateChangesAndIDTokenChangesAsSequences() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let (states, tokens) = (Seen(), Seen())
            let listeners = [Task { await Self.collect(auth.authStateChanges, 3, into: states) },
                             Task { await Self.collect(auth.idTokenChanges, 3, into: tokens) }]
            defer { listeners.forEach { $0.cancel() } }
            // Both listening: each first delivers the current state, "signed out".
            await states.wait(for: 1)
            await tokens.wait(for: 1)
            let notified = NotificationWaiter(name: Auth.authStateDidChangeNotification)
            let user = try await auth.createUser(withEmail: "seq@example.com", password: "first-pass").user
            _ = try await user.getIDToken(forcingRefresh: true)  // a token change, not a state change
            await tokens.wait(for: 3)
            await states.wait(for: 2)
            try auth.signOut()
            await states.wait(for: 3)
            #expect(await states.values == [nil, user.uid, nil], "signed out, signed in, signed out")
            #expect(await tokens.values == [nil, user.uid, user.uid], "the refresh is a token change")
            #expect(notified.count >= 2, "posted for the sign-in and the refresh")
            #expect(auth.getUserID() == nil)
        }
    }

    @Test func smallMembersAppsCall() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            try await auth.initializeRecaptchaConfig()
            let anonymous = try await auth.signInAnonymously()
            let user = anonymous.user
            #expect(auth.getUserID() == user.uid && user.anonymous() && !user.emailVerified())
            #expect(anonymous.additionalUserInfo?.providerID == "" && anonymous.additionalUserInfo?.newUser() == true,
                    "FirebaseAuth's non-optional providerID: empty for an anonymous sign-in")
            let token: String? = try await withCheckedThrowingContinuation { continuation in
                auth.getToken(forcingRefresh: false) { token, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: token) }
                }
            }
            #expect(token?.split(separator: ".").count == 3, "the current user's ID token, for other Firebase SDKs")
            #expect(try await user.idTokenForcingRefresh(false).split(separator: ".").count == 3)
            #expect(AuthErrorCode.userNotFound.code == .userNotFound)
            #expect(AuthProviderID.custom("oidc.acme").rawValue == "oidc.acme" && AuthProviderID.google.rawValue == "google.com")
            #expect(OAuthProvider.provider(providerID: .gitHub, auth: auth).providerID == "github.com")
            let credential = OAuthProvider.credential(providerID: .custom("oidc.acme"), accessToken: "at")
            #expect(credential.provider == "oidc.acme" && credential.accessToken == "at")
            auth.customAuthDomain = "auth.example.com"
            #expect(auth.endpoints.authDomain?.absoluteString == "https://auth.example.com")
            let settings = try #require(auth.settings)
            settings.appVerificationDisabledForTesting = true
            #expect(settings.isAppVerificationDisabledForTesting)
        }
    }
}

extension FirebaseAuth12APITests {
    /// NSSecureCoding, as FirebaseAuth has it: a signed-in result archived with `NSKeyedArchiver` (secure coding
    /// required) comes back whole, and the archived user can become the current user again and call the server.
    @Test func resultsUsersAndCredentialsArchiveWithSecureCoding() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let result = try await auth.createUser(withEmail: "archive@example.com", password: "first-pass")
            let data = try NSKeyedArchiver.archivedData(withRootObject: result, requiringSecureCoding: true)
            let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: AuthDataResult.self, from: data))
            #expect(back.user.uid == result.user.uid && back.user.email == "archive@example.com")
            #expect(back.additionalUserInfo?.isNewUser == true && back.additionalUserInfo?.providerID == "password")
            try auth.signOut()
            try await auth.updateCurrentUser(back.user)
            #expect(auth.currentUser?.uid == result.user.uid)
            try await back.user.reload()  // its tokens work: it talks to the server as the original did

            let token = try await back.user.getIDTokenResult()
            let tokenData = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
            #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: AuthTokenResult.self, from: tokenData)?.token == token.token)

            let credential = OAuthProvider.credential(providerID: .custom("oidc.acme"), idToken: "id.token.jwt", accessToken: "at")
            let credentialData = try NSKeyedArchiver.archivedData(withRootObject: credential, requiringSecureCoding: true)
            let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: OAuthCredential.self, from: credentialData))
            #expect(restored.provider == "oidc.acme" && restored.idToken == "id.token.jwt" && restored.accessToken == "at")
            let copy = try #require(auth.settings?.copy() as? AuthSettings)
            #expect(copy !== auth.settings)
        }
    }
}

/// Counts posts of one notification.
final class NotificationWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var posts = 0
    private var observer: (any NSObjectProtocol)?

    init(name: Notification.Name) {
        observer = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.posts += 1
            self.lock.unlock()
        }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return posts
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }
}
