import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthTestSupport
import HTTPTypes
import Testing

/// The console's front: its page (strict CSP, small), the operator's sign-in (password and TOTP, lockout, cookie
/// flags, audit) and the session the admin API accepts only with its CSRF token.
@Suite struct ConsoleTests {
    static let operatorEmail = "ops@example.com"
    static let password = "correct horse battery"
    static let secret = TOTP.newSecret()

    /// A production app whose project has one operator (made before the start, as `hearth console-admins` does).
    static func app(mode: ServerConfiguration.Mode = .production) async throws -> TestApp {
        let app = TestApp(mode: mode)
        let directory = ProjectDirectory(store: app.store, clock: app.clock,
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: "demo-project", apiKey: TestApp.apiKey).record
        record.consoleAdmins = [ConsoleAdminRecord(
            email: operatorEmail, passwordHash: try PasswordHash.firebaseScrypt(password: password, parameters: record.hashConfig),
            totpSecret: Base32.encode(secret), createdAt: app.clock.now())]
        try await app.store.updateProject(record)
        return app
    }

    static func signIn(_ client: Client, _ app: TestApp, password: String = password, code: String? = nil) async throws -> Reply {
        try await client.post("/console/session", ["email": operatorEmail, "password": password,
                                                    "code": code ?? TOTP.code(secret: secret, at: app.clock.now())], key: nil)
    }

    @Test func thePageIsSmallAndRunsNoInlineCode() async throws {
        try await TestApp().run { client in
            var total = 0
            for path in ["/console", "/console/assets/console.js", "/console/assets/console.css"] {
                let reply = try await client.send(.get, path, key: nil)
                #expect(reply.status == 200, "\(path)")
                let policy = try #require(reply.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe") && policy.contains("frame-ancestors 'none'"))
                total += reply.data.count
            }
            #expect(total < 100_000, "page, script and style: \(total) bytes")
            let html = try await client.send(.get, "/console", key: nil).text
            #expect(!html.contains("<script>") && !html.contains("style=") && !html.contains("http://") && !html.contains("https://"),
                    "no inline code, nothing loaded from elsewhere")
            #expect(try await client.send(.get, "/console/assets/other.js", key: nil).status == 404)
        }
    }

    @Test func anOperatorSignsInWithPasswordAndCodeAndTheAdminAPINeedsTheToken() async throws {
        let app = try await Self.app()
        try await app.run { client in
            let user = try await client.signUp("someone@example.com")
            for (why, reply) in [("wrong password", try await Self.signIn(client, app, password: "wrong password!!")),
                                 ("wrong code", try await Self.signIn(client, app, code: "000000")),
                                 ("no code", try await client.post("/console/session", ["email": Self.operatorEmail, "password": Self.password], key: nil)),
                                 ("unknown operator", try await client.post("/console/session", ["email": "nobody@example.com", "password": Self.password, "code": "123456"], key: nil))] {
                #expect(reply.errorMessage == "INVALID_LOGIN_CREDENTIALS", "\(why): \(reply.text)")
            }
            let signedIn = try await Self.signIn(client, app)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let replayed = try await Self.signIn(client, app)
            #expect(replayed.errorMessage == "INVALID_LOGIN_CREDENTIALS", "an authenticator code signs in once: \(replayed.text)")
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"), "plain http here: \(cookie)")
            let session = cookie.split(separator: ";")[0]
            let csrf = try #require(signedIn["csrf"] as? String)
            // Another origin (even a sibling subdomain, to which SameSite=Strict still sends the cookie) cannot read
            // the token: origins are reflected for the cookie-less API, but credentialed reads are never allowed.
            let crossSite = try await client.send(.get, "/console/session", key: nil,
                                                  headers: [.cookie: String(session), .origin: "https://evil.example.com"])
            #expect(crossSite.headers[HTTPField.Name("Access-Control-Allow-Credentials")!] == nil)
            #expect(try await client.send(.get, "/console/session", key: nil, headers: [.cookie: String(session)])["csrf"] as? String == csrf)

            let lookup = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup"
            let body = ["localId": [user["localId"] as! String]]
            let noToken = try await client.post(lookup, body, key: nil, headers: [.cookie: String(session)])
            #expect(noToken.status == 403, "the cookie alone (a cross-site request) is refused: \(noToken.text)")
            let wrongToken = try await client.post(lookup, body, key: nil, headers: [.cookie: String(session), HTTPField.Name("X-Hearth-CSRF")!: "guess"])
            #expect(wrongToken.status == 403)
            let console: HTTPFields = [.cookie: String(session), HTTPField.Name("X-Hearth-CSRF")!: csrf]
            let found = try await client.post(lookup, body, key: nil, headers: console)
            #expect((found["users"] as? [[String: Any]])?.count == 1, "\(found.text)")
            let disabled = try await client.post("/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                                                 ["localId": user["localId"] as! String, "disableUser": true], key: nil, headers: console)
            #expect(disabled.status == 200, "\(disabled.text)")
            let events = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(limit: 50))
            #expect(events.contains { $0.kind == "admin-call" && $0.details["actor"] == "console:" + Self.operatorEmail },
                    "the change is audited under the operator's name")
            #expect(events.contains { $0.kind == "console-sign-in" && $0.outcome == .failure })

            #expect(try await client.send(.delete, "/console/session", key: nil, headers: [.cookie: String(session)]).status == 200)
            let after = try await client.post(lookup, body, key: nil, headers: console)
            #expect(after.status == 401, "signed out: the session is gone: \(after.text)")
        }
    }

    @Test func failedSignInsLockTheOperatorOut() async throws {
        let app = try await Self.app()
        try await app.run { client in
            for _ in 0..<10 { _ = try await Self.signIn(client, app, password: "wrong password!!") }
            let locked = try await Self.signIn(client, app)
            #expect(locked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(locked.text)")
            let bad = try await client.post("/console/session", key: nil, raw: "not json")
            #expect(bad.status == 400 || bad.status == 429, "\(bad.text)")
        }
    }

    @Test func emulatorModeOpensTheConsoleWithoutSignIn() async throws {
        try await TestApp(mode: .emulator).run { client in
            let session = try await client.send(.get, "/console/session", key: nil)
            #expect(session["emulator"] as? Bool == true && session["projectId"] as? String == "demo-project")
        }
    }
}

extension ConsoleTests {
    /// `v1/projects/{p}/serviceAccounts`: the console's way to make and drop keys; the key file comes back once and
    /// its private key is never listed.
    @Test func serviceAccountsAreCreatedListedAndDeleted() async throws {
        let app = try await Self.app()
        try await app.run { client in
            let signedIn = try await Self.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project/serviceAccounts"
            let bad = try await client.post(base, ["name": "X"], key: nil, headers: console)
            #expect(bad.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(bad.text)")
            let made = try await client.post(base, ["name": "backend-api"], key: nil, headers: console)
            #expect(made.headers[.contentDisposition]?.contains("backend-api.json") == true)
            #expect((made["private_key"] as? String)?.contains("PRIVATE KEY") == true && made["client_email"] as? String == "backend-api@demo-project.iam.hearth")
            let listed = try await client.send(.get, base, key: nil, headers: console)
            #expect((listed["serviceAccounts"] as? [[String: Any]])?.first?["name"] as? String == "backend-api")
            #expect(!listed.text.contains("PRIVATE KEY"), "the private key is never listed")
            #expect(try await client.send(.delete, base + "/backend-api", key: nil, headers: console).status == 200)
            #expect(try await client.send(.delete, base + "/backend-api", key: nil, headers: console).status == 404)
            #expect(try await app.store.project(id: "demo-project")?.serviceAccounts.isEmpty == true)
        }
    }
}

extension ConsoleTests {
    /// The console's settings tools: an email previewed with the real engine (a draft too, a broken one refused),
    /// and test messages through the configured SMTP server (a real one here) and SMS provider.
    @Test(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd"))
    func previewsAndTestMessages() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var configured = try await Self.app()
        configured.configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 10), from: "noreply@acme.test", appName: "Acme")
        let app = configured
        try await app.run { client in
            let signedIn = try await Self.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"
            let french = try await client.post(base + "/emailTemplates:preview", ["type": "PASSWORD_RESET", "locale": "fr"],
                                               key: nil, headers: console)
            #expect((french["subject"] as? String)?.contains("Acme") == true && french["locale"] as? String == "fr", "\(french.text)")
            #expect((french["locales"] as? [String])?.contains("ja") == true)
            let draft = try await client.post(base + "/emailTemplates:preview", [
                "type": "VERIFY_EMAIL", "locale": "en", "template": ["subject": "Welcome to {{appName}}", "text": "Go: {{link}}"],
            ], key: nil, headers: console)
            #expect(draft["subject"] as? String == "Welcome to Acme" && (draft["text"] as? String)?.hasPrefix("Go: http") == true,
                    "\(draft.text)")
            let broken = try await client.post(base + "/emailTemplates:preview", [
                "type": "VERIFY_EMAIL", "template": ["text": "{{#link}}never closed"]], key: nil, headers: console)
            #expect(broken.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(broken.text)")

            let mail = try await client.post(base + "/emailTest", ["to": "ops@example.com"], key: nil, headers: console)
            #expect(mail["delivered"] as? Bool == true, "\(mail.text)")
            let received = try #require(try await sink.waitForMessages(1).first)
            #expect(received.recipients == ["ops@example.com"] && received.subject.contains("Acme"))
            let sms = try await client.post(base + "/smsTest", ["phoneNumber": "+15555550100"], key: nil, headers: console)
            #expect(sms["delivered"] as? Bool == true && app.sms.messages.last?.phoneNumber == "+15555550100", "\(sms.text)")
            app.sms.fail(true)
            let down = try await client.post(base + "/smsTest", ["phoneNumber": "+15555550100"], key: nil, headers: console)
            #expect(down["delivered"] as? Bool == false && (down["error"] as? String)?.contains("provider down") == true, "\(down.text)")
        }
    }
}

extension ConsoleTests {
    /// The admin calls behind the console refuse bad input with Firebase-style errors, never a 500.
    @Test func theConsolesAdminCallsRefuseBadInput() async throws {
        let app = try await Self.app()
        try await app.run { client in
            let signedIn = try await Self.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"
            let cases: [(String, Reply)] = [
                ("preview of an unknown email", try await client.post(base + "/emailTemplates:preview", ["type": "NOPE"], key: nil, headers: console)),
                ("preview of no JSON", try await client.post(base + "/emailTemplates:preview", key: nil, raw: "[", headers: console)),
                ("a test email to no address", try await client.post(base + "/emailTest", ["to": "not an address"], key: nil, headers: console)),
                ("a test SMS to no number", try await client.post(base + "/smsTest", ["phoneNumber": "12345"], key: nil, headers: console)),
                ("a test SMS with a number of the wrong type", try await client.post(base + "/smsTest", ["phoneNumber": 15555550100], key: nil, headers: console)),
                ("stats over 0 days", try await client.send(.get, base + "/auditStats?days=0", key: nil, headers: console)),
                ("a service account with no name", try await client.post(base + "/serviceAccounts", [:], key: nil, headers: console)),
            ]
            for (why, reply) in cases {
                #expect(reply.status == 400 && reply.errorMessage != nil, "\(why): \(reply.status) \(reply.text)")
            }
            let unknown = try await client.post(base + "/outbox/nope:retry", [:], key: nil, headers: console)
            #expect(unknown.status == 404, "\(unknown.text)")
            let noVerb = try await client.post(base + "/outbox/nope", [:], key: nil, headers: console)
            #expect(noVerb.status == 404, "\(noVerb.text)")
            let stats = try await client.send(.get, base + "/auditStats?days=3", key: nil, headers: console)
            #expect((stats["days"] as? [[String: Any]])?.count == 3, "\(stats.text)")
        }
    }
}
