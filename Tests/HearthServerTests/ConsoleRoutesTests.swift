import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthTestSupport
import HTTPTypes
import HearthWire
import Testing

/// The console's front: its page (strict CSP, small), the operator's sign-in (password and TOTP, lockout, cookie
/// flags, audit) and the session the admin API accepts only with its CSRF token.
@Suite struct ConsoleRoutesTests {
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
        try await post(client, ["email": operatorEmail, "password": password,
                                 "code": code ?? TOTP.code(secret: secret, at: app.clock.now())])
    }

    /// A sign-in as the page makes it: the signed-out `GET`'s token, repeated in the header beside its cookie.
    static func post(_ client: Client, _ body: [String: String]) async throws -> Reply {
        let (cookie, token) = try await signInToken(client)
        return try await client.post("/console/session", body, key: nil,
                                     headers: [.cookie: cookie, HTTPField.Name("X-Hearth-CSRF")!: token])
    }

    static func signInToken(_ client: Client) async throws -> (cookie: String, token: String) {
        let signedOut = try await client.send(.get, "/console/session", key: nil)
        let cookie = try #require(signedOut.headers[.setCookie]).split(separator: ";")[0]
        return (String(cookie), try #require(signedOut.headers[HTTPField.Name("X-Hearth-CSRF")!]))
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
                                 ("no code", try await Self.post(client, ["email": Self.operatorEmail, "password": Self.password])),
                                 ("unknown operator", try await Self.post(client, ["email": "nobody@example.com", "password": Self.password, "code": "123456"]))] {
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
            let shown = try await client.send(.get, "/console/session", key: nil, headers: [.cookie: String(session)])
            #expect(shown["csrf"] as? String == csrf)
            // What the header shows: the project's API key, and that email cannot leave (no SMTP in this app).
            #expect(shown["apiKey"] as? String == TestApp.apiKey && shown["projectId"] as? String == "demo-project")
            #expect(shown["smtpConfigured"] as? Bool == false && shown["version"] as? String == "", "\(shown.text)")

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

            let forged = try await client.send(.delete, "/console/session", key: nil, headers: [.cookie: String(session)])
            #expect(forged.status == 400 || forged.status == 403, "a sign-out without the token is refused: \(forged.text)")
            #expect(try await client.send(.delete, "/console/session", key: nil, headers: console).status == 200)
            let after = try await client.post(lookup, body, key: nil, headers: console)
            #expect(after.status == 401, "signed out: the session is gone: \(after.text)")
        }
    }

    /// Signing in takes the signed-out page's token and a JSON body type (no other site's form can sign a browser in
    /// as somebody else), and a session ends with the operator record it was made for: deleting and re-creating the
    /// operator, the way to recover from a stolen session, does not revive it.
    @Test func signInNeedsItsTokenAndSessionsEndWithTheirOperatorRecord() async throws {
        let app = try await Self.app()
        try await app.run { client in
            let body = ["email": Self.operatorEmail, "password": Self.password, "code": TOTP.code(secret: Self.secret, at: app.clock.now())]
            let noToken = try await client.post("/console/session", body, key: nil)
            #expect(noToken.status == 403, "\(noToken.text)")
            let (cookie, token) = try await Self.signInToken(client)
            let otherCookie = try await client.post("/console/session", body, key: nil,
                                                    headers: [HTTPField.Name("X-Hearth-CSRF")!: token])
            #expect(otherCookie.status == 403, "the header without its cookie: \(otherCookie.text)")
            let asForm = try await client.post("/console/session", key: nil, raw: try String(data: JSONSerialization.data(withJSONObject: body), encoding: .utf8)!,
                                               headers: [.cookie: cookie, HTTPField.Name("X-Hearth-CSRF")!: token, .contentType: "text/plain"])
            #expect(asForm.status == 400, "a body a form could send: \(asForm.text)")

            let signedIn = try await Self.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let lookup = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup"
            #expect(try await client.post(lookup, ["localId": ["nobody"]], key: nil, headers: console).status == 200)

            // The operator is deleted and made again (same email, new password): the old session is dead.
            try await app.store.modifyProject("demo-project") { record in
                record.consoleAdmins = [ConsoleAdminRecord(
                    email: Self.operatorEmail, passwordHash: try PasswordHash.firebaseScrypt(password: "a brand new password", parameters: record.hashConfig),
                    totpSecret: Base32.encode(Self.secret), createdAt: app.clock.now() + 1)]
            }
            app.clock.advance(by: 10)  // past the project cache
            let revived = try await client.post(lookup, ["localId": ["nobody"]], key: nil, headers: console)
            #expect(revived.status == 401, "\(revived.text)")
        }
    }

    /// What a signed-out visitor types ends up in audit events and log lines: one line each, bounded; a forwarded
    /// address is stored only when it is an address; and a key an operator makes names the operator.
    @Test func typedTextIsEscapedAndKeysNameTheirMaker() async throws {
        let app: TestApp = try await {
            var app = try await Self.app()
            app.configuration.trustForwardedFor = true
            return app
        }()
        let store = app.store
        try await app.run { client in
            let (cookie, token) = try await Self.signInToken(client)
            let forged = "x@example.com\r\n2026-01-01 notice hearth.audit: console-sign-in outcome=success" + String(repeating: "a", count: 200_000)
            let reply = try await client.post("/console/session", ["email": forged, "password": "whatever-password", "code": "123456"], key: nil,
                                              headers: [.cookie: cookie, HTTPField.Name("X-Hearth-CSRF")!: token,
                                                        HTTPField.Name("X-Forwarded-For")!: "203.0.113.9, <script>not-an-address"])
            #expect(reply.errorMessage == "INVALID_LOGIN_CREDENTIALS", "\(reply.text)")
            let event = try #require(try await store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["console-sign-in"], limit: 5)).first)
            let actor = try #require(event.details["actor"])
            #expect(!actor.contains("\r") && !actor.contains("\n") && actor.contains("\\x0d\\x0a"), "\(actor.prefix(80))")
            #expect(actor.count <= 260, "bounded: \(actor.count) characters")
            #expect(event.clientAddress != "<script>not-an-address", "an entry that is no address is not stored: \(event.clientAddress ?? "")")

            let signedIn = try await Self.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project/serviceAccounts"
            _ = try await client.post(base, ["name": "made-by-ops"], key: nil, headers: console)
            let listed = try await client.send(.get, base, key: nil, headers: console)
            #expect((listed["serviceAccounts"] as? [[String: Any]])?.first?["createdBy"] as? String == "console:" + Self.operatorEmail,
                    "\(listed.text)")
        }
    }

    @Test func failedSignInsLockTheOperatorOut() async throws {
        let app = try await Self.app()
        try await app.run { client in
            for _ in 0..<10 { _ = try await Self.signIn(client, app, password: "wrong password!!") }
            let locked = try await Self.signIn(client, app)
            #expect(locked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(locked.text)")
            let (cookie, token) = try await Self.signInToken(client)
            let bad = try await client.post("/console/session", key: nil, raw: "not json",
                                            headers: [.cookie: cookie, HTTPField.Name("X-Hearth-CSRF")!: token])
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

extension ConsoleRoutesTests {
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

extension ConsoleRoutesTests {
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

/// Console sign-ins under a burst: 50 wrong passwords for the operator at once, against the failed-sign-in budget of 10,
/// are 10 refusals of the password and 40 of the limit (the reservation is taken before the password is hashed), and
/// the operator is locked out for the window, the right password included.
@Suite struct ConsoleSignInBurstTests {
    @Test func fiftyWrongPasswordsAtOnceAreTenGuesses() async throws {
        let app = try await ConsoleRoutesTests.app()
        try await app.run { client in
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await ConsoleRoutesTests.post(client, ["email": ConsoleRoutesTests.operatorEmail, "password": "wrong-\(index)",
                                                             "code": "000000"]).errorMessage ?? "ok"
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(answers.filter { $0.hasPrefix("INVALID_LOGIN_CREDENTIALS") }.count == 10, "\(Set(answers))")
            #expect(answers.filter { $0.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") }.count == 40, "\(Set(answers))")
            let right = try await ConsoleRoutesTests.signIn(client, app)
            #expect(right.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "locked for the window: \(right.text)")
        }
    }
}
