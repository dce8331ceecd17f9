import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthAuth
import HearthCore
import HearthMail
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird

/// A production-mode Hearth on a loopback port and an SQLite file, with what the SDK's flows need: identity
/// providers served by the authlib/oauthlib test IdP, mail to a real SMTP sink (aiosmtpd), SMS captured by an
/// in-process "carrier", second factors enabled. Each test gets its own server and its own SDK app.
struct LiveHearth: Sendable {
    static let apiKey = "sdk-test-key"
    static let projectID = "sdk-project"
    static let clientID = "hearth-client"
    static let gameBundleID = "com.example.game"
    static let passkeyOrigin = "https://localhost"

    let base: String
    let idp: TestIdentityProvider
    let mail: SMTPSink
    let sms: SMSInbox
    /// A service-account key file registered on the project (custom tokens, HearthAdmin).
    let keyFile: Data

    static var unavailableReason: String? {
        TestIdentityProvider.unavailableReason() ?? SMTPSink.unavailableReason()
    }

    static func run(_ body: @escaping @Sendable (LiveHearth) async throws -> Void) async throws {
        let idp = try await TestIdentityProvider.start()
        let mail = try await SMTPSink.start()
        let sms = SMSInbox()
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 12) })
        var project = try await directory.contextCreatingIfNeeded(for: projectID, apiKey: apiKey).record
        let key = try ServiceAccountKey.generate(name: "sdk-backend", projectID: projectID, now: Date())
        project.serviceAccounts.append(key.record)
        // Passkeys for https://localhost, where the software authenticator says it runs.
        project.settings.passkeys = PasskeyConfig(rpID: "localhost", expectedOrigins: [passkeyOrigin])
        try await store.updateProject(project)
        for tenant in ["tenant-acme", "tenant-globex"] {
            try await store.insertTenant(TenantRecord(projectID: projectID, id: tenant, allowPasswordSignup: true,
                                                      enableEmailLinkSignin: true))
        }
        // A tenant with an enforced password policy (the JS SDK's integration test's: 8-24 characters, each kind).
        var strict = TenantRecord(projectID: projectID, id: "tenant-strict", allowPasswordSignup: true)
        var policy = PasswordPolicyConfig(enforcement: .enforce)
        (policy.minLength, policy.maxLength) = (8, 24)
        (policy.requireLowercase, policy.requireUppercase, policy.requireNumeric, policy.requireNonAlphanumeric) = (true, true, true, true)
        strict.passwordPolicy = policy
        try await store.insertTenant(strict)
        let port = try freePort()
        var configuration = ServerConfiguration(port: port, projectID: projectID, emailEnumerationProtection: false,
                                                initialAPIKey: apiKey)
        configuration.email = EmailConfiguration(smtp: .init(host: "127.0.0.1", port: mail.port, security: .none, timeout: 30),
                                                 from: "noreply@hearth.test", appName: "SDK Test")
        configuration.mfa = MFASettings(state: .enabled, providers: [.phoneSMS, .totp])
        var google = IdentityProviderConfig(clientId: clientID, issuer: idp.issuer)
        google.scopes = ["openid", "email"]
        var facebook = IdentityProviderConfig(clientId: "fb-app")
        facebook.userInfoUri = idp.issuer + "/graph/me"
        var twitter = IdentityProviderConfig(clientId: TestIdentityProvider.consumerKey,
                                             clientSecret: TestIdentityProvider.consumerSecret)
        twitter.verifyCredentialsUri = idp.issuer + "/1.1/account/verify_credentials.json?include_email=true&skip_status=true"
        twitter.userInfoUri = idp.issuer + "/x/users/me"
        twitter.requestTokenUri = idp.issuer + "/oauth/request_token"
        twitter.authorizationUri = idp.issuer + "/oauth/authenticate"
        twitter.tokenUri = idp.issuer + "/oauth/access_token"
        // Sign in with Apple with the app's key, against the test IdP's Apple-like endpoints.
        var apple = IdentityProviderConfig(clientId: clientID, issuer: idp.issuer)
        (apple.teamId, apple.keyId, apple.privateKey) = try await idp.appleKey()
        apple.tokenUri = idp.issuer + "/apple/token"
        apple.revokeUri = idp.issuer + "/apple/revoke"
        configuration.identityProviders = [
            "google.com": google, "facebook.com": facebook, "twitter.com": twitter, "apple.com": apple,
            "oidc.acme": IdentityProviderConfig(clientId: clientID, clientSecret: TestIdentityProvider.clientSecret,
                                                issuer: idp.issuer),
            // Game Center: the app's bundle id, and the test IdP standing in for static.gc.apple.com.
            "gc.apple.com": IdentityProviderConfig(clientId: gameBundleID, issuer: idp.issuer + "/gc/public-key/"),
        ]
        let hashing = ThreadPoolWorkRunner(threads: 2)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: hashing,
                                             hashParameters: { .generate(memoryCost: 12) },
                                             mailPollInterval: .milliseconds(100), sms: sms)
        let server = Task { try await app.runService() }
        let live = LiveHearth(base: "http://127.0.0.1:\(port)", idp: idp, mail: mail, sms: sms, keyFile: key.keyFileJSON)
        var failure: (any Error)?
        do {
            try await Self.waitUntilListening(live.base)
            try await body(live)
        } catch {
            failure = error
        }
        server.cancel()
        _ = await server.result
        try? await hashing.shutdown()
        try? await store.close()
        mail.stop()
        idp.stop()
        if let failure { throw failure }
    }

    static func waitUntilListening(_ base: String) async throws {
        let listening = await eventually { (try? await URLSession.shared.data(from: URL(string: base + "/__/auth/action")!)) != nil }
        if !listening { throw TestFailure("Hearth did not start at \(base)") }
    }

    var options: AuthOptions {
        AuthOptions(apiKey: Self.apiKey, projectID: Self.projectID, endpoints: .hearth(URL(string: base)!),
                    appName: "test-\(UUID().uuidString)", persistence: .memory)
    }

    /// A fresh SDK app talking to this server.
    func auth() -> Auth { Auth.auth(options: options) }

    /// A Google-style ID token from the test IdP.
    func googleIDToken(sub: String, email: String, name: String = "Test User") async throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        // A jti makes every token unique, as Google's are: Hearth refuses an ID token it has already seen.
        return try await idp.mint(["aud": Self.clientID, "iat": now, "exp": now + 600, "sub": sub, "email": email,
                                   "email_verified": true, "name": name, "jti": UUID().uuidString])
    }

    /// The `oobCode` of the `nth` email to `address` (1-based), waiting for it to arrive over SMTP.
    func oobCode(to address: String, nth: Int) async throws -> String {
        var received: [SMTPSink.Received] = []
        await eventually {
            received = (try? mail.messages().filter { $0.recipients.contains(address) }) ?? []
            return received.count >= nth
        }
        guard received.count >= nth else { throw TestFailure("no email #\(nth) to \(address)") }
        let text = received[nth - 1].text ?? received[nth - 1].html ?? ""
        guard let range = text.range(of: #"oobCode=[A-Za-z0-9_\-]+"#, options: .regularExpression) else {
            throw TestFailure("no action link in the email to \(address): \(text)")
        }
        return String(text[range].dropFirst("oobCode=".count))
    }

    /// A TOTP code for `secret`, `offset` seconds from now, computed by pyotp.
    static func totp(_ secret: String, offset: Int = 0) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import pyotp, sys, time; print(pyotp.TOTP(sys.argv[1]).at(time.time() + int(sys.argv[2])))",
                             secret, String(offset)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The SMS "carrier": keeps every text Hearth sends, so a test reads the code as a phone would.
final class SMSInbox: SMSSender, @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [SMSMessage] = []

    func send(_ message: SMSMessage) async throws { lock.withLock { messages.append(message) } }

    func lastCode(to number: String) -> String? { lock.withLock { messages.last { $0.phoneNumber == number }?.code } }
}

/// Opens the sign-in page in headless Chromium: the test's "system browser".
final class ChromiumOpener: AuthUIDelegate, @unchecked Sendable {
    let browser: Browser
    private let lock = NSLock()
    private var _opened: [URL] = []
    init(browser: Browser) { self.browser = browser }
    var opened: [URL] { lock.withLock { _opened } }

    func open(_ url: URL) async throws {
        lock.withLock { _opened.append(url) }
        try await browser.open(url.absoluteString)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
