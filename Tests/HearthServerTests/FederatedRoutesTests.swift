import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// `signInWithIdp` with the emulator's fake IdP tokens, and Firebase's account rules, against its captures.
@Suite struct FederatedRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// The fixture's request with our own `idToken` (captures carry the emulator's).
    static func replay(_ name: String, _ client: Client, idToken: String? = nil, ignoring: Set<String> = [],
                       expectFixtureStatus: Bool = true) async throws -> Reply {
        let fixture = try Fixture(name)
        var body = fixture.requestBody as! [String: Any]
        if let idToken { body["idToken"] = idToken }
        let reply = try await client.post(fixture.path, body)
        guard expectFixtureStatus else { return reply }
        #expect(reply.status == fixture.status, "\(name): \(reply.text)")
        if fixture.status == 200 {
            expectSameShape(try reply.object(), fixture.body, ignoring: ignoring)
        } else {
            #expect(reply.errorMessage == ((fixture.body as! [String: Any])["error"] as! [String: Any])["message"] as? String)
        }
        return reply
    }

    @Test func newAndReturningGoogleUsersKeepOneLocalId() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let first = try await Self.replay("signInWithIdp-google-new-user", client)
            #expect(first["isNewUser"] as? Bool == true)
            let id = try #require(first["localId"] as? String)
            let claims = try decodeJWT(first["idToken"] as! String)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "google.com")
            #expect(((claims["firebase"] as? [String: Any])?["identities"] as? [String: [String]])?["google.com"] == ["google-sub-1001"])
            let again = try await Self.replay("signInWithIdp-google-existing-user", client)
            #expect(again["localId"] as? String == id && again["isNewUser"] == nil)
            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": again["idToken"]!])
            let providers = ((lookup["users"] as? [[String: Any]])?.first?["providerUserInfo"] as? [[String: Any]])?
                .compactMap { $0["providerId"] as? String }
            #expect(providers == ["google.com"])
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": again["refreshToken"]!])
            #expect(((try decodeJWT(refreshed["id_token"] as! String))["firebase"] as? [String: Any])?["sign_in_provider"] as? String
                    == "google.com")
        }
    }

    @Test func linkingAnAnonymousOrPasswordUserKeepsItsLocalIdAndConflictsAreReported() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let upgraded = try await Self.replay("signInWithIdp-google-link-via-idToken", client, idToken: anonymous["idToken"] as? String)
            #expect(upgraded["localId"] as? String == anonymous["localId"] as? String, "an anonymous user keeps its localId")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil,
                                                              localID: anonymous["localId"] as! String))
            #expect(!stored.isAnonymous && stored.email == "linkme@example.com" && stored.providers.first?.rawID == "google-sub-2002")

            // gina's identity belongs to her own account; linking it to another one is refused.
            let gina = try await Self.replay("signInWithIdp-google-new-user", client)
            let other = try await client.signUp("other@example.com")
            try await Self.replay("signInWithIdp-federated-user-id-already-linked", client, idToken: other["idToken"] as? String)
            let withCredential = try await Self.replay("signInWithIdp-federated-user-id-already-linked-returnIdpCredential",
                                                       client, idToken: other["idToken"] as? String)
            #expect(withCredential["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED" && withCredential["idToken"] == nil)
            #expect(withCredential["oauthIdToken"] is String, "the credential comes back so the app can sign in with it and merge")
            let otherUser = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: other["localId"] as! String))
            #expect(otherUser.providers.isEmpty, "nothing half-linked")
            #expect(gina["localId"] is String)

            // Unlinking.
            let unlinked = try await client.post(Endpoints.update.path, ["idToken": upgraded["idToken"]!, "deleteProvider": ["google.com"]])
            #expect(unlinked.status == 200 && unlinked["providerUserInfo"] == nil, "\(unlinked.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, providerID: "google.com", rawID: "google-sub-2002") == nil)
        }
    }

    @Test func anEnrolledUserSigningInWithAnIdPMustProveASecondFactor() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let first = try await Self.replay("signInWithIdp-google-new-user", client)
            let id = try #require(first["localId"] as? String)
            try await client.post("\(Self.v1)/projects/demo-project/accounts:update", [
                "localId": id, "mfa": ["enrollments": [["phoneInfo": "+15555550177", "displayName": "Phone", "mfaEnrollmentId": "p1"]]]],
                                  key: nil, headers: Self.owner)
            let fixture = try Fixture("signInWithIdp-google-existing-user")
            let challenged = try await client.post(fixture.path, fixture.requestBody)
            #expect(challenged.status == 200 && challenged["idToken"] == nil, "\(challenged.text)")
            #expect(challenged["mfaPendingCredential"] is String && challenged["localId"] as? String == id)
            let info = (challenged["mfaInfo"] as? [[String: Any]])?.first
            #expect(info?["phoneInfo"] as? String == "+*******0177")
        }
    }

    @Test func linkingNeedsARecentSignIn() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let user = try await client.signUp("stale@example.com")
            app.clock.advance(by: 600)
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": user["refreshToken"]!])
            let stale = try await Self.replay("signInWithIdp-google-link-via-idToken", client, idToken: refreshed["id_token"] as? String,
                                              expectFixtureStatus: false)
            #expect(stale.errorMessage == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "\(stale.text)")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: user["localId"] as! String))
            #expect(stored.providers.isEmpty)
        }
    }

    @Test func existingEmailAccountsNeedConfirmationOrAreTakenOverByAVerifiedEmail() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let dana = try await client.signUp("dana@example.com")
            let unverifiedIdP = try await Self.replay("signInWithIdp-need-confirmation", client)
            #expect(unverifiedIdP["needConfirmation"] as? Bool == true && unverifiedIdP["localId"] as? String == dana["localId"] as? String)
            #expect(unverifiedIdP["idToken"] == nil)

            let erin = try await client.signUp("erin@example.com")
            let takeover = try await Self.replay("signInWithIdp-google-existing-email-verified", client)
            #expect(takeover["localId"] as? String == erin["localId"] as? String)
            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": takeover["idToken"]!])
            let user = try #require((lookup["users"] as? [[String: Any]])?.first)
            expectSameShape(user, ((try Fixture("lookup-after-google-takeover-of-unverified-account").body as! [String: Any])["users"] as! [[String: Any]])[0],
                            ignoring: ["salt", "passwordUpdatedAt"])
            let password = try await client.post(Endpoints.signInWithPassword.path, ["email": "erin@example.com", "password": "secret1"])
            #expect(password.status == 400, "the unverified account's password is gone after the takeover")
            let oldSession = try await client.post("/securetoken.googleapis.com/v1/token",
                                                   ["grant_type": "refresh_token", "refresh_token": erin["refreshToken"]!])
            #expect(oldSession.status == 400, "and so are its sessions")
        }
    }

    @Test func badAndEmulatorOnlyInput() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            try await Self.replay("signInWithIdp-invalid-id-token", client)
            try await Self.replay("signInWithIdp-missing-requestUri", client)
            // Production returns oauthTokenSecret (the emulator does not): Hearth follows production.
            let twitter = try await Self.replay("signInWithIdp-twitter-fake-id-token-with-oauth-secret", client,
                                                ignoring: ["oauthTokenSecret"])
            #expect(twitter["screenName"] as? String == "tweety" && twitter["oauthTokenSecret"] as? String == "twitter-oauth-secret-456")
            let noProvider = try await client.post(Endpoints.signInWithIdp.path, ["requestUri": "http://localhost", "postBody": "id_token={}"])
            #expect(noProvider.errorMessage?.hasPrefix("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential:") == true)
        }
        // Production without a configured provider: refused, not trusted.
        let production = TestApp()
        try await production.run { client in
            let fixture = try Fixture("signInWithIdp-google-new-user")
            let reply = try await client.post(fixture.path, fixture.requestBody)
            #expect(reply.errorMessage == "OPERATION_NOT_ALLOWED : The identity provider google.com is not enabled for this project.")
            #expect(try await production.store.users(projectID: "demo-project", after: nil, limit: 5).isEmpty)
        }
    }
}

/// Emulator mode's fake-IdP page at `/emulator/auth/handler`, as the iOS SDK uses it.
@Suite struct EmulatorIdPWidgetTests {
    @Test func theFakeAccountPageSendsTheAppALinkThatSignsIn() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let query = "apiKey=k&providerId=twitter.com&appId=1:123:ios:abc&eventId=E9&authType=signInWithRedirect&v=11"
            let page = try await client.send(.get, "/emulator/auth/handler?\(query)", key: nil)
            #expect(page.status == 200 && page.text.contains("Sign in with twitter.com") && page.text.contains("<form"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)

            let form = "providerId=twitter.com&appId=1%3A123%3Aios%3Aabc&eventId=E9&authType=signInWithRedirect"
                + "&email=tweety%40example.com&displayName=Tweety&screenName=tweety"
            let submitted = try await client.send(.post, "/emulator/auth/handler", key: nil, raw: form,
                                                  headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(submitted.status == 302)
            let location = try #require(submitted.headers[.location])
            #expect(location.hasPrefix("app-1-123-ios-abc://firebaseauth/link?deep_link_id="), "\(location)")
            let deepLink = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "deep_link_id" }?.value)
            let callback = try #require(URLComponents(string: deepLink))
            #expect(callback.path == "/__/auth/callback" && callback.queryItems?.first { $0.name == "eventId" }?.value == "E9")
            let link = try #require(callback.queryItems?.first { $0.name == "link" }?.value)

            let signedIn = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": link, "sessionId": "ValueNotUsedByAuthEmulator", "returnSecureToken": true])
            #expect(signedIn["providerId"] as? String == "twitter.com" && signedIn["email"] as? String == "tweety@example.com",
                    "\(signedIn.text)")
            #expect(signedIn["screenName"] as? String == "tweety" && signedIn["isNewUser"] as? Bool == true)

            let noEmail = try await client.send(.post, "/emulator/auth/handler", key: nil, raw: "providerId=twitter.com&appId=1%3A2",
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(noEmail.status == 400 && noEmail.headers[.location] == nil)
        }
        let production = TestApp()
        try await production.run { client in
            let reply = try await client.send(.get, "/emulator/auth/handler?providerId=google.com", key: nil)
            #expect(reply.status == 404, "never served in production")
        }
    }
}

/// Emulator mode reads fake credentials as Firebase's emulator does, for any provider and with no configuration:
/// from `requestUri`, `postBody` and the fragment; claims from `id_token` or, failing that, `access_token`.
@Suite struct EmulatorFakeCredentialTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    /// Linking Google to a password session: the new ID token's `firebase.sign_in_provider` is `google.com`, the
    /// provider just linked, as Firebase sets it.
    @Test func aLinkedProviderIsTheNewSessionsProvider() async throws {
        try await TestApp(mode: .emulator).run { client in
            let idToken = try #require(try await client.signUp("linker@example.com")["idToken"] as? String)
            let linked = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "http://localhost", "returnSecureToken": true, "idToken": idToken,
                "postBody": "providerId=google.com&id_token=\(FormEncoding.escape(#"{"sub":"g-linker","email":"linker@example.com"}"#))"])
            let token = try #require(linked["idToken"] as? String, "\(linked.text)")
            let firebase = try TenantRoutesTests.claims(token)["firebase"] as? [String: Any]
            #expect(firebase?["sign_in_provider"] as? String == "google.com", "\(firebase ?? [:])")
        }
    }

    @Test func claimsComeFromTheAccessTokenTooAndAnyProviderWorks() async throws {
        try await TestApp(mode: .emulator).run { client in
            // The JS SDK's TwitterAuthProvider.credential(token, secret) sends only these two.
            let claims = #"{"sub":"tw-1","screen_name":"ada_l","name":"Ada"}"#
            let twitter = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": "providerId=twitter.com&access_token=\(FormEncoding.escape(claims))&oauth_token_secret=s"])
            #expect(twitter.status == 200 && twitter["screenName"] as? String == "ada_l", "\(twitter.text)")
            let idToken = try #require(twitter["idToken"] as? String)
            let looked = try await client.post(Endpoints.lookup.path, ["idToken": idToken])
            let user = try #require((looked["users"] as? [[String: Any]])?.first)
            #expect(user["screenName"] as? String == "ada_l" && user["displayName"] as? String == "Ada")
            // A made-up provider, its parameters in the fragment.
            let custom = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "http://localhost/#providerId=oidc.made-up&id_token=\(FormEncoding.escape(#"{"sub":"x"}"#))"])
            #expect(custom.status == 200 && custom["providerId"] as? String == "oidc.made-up", "\(custom.text)")
            let opaque = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "http://localhost", "postBody": "providerId=github.com&access_token=gho_opaque"])
            #expect(opaque.errorMessage?.hasPrefix("INVALID_IDP_RESPONSE") == true, "an opaque token carries no profile")
            let relative = try await client.post(Endpoints.signInWithIdp.path, [
                "requestUri": "not-absolute", "postBody": "providerId=google.com&id_token={\"sub\":\"1\"}"])
            #expect(relative.errorMessage == "INVALID_REQUEST_URI")
        }
    }

    @Test func samlResponsesMustNameTheirSubject() async throws {
        try await TestApp(mode: .emulator).run { client in
            func saml(_ response: String) async throws -> Reply {
                try await client.post(Endpoints.signInWithIdp.path, [
                    "requestUri": "http://localhost",
                    "postBody": "providerId=saml.acme&id_token=\(FormEncoding.escape(#"{"sub":"s1"}"#))&SAMLResponse=\(FormEncoding.escape(response))"])
            }
            for broken in [#"{}"#, #"{"assertion":{}}"#, #"{"assertion":{"subject":{}}}"#] {
                let reply = try await saml(broken)
                #expect(reply.status == 400 && reply.errorMessage?.hasPrefix("INVALID_IDP_RESPONSE") == true, "\(broken): \(reply.text)")
            }
            let good = try await saml(#"{"assertion":{"subject":{"nameId":"Jane@Example.com"},"attributeStatements":{"mail":"x"}}}"#)
            #expect(good["email"] as? String == "Jane@Example.com" && good["rawUserInfo"] as? String == #"{"mail":"x"}"#, "\(good.text)")
            // The attribute statements ride in this sign-in's ID token, as Firebase's `sign_in_attributes`.
            let claims = try TenantRoutesTests.claims(try #require(good["idToken"] as? String))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_attributes"] as? [String: String] == ["mail": "x"], "\(claims)")
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": good["refreshToken"]!])
            let later = try TenantRoutesTests.claims(try #require(refreshed["id_token"] as? String))
            #expect((later["firebase"] as? [String: Any])?["sign_in_attributes"] == nil, "only the sign-in's own token")
        }
    }

    @Test func accountRulesAsFirebaseHasThem() async throws {
        try await TestApp(mode: .emulator).run { client in
            func idp(_ provider: String, _ claims: String, idToken: String? = nil) async throws -> Reply {
                var body: [String: Any] = ["requestUri": "http://localhost", "returnIdpCredential": true,
                                           "postBody": "providerId=\(provider)&id_token=\(FormEncoding.escape(claims))"]
                body["idToken"] = idToken
                return try await client.post(Endpoints.signInWithIdp.path, body)
            }
            // Linking an identity the user already has: refused, as for another user's.
            let first = try await idp("google.com", #"{"sub":"g-1","email":"al@example.com"}"#)
            let again = try await idp("google.com", #"{"sub":"g-1","email":"al@example.com"}"#, idToken: first["idToken"] as? String)
            #expect(again.status == 200 && again["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED"
                    && again["idToken"] == nil, "\(again.text)")
            // An unverified email another account holds: needConfirmation lists that account's providers.
            let other = try await idp("github.com", #"{"sub":"gh-1","email":"al@example.com","email_verified":false}"#)
            #expect(other["needConfirmation"] as? Bool == true && other["verifiedProvider"] as? [String] == ["google.com"], "\(other.text)")
            // The user's own address, verified by the provider, on linking.
            let password = try await client.signUp("own@example.com")
            let linked = try await idp("google.com", #"{"sub":"g-2","email":"own@example.com","email_verified":true}"#,
                                       idToken: password["idToken"] as? String)
            let looked = try await client.post(Endpoints.lookup.path, ["idToken": linked["idToken"] as Any])
            #expect((looked["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool == true, "\(looked.text)")
        }
    }
}
