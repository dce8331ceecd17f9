import Foundation
import HearthCore
import HearthServer
import HearthWire
import Testing

/// `accounts:update` by the signed-in user, pinned against the emulator's shapes, with production's
/// recent-login rule and session revocation.
@Suite struct UpdateRoutesTests {
    static let update = Endpoints.update.path
    static let signIn = Endpoints.signInWithPassword.path
    static let refresh = "/securetoken.googleapis.com/v1/token"

    @Test func profileChangesMatchFirebaseAndIssueNoTokens() async throws {
        try await TestApp().run { client in
            let user = try await client.signUp("alice@example.com", "secret123")
            let fixture = try Fixture("update-displayName-photoUrl")
            let reply = try await client.post(Self.update, [
                "idToken": user["idToken"]!, "displayName": "Alice A.", "photoUrl": "https://example.com/alice.png",
                "returnSecureToken": false,
            ])
            #expect(reply.status == 200)
            expectSameShape(try reply.object(), fixture.body)
            #expect(reply["displayName"] as? String == "Alice A.")
            #expect(reply["passwordHash"] as? String == "UkVEQUNURUQ=")
            // The emulator's captures ran in this order on one user.
            let cleared = try await client.post(Self.update, ["idToken": user["idToken"]!,
                                                              "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]])
            expectSameShape(try cleared.object(), try Fixture("update-deleteAttribute").body)
            #expect(cleared["displayName"] == nil)
            #expect(cleared["photoUrl"] == nil)
            let withFlag = try await client.post(Self.update, ["idToken": user["idToken"]!, "displayName": "Alice Again",
                                                               "returnSecureToken": true])
            expectSameShape(try withFlag.object(), try Fixture("update-displayName-returnSecureToken").body)
        }
    }

    /// An anonymous user who sets an email and a password is a password user from then on: the new tokens (and
    /// the sessions refreshed from them) say `password`, not `anonymous`, as Firebase reissues them. Allowing
    /// duplicate emails does not allow a second password account for one email.
    @Test func anAnonymousUserUpgradedByUpdateIsNoLongerAnonymous() async throws {
        for mode in [ServerConfiguration.Mode.emulator, .production] {
            try await TestApp(mode: mode, protection: false).run { client in
                let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
                let anonymousClaims = try TenantRoutesTests.claims(try #require(anonymous["idToken"] as? String))
                #expect((anonymousClaims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "anonymous")
                let upgraded = try await client.post(Self.update, [
                    "idToken": anonymous["idToken"]!, "email": "anon@example.com", "password": "secret123", "returnSecureToken": true])
                let claims = try TenantRoutesTests.claims(try #require(upgraded["idToken"] as? String, "\(upgraded.text)"))
                #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "password", "\(claims)")
                #expect(claims["provider_id"] == nil)
                let refreshed = try await client.post(Self.refresh, ["grant_type": "refresh_token", "refresh_token": upgraded["refreshToken"]!])
                let later = try TenantRoutesTests.claims(try #require(refreshed["id_token"] as? String, "\(refreshed.text)"))
                #expect((later["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "password")
            }
        }
    }

    @Test func duplicateEmailsStillMeanOnePasswordAccountPerEmail() async throws {
        try await TestApp(mode: .emulator).run { client in
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config?updateMask=signIn.allowDuplicateEmails"
            _ = try await client.send(.patch, config, ["signIn": ["allowDuplicateEmails": true]], key: nil,
                                      headers: [.authorization: "Bearer owner"])
            _ = try await client.signUp("dup@example.com", "secret123")
            let second = try await client.post(Endpoints.signUp.path,
                                               ["email": "DUP@example.com", "password": "secret456"])
            #expect(second.errorMessage == "EMAIL_EXISTS", "\(second.text)")
            let idp = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": "providerId=google.com&id_token=\(FormEncoding.escape(#"{"sub":"g-dup","email":"dup@example.com"}"#))"])
            #expect(idp.status == 200 && idp["localId"] != nil, "an IdP account may share the email: \(idp.text)")
            let linked = try await client.post(Self.update, ["idToken": idp["idToken"]!, "email": "dup@example.com", "password": "secret789"])
            #expect(linked.errorMessage == "EMAIL_EXISTS", "nor may it take a password: \(linked.text)")
        }
    }

    @Test func passwordChangeRevokesEarlierSessions() async throws {
        let app = TestApp()
        try await app.run { client in
            let user = try await client.signUp("alice@example.com", "secret123")
            _ = try await client.post(Self.update, ["idToken": user["idToken"]!, "displayName": "Alice Again"])
            app.clock.advance(by: 2)
            let reply = try await client.post(Self.update, ["idToken": user["idToken"]!, "password": "newSecret456"])
            #expect(reply.status == 200)
            expectSameShape(try reply.object(), try Fixture("update-password-change").body)
            let oldRefresh = try await client.post(Self.refresh, ["grant_type": "refresh_token",
                                                                  "refresh_token": user["refreshToken"]!])
            #expect(oldRefresh.errorMessage == "TOKEN_EXPIRED")
            let oldLookup = try await client.post(Endpoints.lookup.path,
                                                  ["idToken": user["idToken"]!])
            #expect(oldLookup.errorMessage == "TOKEN_EXPIRED")
            let newRefresh = try await client.post(Self.refresh, ["grant_type": "refresh_token",
                                                                  "refresh_token": reply["refreshToken"]!])
            #expect(newRefresh.status == 200)
            let oldPassword = try await client.post(Self.signIn, ["email": "alice@example.com", "password": "secret123"])
            #expect(oldPassword.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            let newPassword = try await client.post(Self.signIn, ["email": "alice@example.com", "password": "newSecret456"])
            #expect(newPassword.status == 200)
        }
    }

    @Test func directEmailChangeIsRefusedUnderEnumerationProtection() async throws {
        let app = TestApp(protection: true)
        try await app.run { client in
            let user = try await client.signUp("alice@example.com", "secret123")
            let refused = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "new@example.com"])
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "OPERATION_NOT_ALLOWED : Please verify the new email before changing email.")
            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": user["idToken"]!])
            let users = try #require(lookup["users"] as? [[String: Any]])
            #expect(users.first?["email"] as? String == "alice@example.com", "nothing changed")
            // The verified route still works: the new address proves itself first.
            let sent = try await client.post(Endpoints.sendOobCode.path,
                                             ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]!,
                                              "newEmail": "new@example.com"])
            #expect(sent.status == 200)
        }
    }

    @Test func emailChange() async throws {
        try await TestApp(protection: false).run { client in
            _ = try await client.signUp("taken@example.com")
            let user = try await client.signUp("alice@example.com", "secret123")
            let taken = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "TAKEN@example.com",
                                                            "returnSecureToken": true])
            #expect(try taken.object() as NSDictionary == (try Fixture("update-email-exists").body as! NSDictionary))
            let invalid = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "nope"])
            #expect(invalid.errorMessage == "INVALID_EMAIL")
            _ = try await client.post(Self.update, ["idToken": user["idToken"]!, "displayName": "Alice Again"])
            let changed = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "alice.new@example.com",
                                                              "returnSecureToken": true])
            expectSameShape(try changed.object(), try Fixture("update-email-change").body)
            #expect(changed["newEmail"] as? String == "alice.new@example.com")
            #expect(changed["emailVerified"] as? Bool == false)
            let signIn = try await client.post(Self.signIn, ["email": "alice.new@example.com", "password": "secret123"])
            #expect(signIn["localId"] as? String == user["localId"] as? String)
            let freed = try await client.signUp("alice@example.com", "another123")
            #expect(freed["localId"] as? String != user["localId"] as? String, "the old email is free again")
        }
    }

    @Test func sensitiveChangesNeedARecentSignIn() async throws {
        let app = TestApp()
        try await app.run { client in
            let user = try await client.signUp("alice@example.com", "secret123")
            app.clock.advance(by: 301)
            for change in [["password": "newSecret456"], ["email": "other@example.com"]] {
                var body: [String: Any] = ["idToken": user["idToken"]!]
                body.merge(change) { $1 }
                let reply = try await client.post(Self.update, body)
                #expect(reply.errorMessage == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            }
            let profile = try await client.post(Self.update, ["idToken": user["idToken"]!, "displayName": "Still fine"])
            #expect(profile.status == 200, "profile changes need no recent sign-in")
            let fresh = try await client.post(Self.signIn, ["email": "alice@example.com", "password": "secret123"])
            let allowed = try await client.post(Self.update, ["idToken": fresh["idToken"]!, "password": "newSecret456"])
            #expect(allowed.status == 200, "signing in again lifts the rule")
        }
    }

    @Test func badInput() async throws {
        try await TestApp().run { client in
            let user = try await client.signUp("alice@example.com", "secret123")
            let weak = try await client.post(Self.update, ["idToken": user["idToken"]!, "password": "123",
                                                           "returnSecureToken": true])
            #expect(try weak.object() as NSDictionary == (try Fixture("update-weak-password").body as! NSDictionary))
            let badToken = try await client.post(Self.update, ["idToken": "garbage", "displayName": "x"])
            #expect(try badToken.object() as NSDictionary == (try Fixture("update-invalid-id-token").body as! NSDictionary))
            let badAttribute = try await client.post(Self.update, ["idToken": user["idToken"]!, "deleteAttribute": ["NAME"]])
            #expect(badAttribute.status == 400)
            #expect(badAttribute.errorMessage
                == "Invalid JSON payload received. /deleteAttribute/0 must be equal to one of the allowed values")
            let unknownCode = try await client.post(Self.update, ["oobCode": "abc"])
            #expect(unknownCode.errorMessage == "INVALID_OOB_CODE")
            let unlinkNothing = try await client.post(Self.update, ["idToken": "garbage", "deleteProvider": ["google.com"]])
            #expect(unlinkNothing.errorMessage == "INVALID_ID_TOKEN")
            let v3 = try await client.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo",
                                           ["idToken": user["idToken"]!, "displayName": "v3"])
            #expect(v3["displayName"] as? String == "v3")
        }
    }
}
