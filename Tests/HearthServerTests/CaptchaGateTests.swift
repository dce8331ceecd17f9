import Foundation
import HearthCore
@testable import HearthServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import HearthWire
import Testing

/// `recaptchaConfig` enforcement with a CAPTCHA provider, against a stand-in `siteverify` on loopback that answers as
/// Turnstile, hCaptcha and reCAPTCHA do: tokens are single use, a wrong secret fails, v3 tokens carry a score.
@Suite struct CaptchaGateTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
    static let tenant = "/identitytoolkit.googleapis.com/v2/projects/demo-project/tenants/acme-a1b2c"

    /// Runs `body` with a Hearth app whose `captcha` provider is the stand-in (`path` on it: `/siteverify`, or
    /// `/broken`, a provider answering 502).
    static func withProvider(_ provider: CaptchaProviderSettings.Provider = .turnstile, path: String = "/siteverify",
                             configure: @escaping @Sendable (inout CaptchaProviderSettings) -> Void = { _ in },
                             _ body: @escaping @Sendable (TestApp, ServiceAccountSigner, Client, StandInVerifier) async throws -> Void)
        async throws {
        let verifier = StandInVerifier()
        let standIn = Application(router: verifier.router(),
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await standIn.test(.live) { live in
            var app = CredentialGuardsTests.productionApp()
            app.configuration.captcha = CaptchaProviderSettings(
                provider: provider, siteKey: "site-key-1", secret: "test-secret",
                verifyURL: "http://127.0.0.1:\(live.port!)\(path)")
            // The stand-in answers at once, but a loaded machine can starve any loopback call for seconds.
            app.configuration.captcha!.timeout = .seconds(60)
            configure(&app.configuration.captcha!)
            let signer = try await CredentialGuardsTests.register(app)
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
            let ready = app
            try await ready.run { client in try await body(ready, signer, client, verifier) }
        }
    }

    static func enforce(_ field: String, _ state: String, at path: String = config, _ client: Client, _ app: TestApp,
                        _ signer: ServiceAccountSigner) async throws -> Reply {
        try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, path + "?updateMask=recaptchaConfig.\(field)",
                                            ["recaptchaConfig": [field: state]])
    }

    @Test func enforcementNeedsAProvider() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let refused = try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer)
            #expect(refused.errorMessage?.hasPrefix("INVALID_CONFIG") == true && refused.text.contains("captcha"), "\(refused.text)")
            let off = try await Self.enforce("emailPasswordEnforcementState", "OFF", client, app, signer)
            #expect(off.errorMessage == nil, "\(off.text)")
            let probe = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/recaptchaConfig")
            let states = probe["recaptchaEnforcementState"] as? [[String: String]]
            #expect(states?.allSatisfy { $0["enforcementState"] == "OFF" } == true && (probe["recaptchaKey"] as? String)?.hasSuffix("/keys/none") == true,
                    "\(probe.text)")
        }
    }

    /// Sign-up, password sign-in (by both of its names) and the unauthenticated emails need a passing token; anonymous
    /// sign-up, a signed-in user's verification email and admin calls do not.
    @Test func enforcedEmailPasswordRoutes() async throws {
        try await Self.withProvider { app, signer, client, verifier in
            let set = try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer)
            #expect((set["recaptchaConfig"] as? [String: String])?["emailPasswordEnforcementState"] == "ENFORCE", "\(set.text)")
            let probe = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/recaptchaConfig")
            #expect(probe["recaptchaEnforcementState"] as? [[String: String]] == [
                ["provider": "EMAIL_PASSWORD_PROVIDER", "enforcementState": "ENFORCE"],
                ["provider": "PHONE_PROVIDER", "enforcementState": "OFF"]], "\(probe.text)")
            #expect((probe["recaptchaKey"] as? String)?.hasSuffix("/keys/site-key-1") == true && probe["captchaProvider"] as? String == "turnstile")

            let account = ["email": "ada@example.com", "password": "secret123", "returnSecureToken": true] as [String: Any]
            let signUp = Endpoints.signUp.path
            #expect(try await client.post(signUp, account).errorMessage == "MISSING_RECAPTCHA_TOKEN")
            #expect(try await client.post(signUp, account.merging(["captchaResponse": "bot"]) { $1 }).errorMessage == "INVALID_RECAPTCHA_TOKEN")
            let created = try await client.post(signUp, account.merging(["captchaResponse": "human-1", "clientType": "CLIENT_TYPE_WEB",
                                                                         "recaptchaVersion": "RECAPTCHA_ENTERPRISE"]) { $1 })
            let idToken = try #require(created["idToken"] as? String, "\(created.text)")
            #expect(verifier.received.last?["secret"] == "test-secret" && verifier.received.last?["response"] == "human-1")

            let signIn = Endpoints.signInWithPassword.path
            let replayed = try await client.post(signIn, account.merging(["captchaResponse": "human-1"]) { $1 })
            #expect(replayed.errorMessage == "INVALID_RECAPTCHA_TOKEN", "a used token is not trusted again: \(replayed.text)")
            #expect(try await client.post(signIn, account.merging(["captchaResponse": "human-2"]) { $1 })["idToken"] != nil)
            let legacy = try await client.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword", account)
            #expect(legacy.errorMessage == "MISSING_RECAPTCHA_TOKEN", "the v3 name checks too: \(legacy.text)")
            let inTenant = try await client.post(signUp, ["email": "bob@example.com", "password": "secret123", "tenantId": "acme-a1b2c"])
            #expect(inTenant.errorMessage == "MISSING_RECAPTCHA_TOKEN", "a tenant without its own setting follows the project")

            let oob = Endpoints.sendOobCode.path
            #expect(try await client.post(oob, ["requestType": "PASSWORD_RESET", "email": "ada@example.com"]).errorMessage
                    == "MISSING_RECAPTCHA_TOKEN")
            #expect(try await client.post(oob, ["requestType": 1, "email": "ada@example.com"]).errorMessage == "MISSING_RECAPTCHA_TOKEN",
                    "the proto number of PASSWORD_RESET too")
            #expect(try await client.post(oob, ["requestType": "PASSWORD_RESET", "email": "ada@example.com",
                                                "captchaResponse": "human-3"])["email"] != nil)
            #expect(try await client.post(oob, ["requestType": "VERIFY_EMAIL", "idToken": idToken])["email"] != nil,
                    "a signed-in user's verification email needs none")
            #expect(try await client.post(signUp, ["returnSecureToken": true])["idToken"] != nil, "anonymous sign-up needs none")
            let admin = try await PasswordPolicyRoutesTests.admin(client, app, signer, .post,
                                                            "\(Self.v1)/projects/demo-project/accounts", ["email": "eve@example.com"])
            #expect(admin["localId"] != nil, "admin calls are exempt: \(admin.text)")

            let audited = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["captcha-failed"], limit: 10))
            #expect(audited.count == 2 && audited.allSatisfy { $0.details["mode"] == "ENFORCE" && $0.details["scope"] == "emailPassword" },
                    "once per address and window, for the project and for the tenant: \(audited)")
        }
    }

    /// A tenant's own setting wins; `AUDIT` lets requests through and records them; every SMS route is covered,
    /// second factors included (the token inside `phoneEnrollmentInfo`), TOTP enrolment is not.
    @Test func phoneEnforcementAndAuditInATenant() async throws {
        try await Self.withProvider { app, signer, client, verifier in
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                    Self.config + "?updateMask=signIn.phoneNumber.enabled",
                                                    ["signIn": ["phoneNumber": ["enabled": true]]])
            #expect(try await Self.enforce("phoneEnforcementState", "ENFORCE", client, app, signer).errorMessage == nil)
            let tenant = try await Self.enforce("phoneEnforcementState", "AUDIT", at: Self.tenant, client, app, signer)
            #expect((tenant["recaptchaConfig"] as? [String: String])?["phoneEnforcementState"] == "AUDIT", "\(tenant.text)")
            let probe = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/recaptchaConfig?tenantId=acme-a1b2c")
            #expect((probe["recaptchaEnforcementState"] as? [[String: String]])?.last?["enforcementState"] == "AUDIT")

            let send = Endpoints.sendVerificationCode.path
            #expect(try await client.post(send, ["phoneNumber": "+16505550101"]).errorMessage == "MISSING_RECAPTCHA_TOKEN")
            #expect(try await client.post(send, ["phoneNumber": "+16505550101", "recaptchaToken": "human-4"])["sessionInfo"] != nil,
                    "the v2 widget's field")
            let audited = try await client.post(send, ["phoneNumber": "+16505550102", "tenantId": "acme-a1b2c"])
            #expect(audited["sessionInfo"] != nil, "AUDIT lets it through: \(audited.text)")
            let event = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["captcha-failed"], limit: 10))
            #expect(event.map { $0.details["mode"] ?? "" }.sorted() == ["AUDIT", "ENFORCE"] && event.allSatisfy { $0.details["scope"] == "phone" },
                    "recorded, the tenant's apart from the project's: \(event)")

            let mfaStart = Endpoints.startMFAEnrollment.path
            let noToken = try await client.post(mfaStart, ["idToken": "x", "phoneEnrollmentInfo": ["phoneNumber": "+16505550103"]])
            #expect(noToken.errorMessage == "MISSING_RECAPTCHA_TOKEN", "\(noToken.text)")
            let nested = try await client.post(mfaStart, ["idToken": "x", "phoneEnrollmentInfo": [
                "phoneNumber": "+16505550103", "captchaResponse": "human-5"]])
            #expect(nested.errorMessage?.contains("RECAPTCHA") == false, "past the check to the token's own error: \(nested.text)")
            #expect(verifier.received.last?["response"] == "human-5")
            let totp = try await client.post(mfaStart, ["idToken": "x", "totpEnrollmentInfo": [:]])
            #expect(totp.errorMessage?.contains("RECAPTCHA") == false, "TOTP sends no SMS: \(totp.text)")
            let signInStart = try await client.post(Endpoints.startMFASignIn.path,
                                                    ["mfaPendingCredential": "x", "mfaEnrollmentId": "y", "phoneSignInInfo": [:]])
            #expect(signInStart.errorMessage == "MISSING_RECAPTCHA_TOKEN", "\(signInStart.text)")
        }
    }

    /// Verifying a code sends no SMS, so phone enforcement asks no token there (the SDKs' reCAPTCHA Enterprise flows
    /// send one with `sendVerificationCode` only): by either name, a code sent under enforcement signs in.
    @Test func verifyingAPhoneCodeNeedsNoToken() async throws {
        try await Self.withProvider { app, signer, client, _ in
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                    Self.config + "?updateMask=signIn.phoneNumber.testPhoneNumbers",
                                                    ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+15555551000": "123456"]]]])
            #expect(try await Self.enforce("phoneEnforcementState", "ENFORCE", client, app, signer).errorMessage == nil)
            for path in [Endpoints.signInWithPhoneNumber.path, "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber"] {
                let sent = try await client.post(Endpoints.sendVerificationCode.path,
                                                 ["phoneNumber": "+15555551000", "captchaResponse": "human-\(path.count)"])
                let session = try #require(sent["sessionInfo"] as? String, "\(sent.text)")
                let signedIn = try await client.post(path, ["sessionInfo": session, "code": "123456"])
                #expect(signedIn["idToken"] != nil, "\(path): \(signedIn.text)")
            }
        }
    }

    /// With `hostnames` and `action` configured, a token solved on another site or for another action fails, though
    /// the provider calls it a success; without them, both pass as before.
    @Test func hostnameAndActionAreComparedWhenConfigured() async throws {
        let signUp = Endpoints.signUp.path
        try await Self.withProvider(configure: { $0.hostnames = ["app.example.com"]; $0.action = "login" }) { app, signer, client, _ in
            #expect(try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer).errorMessage == nil)
            for (token, passes) in [("human-1", true), ("farm-1", false), ("signup-1", false)] {
                let reply = try await client.post(signUp, ["email": "\(token)@example.com", "password": "secret-1",
                                                           "captchaResponse": token])
                #expect((reply.status == 200) == passes, "\(token): \(reply.text)")
                if !passes { #expect(reply.errorMessage == "INVALID_RECAPTCHA_TOKEN", "\(token): \(reply.text)") }
            }
        }
        try await Self.withProvider { app, signer, client, _ in
            #expect(try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer).errorMessage == nil)
            for token in ["farm-2", "signup-2"] {
                let reply = try await client.post(signUp, ["email": "\(token)@example.com", "password": "secret-1",
                                                           "captchaResponse": token])
                #expect(reply.status == 200, "not configured, not compared: \(reply.text)")
            }
        }
    }

    /// An anonymous session given an email and password through `accounts:update` passes the rule `signUp`'s link
    /// passes; a signed-in password user's profile change does not need a token.
    @Test func anonymousUpgradeThroughUpdateNeedsAToken() async throws {
        try await Self.withProvider { app, signer, client, _ in
            #expect(try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer).errorMessage == nil)
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.config + "?updateMask=signIn.anonymous.enabled",
                                                    ["signIn": ["anonymous": ["enabled": true]]])
            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let idToken = try #require(anonymous["idToken"] as? String, "\(anonymous.text)")
            for path in [Endpoints.update.path, "/www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo"] {
                let refused = try await client.post(path, ["idToken": idToken, "email": "anon@example.com", "password": "secret-1"])
                #expect(refused.errorMessage == "MISSING_RECAPTCHA_TOKEN", "\(path): \(refused.text)")
            }
            let named = try await client.post(Endpoints.update.path, ["idToken": idToken, "displayName": "Ada"])
            #expect(named.status == 200, "no email or password, no token needed: \(named.text)")
            let linked = try await client.post(Endpoints.update.path, ["idToken": idToken, "email": "anon@example.com",
                                                                             "password": "secret-1", "captchaResponse": "human-9"])
            #expect(linked.errorMessage != "MISSING_RECAPTCHA_TOKEN" && linked.errorMessage != "INVALID_RECAPTCHA_TOKEN",
                    "past the check: \(linked.text)")
        }
    }

    /// A provider that cannot answer: `ENFORCE` says 503 (nothing is let through unchecked), `AUDIT` lets it pass.
    @Test func aProviderThatIsDown() async throws {
        try await Self.withProvider(path: "/broken") { app, signer, client, _ in
            _ = try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer)
            let signUp = Endpoints.signUp.path
            let down = try await client.post(signUp, ["email": "ada@example.com", "password": "secret123", "captchaResponse": "human-1"])
            #expect(down.status == 503 && down.errorMessage == "The CAPTCHA check could not be made. Try again later.", "\(down.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "ada@example.com") == nil)
            _ = try await Self.enforce("emailPasswordEnforcementState", "AUDIT", client, app, signer)
            let audit = try await client.post(signUp, ["email": "ada@example.com", "password": "secret123", "captchaResponse": "human-1"])
            #expect(audit["idToken"] != nil, "\(audit.text)")
        }
    }

    /// reCAPTCHA v3 answers a score: below `minScore` (0.5) fails.
    @Test func aLowScoreFails() async throws {
        try await Self.withProvider(.recaptcha) { app, signer, client, _ in
            _ = try await Self.enforce("emailPasswordEnforcementState", "ENFORCE", client, app, signer)
            let signUp = Endpoints.signUp.path
            #expect(try await client.post(signUp, ["email": "ada@example.com", "password": "secret123", "captchaResponse": "score-0.3"])
                .errorMessage == "INVALID_RECAPTCHA_TOKEN")
            let passed = try await client.post(signUp, ["email": "ada@example.com", "password": "secret123", "captchaResponse": "score-0.9"])
            #expect(passed["idToken"] != nil, "\(passed.text)")
        }
    }
}

/// A CAPTCHA provider's `siteverify`, on loopback: `human-…` tokens pass once (then `timeout-or-duplicate`), solved on
/// `app.example.com` for the action `login`; `farm-…` pass, solved on `farm.example.net`; `signup-…` pass for the
/// action `signup`; `score-X` pass with score X; anything else fails; a wrong secret fails everything. `/broken`
/// answers 502.
final class StandInVerifier: @unchecked Sendable {
    private let lock = NSLock()
    private var used: Set<String> = []
    private var requests: [[String: String]] = []
    var received: [[String: String]] { lock.withLock { requests } }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/siteverify") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let reply = self.answer(FormEncoding.decode(String(buffer: body)))
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(data: try JSONSerialization.data(withJSONObject: reply))))
        }
        router.post("/broken") { _, _ -> Response in Response(status: .badGateway) }
        return router
    }

    private func answer(_ fields: [String: String]) -> [String: Any] {
        lock.withLock {
            requests.append(fields)
            guard fields["secret"] == "test-secret" else { return ["success": false, "error-codes": ["invalid-input-secret"]] }
            let token = fields["response"] ?? ""
            if token.hasPrefix("human-") {
                return used.insert(token).inserted ? ["success": true, "hostname": "app.example.com", "action": "login"]
                    : ["success": false, "error-codes": ["timeout-or-duplicate"]]
            }
            if token.hasPrefix("farm-") { return ["success": true, "hostname": "farm.example.net", "action": "login"] }
            if token.hasPrefix("signup-") { return ["success": true, "hostname": "App.Example.com", "action": "signup"] }
            if token.hasPrefix("score-"), let score = Double(token.dropFirst(6)) { return ["success": true, "score": score] }
            return ["success": false, "error-codes": ["invalid-input-response"]]
        }
    }
}
