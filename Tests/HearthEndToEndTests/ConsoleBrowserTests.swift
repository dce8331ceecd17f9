import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The console driven by headless Chromium against a production server on SQLite with 10,000 users: an operator
/// signs in with a password and an authenticator code, finds one user, edits their claims (they appear in the
/// user's next ID token) and disables them (their next sign-in fails), creates a user, turns anonymous sign-in off,
/// creates a tenant, and reads it all in the audit log.
@Suite(.enabled(if: Browser.unavailableReason() == nil, "needs chromium: \(Browser.unavailableReason() ?? "")"))
struct ConsoleBrowserTests {
    static let operatorEmail = "ops@example.com"
    static let password = "correct horse battery"

    @Test func anOperatorFindsAUserEditsClaimsAndDisablesThem() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let clock = SystemClock()
        let directory = ProjectDirectory(store: store, clock: clock,
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: "console-project", apiKey: "console-key").record
        let secret = TOTP.newSecret()
        record.consoleAdmins = [ConsoleAdminRecord(
            email: Self.operatorEmail,
            passwordHash: try PasswordHash.firebaseScrypt(password: Self.password, parameters: record.hashConfig),
            totpSecret: Base32.encode(secret), createdAt: Date())]
        var blocking = BlockingFunctions()
        // An event this test never causes: the console lists it, nothing calls it.
        blocking.triggers = ["beforeSendSms": .init(functionURI: "https://before-sms-abc-uc.a.run.app", updatedAt: Date())]
        record.settings.blockingFunctions = blocking
        // Providers added through the admin API before (the console may change them; ones the config file sets it
        // shows read-only, ConsoleSettingsBrowserTests).
        var saml = IdentityProviderConfig(enabled: false, clientId: "console-project")
        saml.saml = SAMLIdentityProvider(entityID: "https://idp.corp.example", ssoURL: "https://idp.corp.example/sso",
                                         certificates: ["cert"], callbackURI: "http://localhost/__/auth/handler")
        record.settings.identityProviders = ["github.com": IdentityProviderConfig(enabled: false, clientId: "gh-app"), "saml.corp": saml]
        try await store.updateProject(record)
        // A webhook endpoint nobody listens on: its deliveries fail and wait, which the Events view shows.
        let endpoint = WebhookEndpoint(projectID: "console-project", url: "http://127.0.0.1:9/hook", types: [.userCreated], now: Date())
        try await store.insertWebhookEndpoint(endpoint)
        // 10,000 others, in batches as an import writes them.
        for batch in 0..<10 {
            let users = (0..<1000).map { index in
                var user = UserRecord(projectID: "console-project", localID: "u\(batch)-\(index)", validSince: 0, createdAt: Date())
                user.email = "user\(batch * 1000 + index)@example.com"
                return user
            }
            _ = try await store.insertUsers(users, uniqueEmail: true)
        }
        var configuration = ServerConfiguration(port: 0, projectID: "console-project", initialAPIKey: "console-key")
        configuration.rateLimits.enabled = false
        let app = try await buildApplication(configuration: configuration, store: store, hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) })
        do {
            try await app.test(.live) { client in
                let base = "http://127.0.0.1:\(client.port!)"
                func call(_ name: String, _ body: [String: Any]) async throws -> [String: Any] { try await Self.call(base, name, body) }
                let target = try await call("signUp", ["email": "target@example.com", "password": "target-pass", "returnSecureToken": true])
                let uid = try #require(target["localId"] as? String, "\(target)")
                // Two passkeys on the user, as an enrolment leaves them, for the user page to list and remove.
                var keyed = try #require(try await store.user(projectID: "console-project", tenantID: nil, localID: uid))
                keyed.passkeys = [PasskeyCredential(credentialID: "cred-laptop", name: "Laptop"),
                                  PasskeyCredential(credentialID: "cred-phone", name: "Phone")]
                _ = try await store.updateUser(keyed, uniqueEmail: true, revokeRefreshTokens: false)

                let browser = try await Browser.start()
                defer { browser.stop() }
                try await browser.open(base + "/console")
                // HEARTH_SCREENSHOTS=docs writes the README's pictures of the console.
                let pictures = ProcessInfo.processInfo.environment["HEARTH_SCREENSHOTS"]
                func picture(_ name: String) async throws {
                    guard let pictures else { return }
                    try await browser.screenshot().write(to: URL(fileURLWithPath: pictures).appendingPathComponent("console-\(name).png"))
                }
                _ = try await Self.waitForText("#signin-title", containing: "Sign in", browser)
                // A wrong password is explained in the words of the server's guidance table, which the page carries.
                try await browser.type(Self.operatorEmail, into: "#email")
                try await browser.type("not the password", into: "#password")
                try await browser.type("000000", into: "#code")
                try await browser.click("#signin-submit")
                #expect(try await Self.waitForText("#status", containing: "Wrong email, password or authenticator code.", browser))
                try await browser.open(base + "/console")
                _ = try await Self.waitForText("#signin-title", containing: "Sign in", browser)
                try await picture("sign-in")
                try await browser.type(Self.operatorEmail, into: "#email")
                try await browser.type(Self.password, into: "#password")
                try await browser.type(TOTP.code(secret: secret, at: Date()), into: "#code")
                try await browser.click("#signin-submit")
                #expect(try await Self.waitForText("#who", containing: "Signed in as ops@example.com", browser))
                // The header names the project, its API key and the server's version.
                #expect(try await Self.waitForText("#info-project", containing: "console-project", browser))
                #expect(try await Self.waitForText("#info-key", containing: "console-key", browser))

                try await browser.click("nav button[data-view=users]")
                try await browser.type("target@example.com", into: "#query")
                try await browser.click("#search")
                #expect(try await Self.waitForText(".open-user", containing: "target@example.com", browser))
                try await picture("search")
                try await browser.click(".open-user")
                #expect(try await Self.waitForText("#user-title", containing: "target@example.com", browser))
                // The user's page has its own address, to bookmark or share with another operator.
                let opened = try #require(try await store.user(projectID: "console-project", tenantID: nil, email: "target@example.com"))
                #expect(try await browser.currentURL().hasSuffix("/console#/users/" + opened.localID))
                #expect(try await Self.waitForText("#passkeys", containing: "Laptop", browser))
                try await browser.click("#passkeys li:first-child .remove-passkey")
                #expect(try await Self.waitForText("#status", containing: "The passkey Laptop was removed", browser))
                #expect(try await store.user(projectID: "console-project", tenantID: nil, localID: uid)?.passkeys?.map(\.credentialID)
                        == ["cred-phone"])

                // A verification link to copy; every field has a label; nothing is wider than a 360-pixel phone.
                try await browser.click("#verify-link")
                #expect(try await Self.waitForText("#link", containing: "mode=verifyEmail", browser))
                let unlabeled = try await browser.evaluate("""
                    return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
                        .filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id);
                    """) as? [String]
                #expect(unlabeled == [], "fields without a label: \(unlabeled ?? [])")
                try await browser.setWindowSize(width: 360, height: 780)
                var width: Int?
                await eventually {  // the page lays itself out again for the new size
                    width = try? await browser.evaluate("return document.documentElement.scrollWidth") as? Int
                    return (width ?? 999) <= 360
                }
                #expect((width ?? 999) <= 360, "no sideways scrolling at 360 px: \(width ?? -1)")
                try await picture("phone")
                try await browser.setWindowSize(width: 1280, height: 900)

                _ = try await browser.evaluate("document.querySelector('#claims').value = arguments[0]", [#"{"role":"support"}"#])
                try await browser.click("#save-claims")
                #expect(try await Self.waitForText("#status", containing: "Claims saved", browser))
                let signedIn = try await call("signInWithPassword", ["email": "target@example.com", "password": "target-pass",
                                                                     "returnSecureToken": true])
                let token = try #require(signedIn["idToken"] as? String, "\(signedIn)")
                var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
                    .replacingOccurrences(of: "_", with: "/")
                while payload.count % 4 != 0 { payload += "=" }
                let claims = try JSONSerialization.jsonObject(with: Data(base64Encoded: payload)!) as? [String: Any]
                #expect(claims?["role"] as? String == "support", "the claim is in the next ID token")

                try await browser.click("#toggle-disabled")
                #expect(try await Self.waitForText("#status", containing: "User disabled", browser))
                try await picture("user")
                try await browser.click("#back")
                try await browser.click("#all")
                _ = try await Self.waitForText("#caption", containing: "All users", browser)
                // The list shows providers, creation and last sign-in; Back returns to the user just seen.
                #expect(try await Self.waitForText("#users thead", containing: "Providers", browser))
                #expect(try await Self.waitForText("#users thead", containing: "Last sign-in", browser))
                #expect(try await Self.waitForText("#rows", containing: " UTC", browser), "creation times")
                _ = try await browser.evaluate("history.back()")
                #expect(try await Self.waitForText("#user-title", containing: "target@example.com", browser))
                #expect(try await browser.evaluate("return document.querySelector('#user').hidden") as? Bool == false)
                try await browser.click("#back")
                _ = try await Self.waitForText("#caption", containing: "All users", browser)
                let refused = try await call("signInWithPassword", ["email": "target@example.com", "password": "target-pass"])
                #expect((refused["error"] as? [String: Any])?["message"] as? String == "USER_DISABLED", "\(refused)")

                // Export and import in Firebase's JSON format (the download is caught in the page).
                let exported = try await browser.evaluate("""
                    return (async () => { let saved = ""; window.save = (name, text) => { saved = text; };
                                          await exportUsers(); return saved; })();
                    """) as? String
                let file = try JSONSerialization.jsonObject(with: Data((exported ?? "").utf8)) as? [String: Any]
                let users = try #require(file?["users"] as? [[String: Any]])
                #expect(users.count == 10_001 && users.contains { $0["email"] as? String == "target@example.com" && $0["passwordHash"] is String },
                        "every user, with this project's password hashes")
                let importFile = #"{"users": [{"localId": "imported-1", "email": "imported1@example.com"},"# +
                    #"{"localId": "imported-2", "email": "imported2@example.com"}, {"localId": "u0-1", "email": "clash@example.com"}]}"#
                let problems = try await browser.evaluate("return importUsers(arguments[0])", [importFile]) as? [String]
                #expect(problems?.count == 1 && problems?.first?.hasPrefix("#3") == true, "the clash is reported: \(problems ?? [])")
                #expect(try await store.user(projectID: "console-project", tenantID: nil, localID: "imported-2")?.email == "imported2@example.com")
                #expect(try await Self.waitForText("#status", containing: "Imported 2 of 3 users", browser))

                // A new user from the console signs in.
                try await browser.type("made-in-console@example.com", into: "#new-email")
                try await browser.type("console-made", into: "#new-password")
                try await browser.click("#create")
                #expect(try await Self.waitForText("#status", containing: "User created", browser))
                #expect(try await call("signInWithPassword", ["email": "made-in-console@example.com",
                                                              "password": "console-made"])["idToken"] is String)

                // Sorted by creation, newest first (the index of migration 0010): the user just made comes first.
                try await browser.click("nav button[data-view=users]")
                _ = try await browser.evaluate("""
                    const sort = document.querySelector('#sort'); sort.value = 'CREATED_AT';
                    sort.dispatchEvent(new Event('change'));
                    """)
                #expect(try await Self.waitForText("#caption", containing: "by creation", browser))
                #expect(try await Self.waitForText(".open-user", containing: "made-in-console@example.com", browser))

                // Sign-in method: anonymous sign-in off from its switch (then refused).
                try await browser.click("nav button[data-view=sign-in-method]")
                #expect(try await Self.waitForText("#redirect-uri", containing: "/__/auth/handler", browser))
                #expect(try await Self.waitForText("#method-rows", containing: "Anonymous", browser))
                if (try await browser.evaluate("return document.querySelector('tr[data-method=Anonymous] input').checked") as? Bool) == true {
                    try await browser.click("tr[data-method=Anonymous] input")
                    #expect(try await Self.waitForText("#status", containing: "Anonymous turned off", browser))
                }
                let anonymous = try await call("signUp", [:])
                #expect((anonymous["error"] as? [String: Any])?["message"] as? String != nil && anonymous["idToken"] == nil,
                        "anonymous sign-in is off: \(anonymous)")
                // User actions: with sign-up off, an end user's sign-up is the administrator's alone; then back on.
                try await Self.openSettings("user-actions", base, browser)
                try await browser.click("#set-user-signup")
                try await browser.click("#save-settings")
                #expect(try await Self.waitForText("#status", containing: "User actions saved", browser))
                let refusedSignUp = try await call("signUp", ["email": "late@example.com", "password": "secret1"])
                #expect((refusedSignUp["error"] as? [String: Any])?["message"] as? String == "ADMIN_ONLY_OPERATION", "\(refusedSignUp)")
                #expect(try await store.project(id: "console-project")?.settings.declared.bool(.disabledUserSignup) == true)
                _ = try await browser.evaluate("document.querySelector('#status').textContent = '';")  // the last save said the same
                try await browser.click("#set-user-signup")
                try await browser.click("#save-settings")
                #expect(try await Self.waitForText("#status", containing: "User actions saved", browser))
                #expect(try await store.project(id: "console-project")?.settings.declared.bool(.disabledUserSignup) == false)
                try await Self.openSettings("passwords", base, browser)
                #expect(try await Self.waitForText("#hash-config", containing: "SCRYPT", browser), "the password hash parameters")
                // A password policy from the console: a weak sign-up is then refused with what it lacks.
                try await browser.evaluate("""
                    document.querySelector('#set-policy').checked = true;
                    document.querySelector('#set-policy-min').value = '10';
                    document.querySelector('#set-policy-upper').checked = true;
                    """)
                try await browser.click("#save-passwords")
                #expect(try await Self.waitForText("#status", containing: "Password settings saved", browser))
                let weak = try await call("signUp", ["email": "weak@example.com", "password": "lowercase"])
                #expect((weak["error"] as? [String: Any])?["message"] as? String
                        == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain at least 10 characters, Password must contain an upper case character]",
                        "\(weak)")
                #expect(try await store.project(id: "console-project")?.settings.passwordPolicy?.minLength == 10)
                // Abuse controls: CAPTCHA enforcement needs a provider first (the console says so); SMS regions save.
                try await Self.openSettings("abuse", base, browser)
                try await browser.evaluate("document.querySelector('#set-captcha-email').value = 'ENFORCE';")
                try await browser.click("#save-abuse")
                #expect(try await Self.waitForText("#status", containing: "No CAPTCHA provider is configured", browser))
                try await browser.evaluate("""
                    document.querySelector('#set-captcha-email').value = 'OFF';
                    document.querySelector('#set-sms-mode').value = 'allow';
                    document.querySelector('#set-sms-regions').value = 'us, ca';
                    """)
                try await browser.click("#save-abuse")
                #expect(try await Self.waitForText("#status", containing: "Abuse controls saved", browser))
                // The passkeys' relying party: a bad origin is refused with the server's reason, a good one saved.
                try await Self.openSettings("passkeys", base, browser)
                try await browser.evaluate("""
                    document.querySelector('#set-rp-id').value = 'example.com';
                    document.querySelector('#set-rp-origins').value = 'https://evil.test';
                    """)
                try await browser.click("#save-passkeys")
                #expect(try await Self.waitForText("#status", containing: "is not an origin of example.com", browser))
                try await browser.evaluate("document.querySelector('#set-rp-origins').value = 'https://example.com, https://app.example.com';")
                try await browser.click("#save-passkeys")
                #expect(try await Self.waitForText("#status", containing: "Passkey settings saved", browser))
                #expect(try await store.project(id: "console-project")?.settings.passkeys
                        == PasskeyConfig(rpID: "example.com", expectedOrigins: ["https://example.com", "https://app.example.com"],
                                         requireUserVerification: true))
                #expect(try await store.project(id: "console-project")?.settings.smsRegions == .allowlistOnly(allowed: ["US", "CA"]))
                #expect(try await browser.evaluate("return document.querySelector('#set-sms-regions').value") as? String == "US,CA")
                try await Self.openSettings("tenants", base, browser)
                try await browser.type("Acme", into: "#tenant-name")
                try await browser.click("#create-tenant")
                #expect(try await Self.waitForText("#status", containing: "Tenant acme-", browser))
                #expect(try await store.tenants(projectID: "console-project", after: nil, limit: 5).first?.displayName == "Acme")
                try await Self.openSettings("functions", base, browser)
                #expect(try await Self.waitForText("#hooks-list", containing: "beforeSendSms: https://before-sms-abc-uc.a.run.app", browser))
                // Sign-in method: a SAML provider is listed with its identity provider, and turned on from its switch.
                try await browser.click("nav button[data-view=sign-in-method]")
                #expect(try await Self.waitForText("#method-rows", containing: "saml.corp (SAML)", browser))
                #expect(try await Self.waitForText("tr[data-method='saml.corp (SAML)']", containing: "https://idp.corp.example", browser))
                try await browser.click("tr[data-method='saml.corp (SAML)'] input")
                #expect(try await Self.waitForText("#status", containing: "saml.corp turned on", browser))
                #expect(try await store.project(id: "console-project")?.settings.identityProviders?["saml.corp"]?.enabled == true)
                // A provider's client id and (write-only) secret edited, then turned on from its switch.
                try await browser.click("tr[data-method=GitHub] .setup")
                #expect(try await Self.waitForText("#provider-form-title", containing: "Edit GitHub", browser))
                _ = try await browser.evaluate("document.querySelector('#provider-client-id').value = ''")
                try await browser.type("gh-app-2", into: "#provider-client-id")
                try await browser.type("gh-secret-2", into: "#provider-secret")
                try await browser.click("#add-provider")
                #expect(try await Self.waitForText("#status", containing: "github.com saved", browser))
                try await browser.click("tr[data-method=GitHub] input")
                #expect(try await Self.waitForText("#status", containing: "github.com turned on", browser))
                let github = try #require(try await store.project(id: "console-project")?.settings.identityProviders?["github.com"])
                #expect(github.clientId == "gh-app-2" && github.clientSecret == "gh-secret-2" && github.enabled)
                #expect(!(try await browser.pageSource()).contains("gh-secret-2"), "the secret is never shown back")
                // A provider set up from scratch: Google, then an OpenID Connect issuer; secrets stay write-only.
                try await browser.click("tr[data-method=Google] .setup")
                try await browser.type("google-client.apps.googleusercontent.com", into: "#provider-client-id")
                try await browser.type("google-secret-1", into: "#provider-secret")
                try await browser.click("#add-provider")
                #expect(try await Self.waitForText("#status", containing: "google.com added and turned on", browser))
                try await browser.click("tr[data-method='OpenID Connect'] .setup")
                try await browser.type("acme", into: "#provider-oidc-name")
                try await browser.type("https://login.acme.example", into: "#provider-issuer")
                try await browser.type("acme-client", into: "#provider-client-id")
                try await browser.type("acme-secret-1", into: "#provider-secret")
                try await browser.click("#add-provider")
                #expect(try await Self.waitForText("#status", containing: "oidc.acme added and turned on", browser))
                let providers = try await store.project(id: "console-project")?.settings.identityProviders ?? [:]
                #expect(providers["google.com"]?.enabled == true && providers["google.com"]?.clientSecret == "google-secret-1")
                #expect(providers["oidc.acme"]?.issuer == "https://login.acme.example" && providers["oidc.acme"]?.clientSecret == "acme-secret-1")
                let source = try await browser.pageSource()
                #expect(!source.contains("google-secret-1") && !source.contains("acme-secret-1"), "secrets are never shown back")
                try await Self.openSettings("mfa", base, browser)
                try await browser.click("#set-mfa-totp")
                try await browser.click("#save-mfa")
                #expect(try await Self.waitForText("#status", containing: "Second factors saved", browser))
                #expect(try await store.project(id: "console-project")?.settings.mfa?.providers.contains(.totp) == true)
                // An email template drafted and previewed as it is typed, in the engine the server sends with (saving it is
                // ConsoleSettingsBrowserTests').
                try await Self.openSettings("templates", base, browser)
                #expect(try await Self.waitForText("#preview-subject", containing: "console-project", browser))
                try await browser.type("Hello from {{appName}}", into: "#tpl-subject")
                #expect(try await Self.waitForText("#preview-subject", containing: "Hello from console-project", browser))
                #expect(try await Self.waitForText("#tpl-state", containing: "Hearth's own text", browser), "typed, not saved")

                // A service account: created (its key file downloaded once), then its key calls the admin API.
                try await Self.openSettings("service-accounts", base, browser)
                try await browser.type("ci-backend", into: "#account-name")
                try await browser.click("#create-account")
                #expect(try await Self.waitForText("#status", containing: "Created ci-backend@console-project", browser))
                let accounts = try #require(try await store.project(id: "console-project")?.serviceAccounts)
                #expect(accounts.map(\.name) == ["ci-backend"] && !accounts[0].publicKeyPEM.isEmpty)
                try await Self.openSettings("passwords", base, browser)
                try await picture("settings")

                // A given-up email in the outbox, retried from the console; its code never reaches the page. The outbox
                // kept no code once it gave up, so the retry sends the email again with a new one.
                try await store.insertUser(UserRecord(projectID: "console-project", localID: "bounce", email: "bounce@example.com",
                                                      validSince: 0, createdAt: Date()), uniqueEmail: true)
                var failed = OutboxMessage(
                    id: "failed-1", projectID: "console-project", type: .passwordReset, recipient: "bounce@example.com",
                    code: "secret-code-1", link: base + "/__/auth/action?oobCode=secret-code-1", createdAt: Date())
                failed.accountEmail = "bounce@example.com"
                try await store.enqueueOutboxMessage(failed)
                try await store.rescheduleOutboxMessage(id: "failed-1", attempts: 12, nextAttemptAt: nil,
                                                        lastError: "550 mailbox unavailable")
                // A prefix halted for SMS pumping (as the send path halts it: the watch's row and its audit event).
                let clock = SystemClock()
                let watch = SMSPumpingWatch(store: store, limiter: RateLimiter(store: store, clock: clock), clock: clock,
                                            rules: .init(distinctNumbersPerPrefix: .init(limit: 2, window: 600)))
                for number in ["+16505550101", "+16505550102"] { _ = try await watch.admit(number, projectID: "console-project") }
                var started: SMSPumpingWatch.Halt?
                do { _ = try await watch.admit("+16505550103", projectID: "console-project") } catch let halted as SMSPumpingWatch.Halted {
                    started = halted.started
                }
                let halt = try #require(started)
                try await store.insertAuditEvent(AuditEvent(
                    id: "halt-1", projectID: "console-project", at: halt.since, kind: SMSPumpingWatch.auditKind, localID: nil,
                    outcome: .failure, clientAddress: nil, details: ["prefix": halt.prefix, "numbers": "2"]))
                try await browser.click("nav button[data-view=outbox]")
                #expect(try await Self.waitForText("#outbox-rows", containing: "550 mailbox unavailable", browser))
                #expect(!(try await browser.pageSource()).contains("secret-code-1"), "codes and links stay out of the console")
                #expect(try await Self.waitForText("#halts-rows", containing: "+1650555", browser))
                try await browser.click(".lift")
                #expect(try await Self.waitForText("#status", containing: "are sent again", browser))
                #expect(try await watch.halt(covering: "+16505550103", projectID: "console-project") == nil, "lifted in the store")
                try await picture("outbox")
                try await browser.click("nav button[data-view=events]")
                #expect(try await Self.waitForText("#endpoints-list", containing: "http://127.0.0.1:9/hook (user.created)", browser))
                #expect(try await Self.waitForText("#events-rows", containing: "user.created", browser), "the console-made user's event")
                #expect(try await Self.waitForText("#events-rows", containing: "retrying", browser))
                #expect(!(try await browser.pageSource()).contains(endpoint.secret), "the signing secret stays out of the console")
                try await browser.click("nav button[data-view=outbox]")
                try await browser.click(".retry")
                #expect(try await Self.waitForText("#status", containing: "will be tried again", browser))
                let outbox = try await store.outboxStatus(projectID: "console-project", limit: 10)
                let resent = outbox.first { $0.message.recipient == "bounce@example.com" }
                #expect(!outbox.contains { $0.message.id == "failed-1" }, "the given-up row is replaced")
                #expect(resent?.nextAttemptAt != nil && resent?.message.code.isEmpty == false && resent?.message.code != "secret-code-1",
                        "sent again with a new code: \(String(describing: resent))")

                // The dashboard counts today's sign-ins, sign-ups and failures from the audit log.
                try await browser.click("nav button[data-view=dashboard]")
                #expect(try await Self.waitForText("#totals", containing: "sign-ins", browser))
                let today = try await browser.text(of: "#day-rows tr")
                let numbers = today.split(separator: " ").compactMap { Int($0) }
                #expect(numbers.count == 4 && numbers[0] >= 2 && numbers[1] >= 1 && numbers[2] >= 1,
                        "today: sign-ins, sign-ups, failures, active users: \(today)")
                #expect((try await browser.evaluate("return document.querySelectorAll('#chart rect').length") as? Int) == 42,
                        "14 days, three bars each")
                #expect(try await Self.waitForText("#provider-rows", containing: "password", browser), "sign-ins by provider")
                try await picture("dashboard")

                // The audit log shows what the operator did.
                try await browser.click("nav button[data-view=audit]")
                #expect(try await Self.waitForText("#audit-rows", containing: "console:ops@example.com", browser))
                let auditWidth = try await browser.evaluate("return document.documentElement.scrollWidth") as? Int
                #expect((auditWidth ?? 9999) <= 1280, "the audit table fits 1280 px: \(auditWidth ?? -1)")
                // An address opens its view directly, as a bookmark does.
                try await browser.open(base + "/console#/outbox")
                #expect(try await Self.waitForText("#outbox-title", containing: "Outbox", browser))
                #expect(try await browser.evaluate("return document.querySelector('#outbox').hidden") as? Bool == false)
                // A hand-typed address with a broken escape falls back to the users list instead of failing.
                try await browser.open(base + "/console#/users/%zz")
                #expect(try await Self.waitForText("#caption", containing: "All users", browser))

                let events = try await store.auditEvents(projectID: "console-project", AuditQuery(limit: 20))
                #expect(events.filter { $0.kind == "admin-call" && $0.details["actor"] == "console:" + Self.operatorEmail }.count >= 2)
                _ = uid
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// One client call (`accounts:NAME`) with the console project's API key: its JSON reply.
    static func call(_ base: String, _ name: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + "/identitytoolkit.googleapis.com/v1/accounts:\(name)?key=console-key")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// Opens a settings section by its address and waits until its fields hold the stored values (a field changed
    /// before would be overwritten by the load).
    static func openSettings(_ section: String, _ base: String, _ browser: Browser) async throws {
        try await browser.open(base + "/console#/settings/" + section)
        let loaded = await eventually {
            (try? await browser.evaluate("return document.querySelector('#settings').dataset.loaded === 'true' && !document.querySelector('#settings-\(section)').hidden") as? Bool) == true
        }
        if !loaded { Issue.record("settings section \(section) never loaded: \(try await browser.text(of: "#status", timeout: 1))") }
    }

    /// Waits until the element's text contains `expected` (the console updates asynchronously).
    static func waitForText(_ selector: String, containing expected: String, _ browser: Browser) async throws -> Bool {
        if await eventually({ (try? await browser.text(of: selector, timeout: 1))?.contains(expected) == true }) { return true }
        Issue.record("\(selector) never showed \(expected): \(try await browser.text(of: "#status", timeout: 1))")
        return false
    }
}
