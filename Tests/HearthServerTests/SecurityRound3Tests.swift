import Foundation
import HearthCore
import HTTPTypes
import Testing

/// Round 3 of the attack on production mode, one abuse per finding that runs in process: codes that crossed from
/// a tenant into the project, custom tokens refused by one name and accepted by another, tokens that outlived their
/// kind or their key, and project writes lost to a cached copy.
@Suite struct SecurityRound3Tests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

    /// A tenant user whose uid is also a project user's asks, naming no tenant, to change their email: the code is
    /// the tenant's, refused where another tenant is named, and run in its own tenant where none is; the project
    /// user's email never changes.
    @Test func aTenantUsersEmailChangeCodeNeverTouchesTheProjectUserWithTheSameUID() async throws {
        let app = TestApp(protection: false)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true))
        try await app.run { client in
            let victim = try #require(try await client.signUp("victim@example.com")["localId"] as? String)
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "attacker@example.com", "password": "secret1", "tenantId": "t-a"])
            // The attacker's tenant account takes the victim's uid (as an import or a custom token could give it).
            var mine = try #require(try await app.store.user(projectID: "demo-project", tenantID: "t-a", email: "attacker@example.com"))
            try await app.store.deleteUser(projectID: "demo-project", tenantID: "t-a", localID: mine.localID)
            mine.localID = victim
            mine.version = nil
            try await app.store.insertUser(mine, uniqueEmail: true)
            let signIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                               ["email": "attacker@example.com", "password": "secret1", "tenantId": "t-a"])
            let idToken = try #require(signIn["idToken"] as? String, "\(signIn.text)")

            let sent = try await client.post(Self.v1 + "/accounts:sendOobCode", [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": idToken, "newEmail": "taken-over@example.com"])
            #expect(sent.status == 200, "\(sent.text)")
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(message.tenantID == "t-a" && message.link.contains("tenantId=t-a"), "the link names the user's tenant: \(message.link)")
            // Naming the project's scope explicitly ("" is none) or another tenant: refused, as Identity Platform does.
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-b", allowPasswordSignup: true))
            for path in [Self.v1 + "/accounts:update", Self.v3 + "/setAccountInfo"] {
                let applied = try await client.post(path, ["oobCode": message.code, "tenantId": "t-b"])
                #expect(applied.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(path): \(applied.text)")
            }
            let project = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: victim))
            #expect(project.email == "victim@example.com", "the project user's email is untouched")
            // Naming none, the code runs in the tenant that sent it: the tenant's user changes, never the project's.
            let inTenant = try await client.post(Self.v3 + "/setAccountInfo", ["oobCode": message.code])
            #expect(inTenant.status == 200, "the code works in its own tenant: \(inTenant.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: "t-a", localID: victim)?.email == "taken-over@example.com")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: victim)?.email == "victim@example.com")
        }
    }

    /// A service account created while the server runs (by `hearth service-accounts create`, straight into the
    /// store) signs custom tokens every name accepts at once, without waiting for the project cache.
    @Test func aNewServiceAccountsCustomTokensWorkOnEveryNameAtOnce() async throws {
        let app = AdminAuthTests.productionApp()
        try await app.run { client in
            _ = try await client.signUp("warm@example.com")  // the project is cached now
            let signer = try await AdminAuthTests.register(app, name: "minted-later")
            for (index, path) in [Self.v3 + "/verifyCustomToken", Self.v1 + "/accounts:signInWithCustomToken"].enumerated() {
                let token = try await signer.customToken(uid: "custom-\(index)")
                let reply = try await client.post(path, ["token": token, "returnSecureToken": true])
                #expect(reply.status == 200, "\(path): \(reply.text)")
            }
            let stranger = try await ServiceAccountSigner(
                keyFile: try ServiceAccountKey.generate(name: "stranger", projectID: "demo-project", now: Date()).keyFileJSON)
            let refused = try await client.post(Self.v3 + "/verifyCustomToken", ["token": try await stranger.customToken(uid: "x")])
            #expect(refused.errorMessage?.hasPrefix("CREDENTIAL_MISMATCH") == true, "\(refused.text)")
        }
    }

    /// ID tokens signed with the project's own key but longer than an hour, or issued after their key retired (a
    /// copy of a retired key), are refused; the key's own earlier tokens still verify.
    @Test func tokensThatOutliveTheirKindOrTheirKeyAreRefused() async throws {
        let app = TestApp()
        try await app.run { client in
            let signUp = try await client.signUp("keys@example.com")
            let genuine = try #require(signUp["idToken"] as? String)
            let localID = try #require(signUp["localId"] as? String)
            let user = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: localID))
            var record = try #require(try await app.store.project(id: "demo-project"))
            let oldKey = record.signingKeys[0]
            let session = SignInSession(signInProvider: "password", authTime: app.clock.now())
            func mint(lifetime: TimeInterval, keys: [SigningKeyRecord], at: Date) throws -> String {
                try IDTokenIssuer(lifetime: lifetime).mint(for: user, session: session, projectID: "demo-project",
                                                           keys: try KeyRing(keys, now: at), now: at)
            }
            func lookup(_ token: String) async throws -> Reply {
                try await client.post(Self.v1 + "/accounts:lookup", ["idToken": token])
            }
            let long = try mint(lifetime: 30 * 86400, keys: [oldKey], at: app.clock.now())
            #expect(try await lookup(long).errorMessage?.hasPrefix("INVALID_ID_TOKEN") == true, "a 30-day ID token")

            // Rotate: a new key signs, the old one retires now.
            var next = try await SigningKey.generate(now: app.clock.now())
            next.activatesAt = app.clock.now() - 1
            record.signingKeys.append(next)
            record.signingKeys[0].retiredAt = app.clock.now()
            try await app.store.updateProject(record)
            app.clock.advance(by: 10)
            #expect(try await lookup(genuine).status == 200, "tokens the old key signed before retiring still verify")
            let forged = try mint(lifetime: 3600, keys: [oldKey], at: app.clock.now())
            #expect(try await lookup(forged).errorMessage?.hasPrefix("INVALID_ID_TOKEN") == true, "signed after its key retired")
            let fresh = try mint(lifetime: 3600, keys: [next], at: app.clock.now())
            #expect(try await lookup(fresh).status == 200, "the new key's tokens verify")
        }
    }

    /// Racing provider-config creations all land, and a write made from a stale copy (a CLI run, another instance)
    /// neither loses nor revives anything.
    @Test func racingProjectWritesAllLand() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        let store = app.store
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let base = "/identitytoolkit.googleapis.com/v2/projects/demo-project/oauthIdpConfigs"
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await client.post("\(base)?oauthIdpConfigId=oidc.race\(index)", [
                            "clientId": "client-\(index)", "issuer": "https://idp\(index).example.com", "enabled": true,
                        ], key: nil, headers: owner).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            let listed = try await client.send(.get, base, key: nil, headers: owner)
            let ids = ((listed["oauthIdpConfigs"] as? [[String: Any]]) ?? []).compactMap { ($0["name"] as? String)?.split(separator: "/").last }
            #expect(Set(ids.map(String.init)) == Set((0..<8).map { "oidc.race\($0)" }), "\(listed.text)")

            // A copy read before a service account was deleted cannot bring its key back.
            var stale = try #require(try await store.project(id: "demo-project"))
            _ = try await client.send(.patch, "/identitytoolkit.googleapis.com/v2/projects/demo-project/config?updateMask=signIn.anonymous.enabled",
                                      ["signIn": ["anonymous": ["enabled": false]]], key: nil, headers: owner)
            stale.serviceAccounts.append(ServiceAccountRecord(name: "revived", clientEmail: "r@x", keyID: "k", publicKeyPEM: "p",
                                                              createdAt: Date()))
            await #expect(throws: StoreError.conflict) { try await store.updateProject(stale) }
            #expect(try await store.project(id: "demo-project")?.settings.anonymousSignInEnabled == false)
        }
    }

    /// A new production project starts with anonymous sign-in off, as Firebase's console creates projects; emulator
    /// mode's has it on; a project stored with it on keeps it across a restart that does not name the switch.
    @Test func anonymousSignInIsOffForNewProductionProjectsOnly() async throws {
        var fresh = AdminAuthTests.productionApp()
        fresh.configuration.anonymousSignIn = nil
        try await fresh.run { client in
            let reply = try await client.post(Self.v1 + "/accounts:signUp", ["returnSecureToken": true])
            #expect(reply.errorMessage == "ADMIN_ONLY_OPERATION", "\(reply.text)")
            let withEmail = try await client.post(Self.v1 + "/accounts:signUp", ["email": "a@example.com", "password": "secret123"])
            #expect(withEmail.status == 200, "only anonymous sign-up is off: \(withEmail.text)")
        }
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.post(Self.v1 + "/accounts:signUp", ["returnSecureToken": true])
            #expect(reply.status == 200, "\(reply.text)")
        }
        // Stored on (as every project made before this default was), then a start whose configuration is silent.
        let store = InMemoryStore()
        var first = TestApp()
        first.configuration.anonymousSignIn = true
        try await TestAppOn(app: first, store: store).run { _ in }
        var restarted = TestApp()
        restarted.configuration.anonymousSignIn = nil
        try await TestAppOn(app: restarted, store: store).run { client in
            let reply = try await client.post(Self.v1 + "/accounts:signUp", ["returnSecureToken": true])
            #expect(reply.status == 200, "stored on, kept on: \(reply.text)")
        }
    }

    /// `passwordRequired` and `signIn.phoneNumber.enabled` are real switches, reported as they are; a PATCH naming a
    /// field Hearth does not change is refused, not answered 200; a new production project starts with phone off.
    @Test func configSwitchesAreRealAndReadOnlyFieldsAreRefused() async throws {
        let app: TestApp = {
            var app = AdminAuthTests.productionApp()
            app.configuration.phoneSignIn = nil  // what a new production project gets
            return app
        }()
        try await app.run { client in
            let signer = try await AdminAuthTests.register(app)  // into the project the server made
            let path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            func admin() async throws -> HTTPFields {
                AdminAuthTests.bearer(try await signer.assertion(audience: AdminAuthTests.audience, now: app.clock.now()))
            }
            func section(_ reply: Reply, _ name: String) -> [String: Any]? {
                ((reply["signIn"] as? [String: Any])?[name]) as? [String: Any]
            }
            let initial = try await client.send(.get, path, key: nil, headers: try await admin())
            #expect(section(initial, "phoneNumber")?["enabled"] as? Bool == false, "\(initial.text)")
            #expect(section(initial, "email")?["passwordRequired"] as? Bool == false, "email links are on")
            let phone = try await client.post(Self.v1 + "/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"])
            #expect(phone.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(phone.text)")

            let patched = try await client.send(
                .patch, path + "?updateMask=signIn.email.passwordRequired,signIn.phoneNumber.enabled",
                ["signIn": ["email": ["passwordRequired": true], "phoneNumber": ["enabled": true]]], key: nil, headers: try await admin())
            #expect(section(patched, "email")?["passwordRequired"] as? Bool == true, "\(patched.text)")
            #expect(section(patched, "phoneNumber")?["enabled"] as? Bool == true, "\(patched.text)")
            let link = try await client.post(Self.v1 + "/accounts:sendOobCode", [
                "requestType": "EMAIL_SIGNIN", "email": "a@example.com", "continueUrl": "http://localhost/x"])
            #expect(link.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(link.text)")
            #expect(try await client.post(Self.v1 + "/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"]).status == 200)

            for body: [String: Any] in [["authorizedDomains": ["evil.example"]], ["signIn": ["hashConfig": ["rounds": 1]]]] {
                let reply = try await client.send(.patch, path, body, key: nil, headers: try await admin())
                #expect(reply.status == 400 && reply.text.contains("cannot be changed here"), "\(body): \(reply.text)")
            }
        }
    }
}
