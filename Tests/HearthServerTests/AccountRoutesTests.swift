import Foundation
import HearthCore
import HearthServer
import HearthWire
import Testing

/// `accounts:signUp`, `signInWithPassword`, `lookup`, `delete` through the router, pinned against the shapes that
/// Firebase's emulator produced for the same calls (Fixtures/).
@Suite struct AccountRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

    @Test func signUpMatchesFirebaseShape() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Endpoints.signUp.path,
                                              ["email": "alice@example.com", "password": "secret123", "returnSecureToken": true])
            let fixture = try Fixture("signUp-email-password")
            #expect(reply.status == fixture.status)
            expectSameShape(try reply.object(), fixture.body)
            #expect(reply["kind"] as? String == "identitytoolkit#SignupNewUserResponse")
            #expect(reply["expiresIn"] as? String == "3600")
            #expect(reply.headers[.contentType] == "application/json")
        }
    }

    @Test func anonymousSignUpAndUpgradeKeepTheLocalID() async throws {
        try await TestApp().run { client in
            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            expectSameShape(try anonymous.object(), try Fixture("signUp-anonymous").body)
            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": anonymous["idToken"]!])
            expectSameShape(try lookup.object(), try Fixture("lookup-anonymous-user").body)
            let upgraded = try await client.post(Endpoints.signUp.path, [
                "idToken": anonymous["idToken"]!, "email": "up@example.com", "password": "secret123",
            ])
            expectSameShape(try upgraded.object(), try Fixture("signUp-upgrade-anonymous-via-idToken").body)
            #expect(upgraded["localId"] as? String == anonymous["localId"] as? String)
        }
    }

    @Test func signInLookupAndDelete() async throws {
        try await TestApp().run { client in
            _ = try await client.post(Endpoints.signUp.path,
                                      ["email": "alice@example.com", "password": "secret123", "displayName": "Alice"])
            let signIn = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "alice@example.com", "password": "secret123",
                                                "returnSecureToken": true])
            #expect(signIn.status == 200)
            expectSameShape(try signIn.object(), try Fixture("signInWithPassword-ok").body, ignoring: ["displayName"])
            #expect(signIn["registered"] as? Bool == true)

            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": signIn["idToken"]!])
            // Production redacts the hash and sends no salt; the emulator shows both.
            expectSameShape(try lookup.object(), try Fixture("lookup-password-user").body, ignoring: ["salt"])
            let user = try #require((lookup["users"] as? [[String: Any]])?.first)
            #expect(user["passwordHash"] as? String == "UkVEQUNURUQ=")
            #expect(user["email"] as? String == "alice@example.com")
            #expect(user["displayName"] as? String == "Alice")

            let deleted = try await client.post(Endpoints.delete.path, ["idToken": signIn["idToken"]!])
            expectSameShape(try deleted.object(), try Fixture("delete-account").body)
            let gone = try await client.post(Endpoints.lookup.path, ["idToken": signIn["idToken"]!])
            #expect(gone.status == 400)
            #expect(gone.errorMessage == "USER_NOT_FOUND")
        }
    }

    @Test func legacyV3AliasesReachTheSameHandlers() async throws {
        try await TestApp().run { client in
            let signUp = try await client.post("\(Self.v3)/signupNewUser", ["email": "v3@example.com", "password": "secret123"])
            expectSameShape(try signUp.object(), try Fixture("v3-signupNewUser").body)
            let signIn = try await client.post("\(Self.v3)/verifyPassword", ["email": "v3@example.com", "password": "secret123"])
            expectSameShape(try signIn.object(), try Fixture("v3-verifyPassword").body)
            let info = try await client.post("\(Self.v3)/getAccountInfo", ["idToken": signIn["idToken"]!])
            #expect(info.status == 200)
            #expect((info["users"] as? [[String: Any]])?.first?["email"] as? String == "v3@example.com")
            let config = try await client.send(.get, "\(Self.v3)/getProjectConfig")
            expectSameShape(try config.object(), try Fixture("getProjectConfig-v1").body)
            let deleted = try await client.post("\(Self.v3)/deleteAccount", ["idToken": signIn["idToken"]!])
            #expect(deleted.status == 200)
        }
    }

    /// Firebase's business errors, with the exact messages the emulator captured.
    @Test(arguments: [
        ("signUp-weak-password", "accounts:signUp", ["email": "w@example.com", "password": "12345"]),
        ("signUp-missing-password", "accounts:signUp", ["email": "w@example.com"]),
        ("signUp-missing-email", "accounts:signUp", ["password": "secret123"]),
        ("signUp-invalid-email", "accounts:signUp", ["email": "not-an-email", "password": "secret123"]),
        ("signInWithPassword-email-not-found", "accounts:signInWithPassword", ["email": "nobody@example.com", "password": "secret123"]),
        ("signInWithPassword-wrong-password", "accounts:signInWithPassword", ["email": "taken@example.com", "password": "wrong!!"]),
        ("signUp-email-exists", "accounts:signUp", ["email": "TAKEN@example.com", "password": "secret123"]),
        ("error-wrong-field-type-string", "accounts:signInWithPassword", ["email": 12345, "password": "secret123"]),
        ("lookup-invalid-id-token", "accounts:lookup", ["idToken": "garbage"]),
        ("delete-invalid-id-token", "accounts:delete", ["idToken": "garbage"]),
    ] as [(String, String, [String: any Sendable])])
    func businessErrors(_ fixtureName: String, _ operation: String, _ body: [String: any Sendable]) async throws {
        var app = TestApp()
        app.configuration.emailEnumerationProtection = false
        try await app.run { client in
            _ = try await client.signUp("taken@example.com")
            let reply = try await client.post("\(Self.v1)/\(operation)", body)
            let fixture = try Fixture(fixtureName)
            #expect(reply.status == fixture.status)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
            #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
        }
    }

    @Test func enumerationProtectionIsOnByDefaultInProduction() async throws {
        try await TestApp().run { client in
            _ = try await client.signUp("taken@example.com")
            for body in [["email": "taken@example.com", "password": "wrong!!"],
                         ["email": "nobody@example.com", "password": "secret1"]] {
                let reply = try await client.post(Endpoints.signInWithPassword.path, body)
                #expect(reply.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            }
        }
    }

    @Test func disabledUsersCannotSignIn() async throws {
        let app = TestApp(protection: true)
        try await app.run { client in
            let created = try await client.signUp("off@example.com")
            var user = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil,
                                                             localID: created["localId"] as! String))
            user.disabled = true
            try await app.store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
            let reply = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "off@example.com", "password": "secret1"])
            #expect(reply.errorMessage == "USER_DISABLED")
        }
    }

    @Test func deleteNeedsARecentSignIn() async throws {
        let app = TestApp()
        try await app.run { client in
            let created = try await client.signUp("old@example.com")
            app.clock.advance(by: 301)
            let reply = try await client.post(Endpoints.delete.path, ["idToken": created["idToken"]!])
            #expect(reply.errorMessage == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            app.clock.advance(by: 3600)
            let expired = try await client.post(Endpoints.lookup.path, ["idToken": created["idToken"]!])
            #expect(expired.errorMessage == "TOKEN_EXPIRED")
        }
    }
}

@Suite struct EnumerationProtectionSwitchTests {
    @Test func configuredSwitchAppliesToAnExistingProjectOnStart() async throws {
        let store = InMemoryStore()
        var first = TestApp(protection: true)
        first.configuration.emailEnumerationProtection = true
        let firstApp = TestAppOn(app: first, store: store)
        try await firstApp.run { client in
            _ = try await client.signUp("a@example.com")
            let hidden = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "nobody@example.com", "password": "secret1"])
            #expect(hidden.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
        var second = TestApp()
        second.configuration.emailEnumerationProtection = false
        try await TestAppOn(app: second, store: store).run { client in
            let open = try await client.post(Endpoints.signInWithPassword.path,
                                             ["email": "nobody@example.com", "password": "secret1"])
            #expect(open.errorMessage == "EMAIL_NOT_FOUND")
        }
    }
}

/// Where a client call's answer is the error Firebase's emulator gives, in its order of checks (issue: answers that
/// still differed from the emulator's).
@Suite struct ClientUpdateOrderTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    @Test(arguments: [ServerConfiguration.Mode.emulator, .production])
    func updateChecksItsRequestFirstThenItsToken(_ mode: ServerConfiguration.Mode) async throws {
        try await TestApp(mode: mode).run { client in
            let idToken = try #require(try await client.signUp("order@example.com")["idToken"] as? String)
            let update = Endpoints.update.path
            let neither = try await client.post(update, ["displayName": "x"])
            #expect(neither.errorMessage == "INVALID_REQ_TYPE : Unsupported request parameters.", "\(neither.text)")
            let claims = try await client.post(update, ["idToken": "not-a-token", "customAttributes": #"{"admin":true}"#])
            #expect(claims.errorMessage == "INSUFFICIENT_PERMISSION", "claims before the token: \(claims.text)")
            let badToken = try await client.post(update, ["idToken": "not-a-token", "disableUser": true])
            #expect(badToken.errorMessage == "INVALID_ID_TOKEN", "the token before disableUser: \(badToken.text)")
            let disable = try await client.post(update, ["idToken": idToken, "disableUser": true])
            #expect(disable.errorMessage == "OPERATION_NOT_ALLOWED", "\(disable.text)")
            let looked = try await client.post(Endpoints.lookup.path, ["idToken": idToken])
            #expect(looked.status == 200 && (looked["users"] as? [[String: Any]])?.first?["disabled"] == nil, "not disabled")
        }
    }

    @Test func returnOobLinkFromAClientIsABareInsufficientPermission() async throws {
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.post(Endpoints.sendOobCode.path,
                                              ["requestType": "PASSWORD_RESET", "email": "a@example.com", "returnOobLink": true])
            #expect(reply.errorMessage == "INSUFFICIENT_PERMISSION", "\(reply.text)")
        }
    }
}
