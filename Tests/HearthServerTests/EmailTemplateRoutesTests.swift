import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthTestSupport
import HTTPTypes
import HearthWire
import Testing

/// `EmailTemplateRoutes`: templates saved with the project, what the outbox sends, what the config file pins, and
/// what is refused.
@Suite struct EmailTemplateRoutesTests {
    static let path = "/identitytoolkit.googleapis.com/v1/projects/demo-project/emailTemplates"

    /// The console's session headers (cookie and CSRF token) on `app`.
    static func console(_ client: Client, _ app: TestApp) async throws -> HTTPFields {
        let signedIn = try await ConsoleRoutesTests.signIn(client, app)
        let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
        return [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
    }

    static func save(_ client: Client, _ headers: HTTPFields, _ body: [String: Any]) async throws -> Reply {
        try await client.send(.patch, path, body, key: nil, headers: headers)
    }

    /// Two instances on one store, both started before the change: a template saved through one is what the other's
    /// outbox sends (sender, subject, text), and a reset brings Hearth's own text back. The config file's template
    /// for German is shown as pinned and cannot be saved over.
    @Test(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd"))
    func aSavedTemplateIsWhatEveryInstanceSends() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var configured = try await ConsoleRoutesTests.app()
        configured.configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 10), from: "noreply@acme.test",
            appName: "Acme", templates: ["de": ["PASSWORD_RESET": .init(subject: "Aus der Datei")]])
        let one = configured
        let other = TestAppOn(app: one, store: one.store)
        try await one.run { first in
            try await other.run { second in
                let headers = try await Self.console(first, one)
                let listed = try await first.send(.get, Self.path, key: nil, headers: headers)
                let pinned = try #require(listed["pinned"] as? [String: [String: String]], "\(listed.text)")
                #expect(pinned["de"]?["PASSWORD_RESET"]?.contains("config file") == true, "\(listed.text)")
                #expect((listed["locales"] as? [String])?.contains("fr") == true && listed["from"] as? String == "noreply@acme.test")
                let refused = try await Self.save(first, headers, ["locale": "de", "type": "PASSWORD_RESET",
                                                                   "template": ["subject": "Aus der Konsole"]])
                #expect(refused.status == 400 && refused.errorMessage?.contains("config file") == true, "\(refused.text)")

                let saved = try await Self.save(first, headers, ["locale": "FR", "type": "PASSWORD_RESET", "template": [
                    "fromName": "Équipe Acme", "from": "support@acme.test", "subject": "Réinitialisez %APP_NAME%",
                    "text": "Lien : {{link}}", "html": ""]])
                #expect(saved.status == 200, "\(saved.text)")
                let stored = try #require((saved["templates"] as? [String: [String: [String: String]]])?["fr"]?["PASSWORD_RESET"],
                                          "spelled as the language Hearth writes in: \(saved.text)")
                #expect(stored["subject"] == "Réinitialisez %APP_NAME%" && stored["html"] == nil, "an empty part is Hearth's own")

                _ = try await second.signUp("ana@example.com")
                func reset() async throws -> SMTPSink.Received {
                    let count = try sink.messages().count
                    let sent = try await second.post(Endpoints.sendOobCode.path,
                                                     ["requestType": "PASSWORD_RESET", "email": "ana@example.com"],
                                                     headers: [HTTPField.Name("X-Firebase-Locale")!: "fr-CA"])
                    try #require(sent.status == 200, "\(sent.text)")
                    return try #require(try await sink.waitForMessages(count + 1).last)
                }
                let custom = try await reset()
                #expect(custom.subject == "Réinitialisez Acme", "\(custom.subject)")
                #expect(custom.from.contains("support@acme.test") && custom.from.contains("Équipe Acme"), "\(custom.from)")
                #expect(custom.text?.hasPrefix("Lien : http") == true, "\(custom.text ?? "")")
                #expect(custom.html?.contains("Lien :") == true, "the HTML part is made from the saved text")

                let cleared = try await Self.save(first, headers, ["locale": "fr", "type": "PASSWORD_RESET"])
                #expect(cleared.status == 200 && (cleared["templates"] as? [String: Any])?.isEmpty == true, "\(cleared.text)")
                let builtIn = try await reset()
                #expect(builtIn.subject != "Réinitialisez Acme" && builtIn.subject.contains("Acme") && builtIn.from.contains("noreply@acme.test"),
                        "\(builtIn.subject) from \(builtIn.from)")
            }
        }
    }

    /// What would break a message or its headers is refused with a clear message, and nothing is stored.
    @Test func badTemplatesAreRefusedAndNothingIsStored() async throws {
        var configured = try await ConsoleRoutesTests.app()
        configured.configuration.email = EmailConfiguration(from: "noreply@acme.test", appName: "Acme")
        let app = configured
        try await app.run { client in
            let headers = try await Self.console(client, app)
            let cases: [(String, [String: Any], String)] = [
                ("an unknown email", ["locale": "fr", "type": "NOPE", "template": ["subject": "x"]], "type must be"),
                ("a path for a language", ["locale": "../fr", "type": "VERIFY_EMAIL", "template": ["subject": "x"]], "locale"),
                ("no language", ["type": "VERIFY_EMAIL", "template": ["subject": "x"]], "locale"),
                ("a header in the subject", ["locale": "fr", "type": "VERIFY_EMAIL",
                                             "template": ["subject": "Hi\r\nBcc: all@example.com"]], "subject"),
                ("a header in the sender's name", ["locale": "fr", "type": "VERIFY_EMAIL",
                                                   "template": ["fromName": "Acme\nBcc: x@example.com"]], "fromName"),
                ("a sender at another domain", ["locale": "fr", "type": "VERIFY_EMAIL",
                                                "template": ["from": "ceo@bank.example"]], "acme.test"),
                ("a template that does not compile", ["locale": "fr", "type": "VERIFY_EMAIL",
                                                      "template": ["text": "{{#link}}never closed"]], "compile"),
                ("a body of 70 KB", ["locale": "fr", "type": "VERIFY_EMAIL",
                                     "template": ["text": String(repeating: "a", count: 70_000)]], "64 KiB"),
            ]
            for (what, body, says) in cases {
                let reply = try await Self.save(client, headers, body)
                #expect(reply.status == 400 && reply.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true
                        && reply.errorMessage?.contains(says) == true, "\(what): \(reply.text)")
            }
            let twice = try await client.send(.patch, Self.path, key: nil, raw: #"""
                {"locale":"fr","type":"VERIFY_EMAIL","template":{"subject":"one","subject":"two"}}
                """#, headers: headers)
            #expect(twice.status == 400, "a field spelled twice: \(twice.text)")
            let noSession = try await client.send(.patch, Self.path, ["locale": "fr", "type": "VERIFY_EMAIL"], key: TestApp.apiKey)
            #expect(noSession.status >= 400 && noSession.status < 500, "an API key is not an admin: \(noSession.status) \(noSession.text)")
            let listed = try await client.send(.get, Self.path, key: nil, headers: headers)
            #expect((listed["templates"] as? [String: Any])?.isEmpty == true, "\(listed.text)")
        }
    }

    /// 50 saves at once, each of its own language: every one lands (the project record is written compare-and-set,
    /// so a save that lost a race applies itself again to what won).
    @Test func fiftyConcurrentSavesAllLand() async throws {
        var configured = try await ConsoleRoutesTests.app()
        configured.configuration.email = EmailConfiguration(from: "noreply@acme.test", appName: "Acme")
        let app = configured
        try await app.run { client in
            let headers = try await Self.console(client, app)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await Self.save(client, headers, ["locale": "fr-x\(index)", "type": "EMAIL_SIGNIN",
                                                              "template": ["subject": "Lien \(index)"]]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            let listed = try await client.send(.get, Self.path, key: nil, headers: headers)
            let stored = try #require(listed["templates"] as? [String: [String: [String: String]]])
            #expect(stored.count == 50 && (0..<50).allSatisfy { stored["fr-x\($0)"]?["EMAIL_SIGNIN"]?["subject"] == "Lien \($0)" })
            let preview = try await client.post(Self.path + ":preview", ["type": "EMAIL_SIGNIN", "locale": "fr-x7"],
                                                key: nil, headers: headers)
            #expect(preview["subject"] as? String == "Lien 7" && preview["locale"] as? String == "fr-x7", "\(preview.text)")
        }
    }

    /// Firebase's shape of the same templates, in the project's config (`notification.sendEmail`, what Firebase's API
    /// and `auth:migrate` use): a template set there is the default language's, shown back as Firebase shows it and
    /// sent as set; Mustache variables show in Firebase's spelling; a reply-to address, an unknown body format and a
    /// pinned template are refused with nothing stored; a template named by the mask and absent is Hearth's own again.
    @Test(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd"))
    func theConfigsNotificationTemplatesAreTheDefaultLanguages() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var configured = try await ConsoleRoutesTests.app()
        configured.configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 10), from: "noreply@acme.test",
            appName: "Acme", templates: ["en": ["VERIFY_EMAIL": .init(subject: "From the file")]])
        let app = configured
        try await app.run { client in
            let headers = try await Self.console(client, app)
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config?updateMask="
            func patch(_ field: String, _ template: [String: Any]?) async throws -> Reply {
                let body: [String: Any] = template.map { ["notification": ["sendEmail": [field: $0]]] } ?? [:]
                return try await client.send(.patch, config + "notification.sendEmail." + field, body, key: nil, headers: headers)
            }
            func shown(_ reply: Reply, _ field: String) -> [String: Any]? {
                ((reply["notification"] as? [String: Any])?["sendEmail"] as? [String: Any])?[field] as? [String: Any]
            }
            let saved = try await patch("resetPasswordTemplate", [
                "senderLocalPart": "support", "senderDisplayName": "Acme Support", "subject": "Reset your %APP_NAME% password",
                "body": "<p>Hello %DISPLAY_NAME%, <a href=\"%LINK%\">choose a new password</a>.</p>", "bodyFormat": "HTML",
                "replyTo": "noreply", "customized": true])
            #expect(saved.status == 200, "\(saved.text)")
            let reset = try #require(shown(saved, "resetPasswordTemplate"), "\(saved.text)")
            #expect(reset["customized"] as? Bool == true && reset["senderLocalPart"] as? String == "support"
                    && reset["bodyFormat"] as? String == "HTML", "\(reset)")
            #expect(shown(saved, "changeEmailTemplate")?["customized"] as? Bool == false)
            #expect(shown(saved, "verifyEmailTemplate")?["subject"] as? String == "From the file", "the file's template wins, and shows")
            let listed = try await client.send(.get, Self.path, key: nil, headers: headers)
            let stored = (listed["templates"] as? [String: [String: [String: String]]])?["en"]?["PASSWORD_RESET"]
            #expect(stored?["from"] == "support@acme.test" && stored?["text"] == nil, "the default language's: \(listed.text)")

            _ = try await client.signUp("ana@example.com")
            let sent = try await client.post(Endpoints.sendOobCode.path, ["requestType": "PASSWORD_RESET", "email": "ana@example.com"])
            try #require(sent.status == 200, "\(sent.text)")
            let message = try #require(try await sink.waitForMessages(1).last)
            #expect(message.subject == "Reset your Acme password" && message.from.contains("support@acme.test")
                    && message.from.contains("Acme Support"), "\(message.subject) from \(message.from)")
            #expect(message.html?.contains("choose a new password") == true && message.html?.contains("oobCode=") == true,
                    "\(message.html ?? "")")

            let mustache = try await Self.save(client, headers, ["locale": "en", "type": "RECOVER_EMAIL",
                                                                 "template": ["text": "Not you? Undo it: {{link}}"]])
            #expect(mustache.status == 200, "\(mustache.text)")
            let read = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/projects/demo-project/config", key: nil, headers: headers)
            #expect(shown(read, "changeEmailTemplate")?["body"] as? String == "Not you? Undo it: %LINK%"
                    && shown(read, "changeEmailTemplate")?["bodyFormat"] as? String == "PLAIN_TEXT", "\(read.text)")

            for (what, field, template, says) in [
                ("a reply-to address", "resetPasswordTemplate", ["subject": "x", "replyTo": "help@acme.test"], "replyTo"),
                ("an unknown body format", "resetPasswordTemplate", ["body": "x", "bodyFormat": "MARKDOWN"], "bodyFormat"),
                ("a pinned template", "verifyEmailTemplate", ["subject": "x"], "is set by"),
                ("a header in the subject", "resetPasswordTemplate", ["subject": "x\r\nBcc: all@example.com"], "subject"),
            ] as [(String, String, [String: Any], String)] {
                let refused = try await patch(field, template)
                #expect(refused.status == 400 && refused.errorMessage?.contains(says) == true, "\(what): \(refused.text)")
            }
            let unchanged = try await client.send(.get, Self.path, key: nil, headers: headers)
            #expect((unchanged["templates"] as? [String: [String: [String: String]]])?["en"]?["PASSWORD_RESET"]?["subject"]
                    == "Reset your %APP_NAME% password", "nothing refused was stored: \(unchanged.text)")
            let cleared = try await patch("resetPasswordTemplate", nil)
            #expect(cleared.status == 200 && shown(cleared, "resetPasswordTemplate")?["customized"] as? Bool == false, "\(cleared.text)")
        }
    }
}
