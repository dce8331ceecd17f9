import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthMail
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// The whole email journey with real parts: Hearth on a real port and SQLite file, a real SMTP server receiving
/// the email, headless Chromium opening the link and using the hosted page.
@Suite(.serialized, .enabled(if: SMTPSink.unavailableReason() == nil && Browser.unavailableReason() == nil,
                             "needs aiosmtpd and chromium: \(SMTPSink.unavailableReason() ?? Browser.unavailableReason() ?? "")"))
struct ActionPageBrowserTests {
    static let apiKey = "browser-api-key"

    /// Runs Hearth (production mode) with the sink as its SMTP server until `body` returns.
    func withHearth(sink: SMTPSink, _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let port = try freePort()
        var configuration = ServerConfiguration(port: port, projectID: "browser-project", initialAPIKey: Self.apiKey)
        configuration.publicURL = "http://127.0.0.1:\(port)"
        configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 30),
            from: "noreply@hearth.test", appName: "Hearth Browser Test")
        let hashing = ThreadPoolWorkRunner(threads: 2)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: hashing,
                                             hashParameters: { .generate(memoryCost: 12) },
                                             mailPollInterval: .milliseconds(200))
        let server = Task { try await app.runService() }
        let base = "http://127.0.0.1:\(port)"
        do {
            try await Self.waitUntilListening(base)
            try await body(base)
        } catch {
            server.cancel()
            _ = await server.result
            try await hashing.shutdown()
            try await store.close()
            throw error
        }
        server.cancel()
        _ = await server.result
        try await hashing.shutdown()
        try await store.close()
    }

    static func waitUntilListening(_ base: String) async throws {
        let listening = await eventually { (try? await URLSession.shared.data(from: URL(string: base + "/.well-known/jwks.json")!)) != nil }
        if !listening { throw BrowserError("Hearth did not start") }
    }

    static func call(_ base: String, _ endpoint: String, _ body: [String: Any], locale: String? = nil) async throws
        -> (status: Int, json: [String: Any])
    {
        var request = URLRequest(url: URL(string: "\(base)/identitytoolkit.googleapis.com/v1/\(endpoint)?key=\(apiKey)")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let locale { request.setValue(locale, forHTTPHeaderField: "X-Firebase-Locale") }
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode,
                (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    /// The action link in a received email's text.
    static func link(in mail: SMTPSink.Received) throws -> String {
        let text = mail.text ?? ""
        let start = try #require(text.range(of: "http://127.0.0.1:"))
        return String(text[start.lowerBound...].prefix { !$0.isWhitespace })
    }

    @Test func resetAPasswordFromTheEmailInABrowser() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        try await withHearth(sink: sink) { base in
            #expect(try await Self.call(base, "accounts:signUp", ["email": "reader@example.com", "password": "old-secret1"]).status == 200)
            let sent = try await Self.call(base, "accounts:sendOobCode",
                                           ["requestType": "PASSWORD_RESET", "email": "reader@example.com"], locale: "fr")
            #expect(sent.status == 200)

            let mail = try #require(try await sink.waitForMessages(1).first)
            #expect(mail.recipients == ["reader@example.com"])
            #expect(mail.subject == "Réinitialisez votre mot de passe pour Hearth Browser Test")
            let link = try Self.link(in: mail)
            #expect(link.hasPrefix(base + "/__/auth/action?mode=resetPassword&oobCode="))

            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.open(link)
            #expect(try await browser.text(of: "h1") == "Réinitialisez votre mot de passe")
            try await browser.type("brand-new-secret 2", into: "#newPassword")
            try await browser.click("#submit")
            let message = try await browser.text(of: "#message")
            #expect(message.contains("Votre mot de passe a été modifié"), "page says: \(message)")

            let old = try await Self.call(base, "accounts:signInWithPassword",
                                          ["email": "reader@example.com", "password": "old-secret1"])
            #expect(old.status == 400)
            let new = try await Self.call(base, "accounts:signInWithPassword",
                                          ["email": "reader@example.com", "password": "brand-new-secret 2"])
            #expect(new.status == 200)

            // The same link again: used up, and the page says so.
            try await browser.open(link)
            #expect(try await browser.text(of: "#error").contains("invalid"))
        }
    }

    @Test func verifyAnEmailAndFollowTheContinueLink() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        try await withHearth(sink: sink) { base in
            let user = try await Self.call(base, "accounts:signUp", ["email": "verify@example.com", "password": "secret123"])
            let sent = try await Self.call(base, "accounts:sendOobCode",
                                           ["requestType": "VERIFY_EMAIL", "idToken": user.json["idToken"]!,
                                            "continueUrl": base + "/.well-known/jwks.json"], locale: "ja")
            #expect(sent.status == 200)
            let mail = try #require(try await sink.waitForMessages(1).first)
            #expect(mail.subject == "Hearth Browser Test のメールアドレスを確認してください")
            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.open(try Self.link(in: mail))
            #expect(try await browser.text(of: "h1") == "メールアドレスを確認しました")
            try await browser.click("#continue")
            await eventually { (try? await browser.currentURL()) == base + "/.well-known/jwks.json" }
            #expect(try await browser.currentURL() == base + "/.well-known/jwks.json")
            let lookup = try await Self.call(base, "accounts:lookup", ["idToken": user.json["idToken"]!])
            #expect(((lookup.json["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool) == true)
        }
    }
}
