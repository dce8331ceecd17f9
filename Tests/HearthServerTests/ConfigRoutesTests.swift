import Foundation
import HTTPTypes
import HearthCore
import Testing

/// `v2/projects/{project}/config`: its switches change what clients may do, read-only fields are refused, racing
/// writes all land, and a new production project starts with anonymous sign-in off.
@Suite struct ConfigRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

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
            #expect(try await store.project(id: "demo-project")?.settings[.anonymousSignIn] == false)
        }
    }

    /// A new production project starts with anonymous sign-in off, as Firebase's console creates projects; emulator
    /// mode's has it on; a project stored with it on keeps it across a restart that does not name the switch.
    @Test func anonymousSignInIsOffForNewProductionProjectsOnly() async throws {
        var fresh = CredentialGuardsTests.productionApp()
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
            var app = CredentialGuardsTests.productionApp()
            app.configuration.phoneSignIn = nil  // what a new production project gets
            return app
        }()
        try await app.run { client in
            let signer = try await CredentialGuardsTests.register(app)  // into the project the server made
            let path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            func admin() async throws -> HTTPFields {
                CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now()))
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
            // Chosen, even where the choice is the default: a start does not take the project for one made before
            // the switch existed.
            let stored = try #require(try await app.store.project(id: "demo-project")).settings.declared
            #expect(stored.isSet(.phoneSignIn) && stored.isSet(.emailLinkSignIn))

            let hash = try await client.send(.patch, path, ["signIn": ["hashConfig": ["rounds": 1]]], key: nil, headers: try await admin())
            #expect(hash.status == 400 && hash.text.contains("cannot be changed here"), "\(hash.text)")
            // Authorized domains are the project's to change (normalized), unless the configuration sets them.
            let domains = try await client.send(.patch, path + "?updateMask=authorizedDomains",
                                                ["authorizedDomains": ["localhost", "App.Example.com"]], key: nil, headers: try await admin())
            #expect(domains.status == 200 && (domains["authorizedDomains"] as? [String]) == ["localhost", "app.example.com"], "\(domains.text)")
            let bad = try await client.send(.patch, path + "?updateMask=authorizedDomains",
                                            ["authorizedDomains": ["https://app.example.com/"]], key: nil, headers: try await admin())
            #expect(bad.status == 400 && bad.text.contains("is not a domain"), "\(bad.text)")
            // A switch the configuration pins (TestApp sets anonymousSignIn) is refused, naming where it is set.
            let pinned = try await client.send(.patch, path + "?updateMask=signIn.anonymous.enabled",
                                               ["signIn": ["anonymous": ["enabled": false]]], key: nil, headers: try await admin())
            #expect(pinned.status == 400 && pinned.text.contains("is set by the server's configuration (anonymousSignIn)"), "\(pinned.text)")
        }
    }
}
