import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// Passkeys in a real browser: headless Chromium with WebDriver's virtual authenticator (CTAP2, internal transport,
/// user verification) runs the web page docs/passkeys.md gives, served on `http://localhost:<port>`, against Hearth in
/// production mode. Enrollment and sign-in pass; an origin Hearth does not expect, or an authenticator that cannot
/// verify the user, do not.
@Suite(.serialized, .enabled(if: Browser.unavailableReason() == nil, "needs chromium: \(Browser.unavailableReason() ?? "")"))
struct PasskeyChromiumTests {
    static let apiKey = ActionPageBrowserTests.apiKey  // its `call` helper sends this key
    static let projectID = "passkey-project"

    /// The `<script type="module">` of docs/passkeys.md, pointed at `base`, its functions put on `window`.
    static func page(hearth base: String) throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/passkeys.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let start = text.range(of: "<script type=\"module\">"), let end = text.range(of: "</script>", range: start.upperBound..<text.endIndex)
        else { throw BrowserError("docs/passkeys.md has no example page") }
        let script = String(text[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "https://auth.example.com", with: base).replacingOccurrences(of: "API_KEY", with: apiKey)
        return """
            <!doctype html><title>passkeys</title>
            <script type="module">\(script)
            window.hearth = { enroll, signIn };
            window.attempt = (work) => work().catch((error) => ({ thrown: error.name + ": " + error.message }));
            </script>
            """
    }

    @Test func enrollAndSignInWithAVirtualAuthenticator() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let (hearthPort, pagePort) = (try freePort(), try freePort())
        let pageOrigin = "http://localhost:\(pagePort)"
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                         hashParameters: { .generate(memoryCost: 12) })
        var project = try await directory.contextCreatingIfNeeded(for: Self.projectID, apiKey: Self.apiKey).record
        project.settings.passkeys = PasskeyConfig(rpID: "localhost", expectedOrigins: [pageOrigin])
        try await store.updateProject(project)
        let configuration = ServerConfiguration(port: hearthPort, projectID: Self.projectID, initialAPIKey: Self.apiKey)
        let hashing = ThreadPoolWorkRunner(threads: 2)
        let hearth = try await buildApplication(configuration: configuration, store: store, hashing: hashing,
                                                hashParameters: { .generate(memoryCost: 12) })
        let base = "http://127.0.0.1:\(hearthPort)"
        let html = try Self.page(hearth: base)
        let router = Router()
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        // The same page on a second port: an origin of the same site that the relying party does not list.
        let otherPort = try freePort()
        let pages = [pagePort, otherPort].map { Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: $0))) }
        let servers = [Task { try await hearth.runService() }] + pages.map { page in Task { try await page.runService() } }
        do {
            try await ActionPageBrowserTests.waitUntilListening(base)
            try await Self.journey(base: base, pageOrigin: pageOrigin, otherOrigin: "http://localhost:\(otherPort)", store: store)
        } catch {
            Issue.record(error)
        }
        servers.forEach { $0.cancel() }
        for server in servers { _ = await server.result }
        try await hashing.shutdown()
        try await store.close()
    }

    static func journey(base: String, pageOrigin: String, otherOrigin: String, store: SQLiteStore) async throws {
        let signedUp = try await ActionPageBrowserTests.call(base, "accounts:signUp", ["email": "web@example.com", "password": "secret123",
                                                                                      "returnSecureToken": true]).json
        let idToken = try #require(signedUp["idToken"] as? String, "\(signedUp)")
        let browser = try await Browser.start()
        defer { browser.stop() }
        let authenticator = try await browser.addVirtualAuthenticator()
        try await browser.open(pageOrigin + "/")
        _ = try await browser.text(of: "title", timeout: 30)

        let enrolled = try await browser.evaluate("return attempt(() => hearth.enroll(arguments[0], 'Laptop'))", [idToken]) as? [String: Any]
        #expect(enrolled?["localId"] as? String == signedUp["localId"] as? String, "\(enrolled ?? [:])")
        let held = try await browser.virtualCredentials(authenticator)
        #expect(held.count == 1 && held.first?["rpId"] as? String == "localhost" && held.first?["isResidentCredential"] as? Bool == true)

        let signedIn = try await browser.evaluate("return attempt(() => hearth.signIn())") as? [String: Any]
        #expect(signedIn?["localId"] as? String == signedUp["localId"] as? String && signedIn?["idToken"] is String, "\(signedIn ?? [:])")
        let user = try #require(try await store.user(projectID: projectID, tenantID: nil, email: "web@example.com"))
        #expect(user.passkeys?.first?.name == "Laptop" && (user.passkeys?.first?.signCount ?? 0) >= 1, "the counter is kept")

        // The authenticator cannot verify the user any more: the browser gives up or Hearth refuses; nobody signs in.
        try await browser.setUserVerified(authenticator, false)
        let unverified = try await browser.evaluate("return attempt(() => hearth.signIn())") as? [String: Any]
        #expect(unverified?["idToken"] == nil, "\(unverified ?? [:])")
        try await browser.setUserVerified(authenticator, true)

        // An origin the relying party does not list: the browser signs (same rp id), Hearth refuses.
        try await browser.open(otherOrigin + "/")
        _ = try await browser.text(of: "title", timeout: 30)
        let elsewhere = try await browser.evaluate("return attempt(() => hearth.signIn())") as? [String: Any]
        let message = ((elsewhere?["error"] as? [String: Any])?["message"] as? String) ?? "\(elsewhere ?? [:])"
        #expect(message == "INVALID_AUTHENTICATOR_RESPONSE : The origin \(otherOrigin) is not among passkeyConfig.expectedOrigins.",
                "\(message)")
    }
}
