import Foundation
import HearthCore
import HearthWire
import Testing

/// The emulator-only endpoints, shaped like Firebase's emulator.
@Suite struct EmulatorRoutesTests {
    @Test func rootAndConfig() async throws {
        try await TestApp(mode: .emulator).run { client in
            let root = try await client.send(.get, "/", key: nil)
            #expect(try root.object() as NSDictionary == (try Fixture("emulator-root-info").body as! NSDictionary))
            let config = try await client.send(.get, "/emulator/v1/projects/demo-project/config", key: nil)
            #expect(try config.object() as NSDictionary == (try Fixture("emulator-config-get").body as! NSDictionary))
            for name in ["emulator-config-patch-allow-duplicate-emails", "emulator-config-patch-enable-email-privacy"] {
                let fixture = try Fixture(name)
                _ = try await client.send(.patch, "/emulator/v1/projects/demo-project/config",
                                          ["signIn": ["allowDuplicateEmails": false],
                                           "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false]], key: nil)
                let patched = try await client.send(.patch, "/emulator/v1/projects/demo-project/config",
                                                    fixture.requestBody, key: nil)
                #expect(try patched.object() as NSDictionary == fixture.body as! NSDictionary)
            }
        }
    }

    @Test func configChangesTakeEffect() async throws {
        try await TestApp(mode: .emulator).run { client in
            _ = try await client.signUp("dup@example.com")
            let refused = try await client.post(Endpoints.signUp.path,
                                                ["email": "dup@example.com", "password": "secret1"])
            #expect(refused.errorMessage == "EMAIL_EXISTS")
            _ = try await client.send(.patch, "/emulator/v1/projects/demo-project/config",
                                      ["signIn": ["allowDuplicateEmails": true]], key: nil)
            // Duplicates are for accounts of other providers: one password account per email, as the emulator
            // and Firebase keep it.
            let still = try await client.post(Endpoints.signUp.path,
                                              ["email": "dup@example.com", "password": "secret1"])
            #expect(still.errorMessage == "EMAIL_EXISTS")
            let config = try await client.send(.get, "/emulator/v1/projects/demo-project/config", key: nil)
            #expect((config["signIn"] as? [String: Bool])?["allowDuplicateEmails"] == true)
            let wrong = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "dup@example.com", "password": "wrong!!"])
            #expect(wrong.errorMessage == "INVALID_PASSWORD", "enumeration protection is off by default here")
            _ = try await client.send(.patch, "/emulator/v1/projects/demo-project/config",
                                      ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]], key: nil)
            let hidden = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "dup@example.com", "password": "wrong!!"])
            #expect(hidden.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func resetDeletesEveryAccountOfTheProject() async throws {
        try await TestApp(mode: .emulator).run { client in
            let created = try await client.signUp("gone@example.com")
            let reset = try await client.send(.delete, "/emulator/v1/projects/demo-project/accounts", key: nil)
            #expect(try reset.object() as NSDictionary == (try Fixture("emulator-reset-accounts").body as! NSDictionary))
            let lookup = try await client.post(Endpoints.lookup.path,
                                               ["idToken": created["idToken"]!])
            #expect(lookup.errorMessage == "USER_NOT_FOUND")
        }
    }

    @Test func anyProjectIDIsServedAndCreatedOnFirstUse() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let config = try await client.send(.get, "/emulator/v1/projects/other-project/config", key: nil)
            #expect(config.status == 200)
            let other = try #require(try await app.store.project(id: "other-project"))
            let main = try #require(try await app.store.project(id: "demo-project"))
            #expect(other.signingKeys == main.signingKeys, "one published key set verifies every project")
            let invalid = try await client.send(.get, "/emulator/v1/projects/Bad_Id!/config", key: nil)
            #expect(invalid.status == 404)
        }
    }
}
