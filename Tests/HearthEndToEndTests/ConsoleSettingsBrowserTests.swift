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
import HummingbirdTesting
import Testing

/// The console's parts that Firebase's Authentication section has and ConsoleBrowserTests does not drive: the
/// Dashboard first, every sign-in method in one list with the SMS warning, settings one section per address, a
/// setting the environment pins shown read-only (and refused by the API), authorized domains added and removed, the
/// delivery status, email templates edited per language (saved, sent as a test, pinned, reset), one date format,
/// users named by email in the audit log, custom-token users labelled, and no email or uid broken mid-word at 1280 px.
@Suite(.enabled(if: Browser.unavailableReason() == nil, "needs chromium: \(Browser.unavailableReason() ?? "")"),
       .enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd: \(SMTPSink.unavailableReason() ?? "")"))
struct ConsoleSettingsBrowserTests {
    @Test func theConsoleDoesWhatFirebasesAuthenticationSectionDoes() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: "console-project", apiKey: "console-key").record
        let secret = TOTP.newSecret()
        record.consoleAdmins = [ConsoleAdminRecord(
            email: ConsoleBrowserTests.operatorEmail,
            passwordHash: try PasswordHash.firebaseScrypt(password: ConsoleBrowserTests.password, parameters: record.hashConfig),
            totpSecret: Base32.encode(secret), createdAt: Date())]
        record.settings[.phoneSignIn] = false  // as a new production project starts
        try await store.updateProject(record)
        // A user who signed in with a custom token only, and one with a long email and uid.
        var custom = UserRecord(projectID: "console-project", localID: "custom-token-user", validSince: 0, createdAt: Date())
        custom.customAuth = true
        try await store.insertUser(custom, uniqueEmail: true)
        var configuration = ServerConfiguration(port: 0, projectID: "console-project", initialAPIKey: "console-key")
        configuration.rateLimits.enabled = false
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 10), from: "noreply@console.test",
            templates: ["de": ["PASSWORD_RESET": .init(subject: "Aus der Datei")]])
        // Pinned by the environment, as `hearth serve` records it.
        configuration.emailEnumerationProtection = true
        configuration.identityProviders = ["apple.com": IdentityProviderConfig(enabled: true, clientId: "com.example.app")]
        configuration.settingSources = ["emailEnumerationProtection": "HEARTH_EMAIL_ENUMERATION_PROTECTION",
                                        "identityProviders": "the config file"]
        let app = try await buildApplication(configuration: configuration, store: store, hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) })
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)"
            func call(_ name: String, _ body: [String: Any]) async throws -> [String: Any] { try await ConsoleBrowserTests.call(base, name, body) }
            let long = try await call("signUp", ["email": "a.rather.long.address.for.a.table.cell@subdomain.example.com",
                                                 "password": "secret123", "returnSecureToken": true])
            let longUID = try #require(long["localId"] as? String, "\(long)")
            _ = try await call("signInWithPassword", ["email": "a.rather.long.address.for.a.table.cell@subdomain.example.com",
                                                      "password": "secret123"])

            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.setWindowSize(width: 1280, height: 900)
            let pictures = ProcessInfo.processInfo.environment["HEARTH_SCREENSHOTS"]
            func picture(_ name: String) async throws {
                guard let pictures else { return }
                try await browser.screenshot().write(to: URL(fileURLWithPath: pictures).appendingPathComponent("console-\(name).png"))
            }
            func wait(_ selector: String, _ text: String) async throws -> Bool {
                try await ConsoleBrowserTests.waitForText(selector, containing: text, browser)
            }
            try await browser.open(base + "/console")
            _ = try await wait("#signin-title", "Sign in")
            try await browser.type(ConsoleBrowserTests.operatorEmail, into: "#email")
            try await browser.type(ConsoleBrowserTests.password, into: "#password")
            try await browser.type(TOTP.code(secret: secret, at: Date()), into: "#code")
            try await browser.click("#signin-submit")

            // The landing view is the Dashboard, with sign-ins per provider.
            #expect(try await wait("#totals", "sign-ins"))
            #expect(try await browser.evaluate("return document.querySelector('#dashboard').hidden") as? Bool == false)
            #expect(try await wait("#provider-rows", "password"))

            // Sign-in method: every provider in one list; phone on without an SMS provider is warned about.
            try await browser.click("nav button[data-view=sign-in-method]")
            #expect(try await wait("#method-rows", "Game Center"))
            let names = try await browser.evaluate("return [...document.querySelectorAll('#method-rows .method-name')].map((c) => c.textContent)") as? [String] ?? []
            for name in ["Email/Password", "Phone", "Anonymous", "Passkeys", "Google", "Apple", "Facebook", "GitHub", "Microsoft",
                         "Twitter", "Yahoo", "Game Center", "OpenID Connect", "SAML"] {
                #expect(names.contains(name), "\(name) is listed: \(names)")
            }
            #expect(try await wait("tr[data-method='Email/Password']", "Email link"))
            #expect(try await browser.evaluate("return document.querySelector('#sms-warning').hidden") as? Bool == true)
            try await browser.click("tr[data-method=Phone] input")
            #expect(try await wait("#status", "Phone turned on"))
            #expect(try await wait("#sms-warning", "Phone sign-in needs an SMS provider"))
            #expect(try await wait("tr[data-method=Phone]", "no SMS provider is set"))
            // A provider the config file sets is read-only here, and so is it for the admin API.
            #expect(try await wait("tr[data-method=Apple]", "set by the config file"))
            #expect(try await browser.evaluate("return document.querySelector('tr[data-method=Apple] input').disabled") as? Bool == true)
            #expect(try await browser.evaluate("return document.querySelector('tr[data-method=Apple] .setup').disabled") as? Bool == true)
            let providerPatch = try await browser.evaluate("""
                return fetch('/identitytoolkit.googleapis.com/v2/projects/console-project/defaultSupportedIdpConfigs/apple.com?updateMask=enabled',
                  { method: 'PATCH', headers: { 'Content-Type': 'application/json', 'X-Hearth-CSRF': state.csrf }, credentials: 'same-origin',
                    body: JSON.stringify({ enabled: false }) }).then((r) => r.text());
                """) as? String ?? ""
            #expect(providerPatch.contains("apple.com is set by the config file"), "\(providerPatch)")
            // Email link off: a password becomes required.
            try await browser.click("#set-email-link")
            #expect(try await wait("#status", "Email link sign-in turned off"))
            #expect(try await store.project(id: "console-project")?.settings.declared.bool(.emailLinkSignIn) == false)
            try await picture("sign-in-method")

            // Settings: one section per address, each with its own Save; the pinned switch is read-only, with its source.
            try await ConsoleBrowserTests.openSettings("user-actions", base, browser)
            #expect(try await wait("#settings-user-actions", "set by HEARTH_EMAIL_ENUMERATION_PROTECTION"))
            #expect(try await browser.evaluate("return document.querySelector('#set-privacy').disabled") as? Bool == true)
            let visible = try await browser.evaluate("return [...document.querySelectorAll('#settings .panel')].filter((p) => !p.hidden).map((p) => p.id)") as? [String]
            #expect(visible == ["settings-user-actions"], "one section at a time: \(visible ?? [])")
            let saves = try await browser.evaluate("return document.querySelectorAll('#settings .panel:not([hidden]) button[id^=save]').length") as? Int
            #expect(saves == 1, "one Save per section")
            // The admin API refuses it too, saying where it is set: a change would come undone at the next start.
            let patch = try await browser.evaluate("""
                return fetch('/identitytoolkit.googleapis.com/v2/projects/console-project/config?updateMask=emailPrivacyConfig.enableImprovedEmailPrivacy',
                  { method: 'PATCH', headers: { 'Content-Type': 'application/json', 'X-Hearth-CSRF': state.csrf }, credentials: 'same-origin',
                    body: JSON.stringify({ emailPrivacyConfig: { enableImprovedEmailPrivacy: false } }) }).then((r) => r.text());
                """) as? String ?? ""
            #expect(patch.contains("set by HEARTH_EMAIL_ENUMERATION_PROTECTION"), "\(patch)")

            // Authorized domains: added (a continue URL there is then accepted), removed (then refused).
            try await ConsoleBrowserTests.openSettings("domains", base, browser)
            #expect(try await wait("#domains-list", "localhost"))
            try await browser.type("app.example.com", into: "#domain-name")
            try await browser.click("#add-domain")
            #expect(try await wait("#status", "app.example.com added"))
            #expect(try await store.project(id: "console-project")?.settings.authorizedDomains == ["localhost", "127.0.0.1", "app.example.com"])
            let accepted = try await call("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com",
                                                          "continueUrl": "https://app.example.com/done"])
            #expect(accepted["error"] == nil, "\(accepted)")
            try await browser.type("https://bad.example.com/path", into: "#domain-name")
            try await browser.click("#add-domain")
            #expect(try await wait("#status", "is not a domain"))
            _ = try await browser.evaluate("window.confirm = () => true;")
            try await browser.click("#domains-list li:last-child .remove-domain")
            #expect(try await wait("#status", "app.example.com removed"))
            let refused = try await call("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com",
                                                         "continueUrl": "https://app.example.com/done"])
            #expect(((refused["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("UNAUTHORIZED_DOMAIN") == true, "\(refused)")

            // Email and SMS: what is set, and what is not.
            try await ConsoleBrowserTests.openSettings("delivery", base, browser)
            #expect(try await wait("#smtp-status", "127.0.0.1:\(sink.port)"))
            #expect(try await wait("#smtp-status", "noreply@console.test"))
            #expect(try await wait("#sms-status", "none: phone sign-in and SMS second factors cannot send codes"))

            // Email templates: one edited in French, previewed as typed, saved, sent as a test, shown again after a
            // reload; the config file's German one read-only; Hearth's text back after a reset.
            func chooseLocale(_ code: String) async throws {
                _ = try await browser.evaluate("""
                    const select = document.querySelector('#tpl-locale'); select.value = '\(code)';
                    select.dispatchEvent(new Event('change')); return select.value;
                    """)
            }
            try await ConsoleBrowserTests.openSettings("templates", base, browser)
            #expect(try await wait("#preview-subject", "console-project"))
            try await chooseLocale("fr")
            #expect(try await wait("#tpl-state", "Hearth's own text"))
            try await browser.type("Équipe Console", into: "#tpl-from-name")
            try await browser.type("Réinitialisez {{appName}}", into: "#tpl-subject")
            try await browser.type("Lien : {{link}}", into: "#tpl-text")
            #expect(try await wait("#preview-subject", "Réinitialisez console-project"))
            #expect(try await wait("#preview-from", "Équipe Console <noreply@console.test>"))
            #expect(try await wait("#preview-text", "Lien : http"))
            try await browser.click("#tpl-save")
            #expect(try await wait("#status", "Template saved: PASSWORD_RESET in fr"))
            let saved = try await store.project(id: "console-project")?.settings.emailTemplates?["fr"]?["PASSWORD_RESET"]
            #expect(saved == EmailTemplate(fromName: "Équipe Console", subject: "Réinitialisez {{appName}}", text: "Lien : {{link}}"))
            try await browser.type("ops@example.com", into: "#tpl-test-to")
            try await browser.click("#tpl-test")
            #expect(try await wait("#status", "The test email was sent"))
            await eventually { (try? sink.messages())?.contains { $0.recipients == ["ops@example.com"] } == true }
            let test = try #require(try sink.messages().first { $0.recipients == ["ops@example.com"] })
            #expect(test.subject == "Réinitialisez console-project" && test.from.contains("Équipe Console"), "\(test.subject) from \(test.from)")
            #expect(test.text?.hasPrefix("Lien : http") == true)
            _ = try await browser.evaluate("document.querySelector('#tpl-type').scrollIntoView(); return true")
            try await picture("templates")
            try await browser.open(base + "/console")  // a new page: what it shows comes from the store
            #expect(try await wait("#totals", "sign-ins"))
            try await ConsoleBrowserTests.openSettings("templates", base, browser)
            try await chooseLocale("fr")
            #expect(try await wait("#tpl-state", "Customized"))
            #expect(try await browser.evaluate("return document.querySelector('#tpl-subject').value") as? String == "Réinitialisez {{appName}}")
            try await chooseLocale("de")
            #expect(try await wait("#tpl-state", "Set by the config file (email.templates)"))
            #expect(try await browser.evaluate("return document.querySelector('#tpl-fields').disabled") as? Bool == true)
            #expect(try await wait("#preview-subject", "Aus der Datei"))
            try await chooseLocale("fr")
            try await browser.click("#tpl-reset")
            #expect(try await wait("#status", "Hearth's own text is used again"))
            #expect(try await store.project(id: "console-project")?.settings.emailTemplates == nil)
            #expect(try await browser.evaluate("return document.querySelector('#tpl-subject').value") as? String == "")

            // Users: the custom-token user is labelled so; emails and uids stay on one line at 1280 px.
            try await browser.click("nav button[data-view=users]")
            try await browser.click("#all")
            #expect(try await wait("#rows", "(custom token)"))
            #expect(try await wait("#rows", longUID))
            let broken = try await browser.evaluate("""
                return [...document.querySelectorAll('#rows td.email, #rows td.uid')].filter((cell) => {
                  const range = document.createRange(); range.selectNodeContents(cell);
                  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
                }).map((cell) => cell.textContent);
                """) as? [String]
            #expect(broken == [], "cells broken across lines: \(broken ?? [])")
            #expect((try await browser.evaluate("return document.documentElement.scrollWidth") as? Int ?? 9999) <= 1280)
            try await picture("users")

            // One date format everywhere, with its zone.
            let dates = try await browser.evaluate("""
                return [...document.querySelectorAll('#rows td')].map((c) => c.textContent).filter((t) => /^[0-9]{4}-/.test(t));
                """) as? [String] ?? []
            #expect(!dates.isEmpty && dates.allSatisfy { $0.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$"#, options: .regularExpression) != nil },
                    "\(dates)")

            // The audit log names users by email (with the uid a hover away), and finds them by email.
            try await browser.click("nav button[data-view=audit]")
            #expect(try await wait("#audit-rows", "a.rather.long.address.for.a.table.cell@subdomain.example.com"))
            let times = try await browser.evaluate("return [...document.querySelectorAll('#audit-rows td.time')].map((c) => c.textContent)") as? [String] ?? []
            #expect(!times.isEmpty && times.allSatisfy { $0.hasSuffix(" UTC") }, "\(times)")
            try await browser.type("a.rather.long.address.for.a.table.cell@subdomain.example.com", into: "#audit-uid")
            try await browser.click("#audit-search")
            await eventually {
                let users = try? await browser.evaluate("return [...document.querySelectorAll('#audit-rows td:nth-child(6)')].map((c) => c.textContent)") as? [String]
                return users.map { !$0.isEmpty && $0.allSatisfy { $0 == "a.rather.long.address.for.a.table.cell@subdomain.example.com" } } ?? false
            }
            let rows = try await browser.evaluate("return [...document.querySelectorAll('#audit-rows td:nth-child(6)')].map((c) => c.textContent)") as? [String] ?? []
            #expect(!rows.isEmpty && Set(rows) == ["a.rather.long.address.for.a.table.cell@subdomain.example.com"], "\(rows)")
            try await picture("audit")
        }
        try await store.close()
    }
}
