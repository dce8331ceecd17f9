import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import HearthWire
import Testing

/// `signInWithIdp` in production against an identity provider we did not write the crypto of (authlib keys and
/// tokens, see `TestIdentityProvider`): OIDC ID tokens checked against its discovery document and JWKS, OAuth 2.0
/// access tokens checked against Graph- and GitHub-like profile endpoints, the linking rules, and bad credentials.
@Suite(.enabled(if: TestIdentityProvider.unavailableReason() == nil,
                "test IdP unavailable: \(TestIdentityProvider.unavailableReason() ?? "")"))
struct FederatedEndToEndTests {
    static let apiKey = "idp-test-key"
    static let clientID = "hearth-client"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    struct Live: Sendable {
        let client: any TestClientProtocol
        let store: SQLiteStore
        let idp: TestIdentityProvider

        func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
            let response = try await client.execute(
                uri: path + "?key=" + FederatedEndToEndTests.apiKey, method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
        }

        func signIn(_ postBody: String, idToken: String? = nil, returnIdpCredential: Bool = false,
                    pendingToken: String? = nil) async throws -> [String: Any] {
            var body: [String: Any] = ["requestUri": "http://localhost", "postBody": postBody, "returnSecureToken": true,
                                       "returnIdpCredential": returnIdpCredential]
            if let idToken { body["idToken"] = idToken }
            if let pendingToken { body["pendingToken"] = pendingToken }
            return try await post("\(FederatedEndToEndTests.v1)/accounts:signInWithIdp", body)
        }

        func idToken(_ claims: [String: Any], forged: Bool = false) async throws -> String {
            var all: [String: Any] = ["aud": FederatedEndToEndTests.clientID, "iat": Int(Date().timeIntervalSince1970),
                                      "exp": Int(Date().timeIntervalSince1970) + 600]
            all.merge(claims) { _, new in new }
            return try await idp.mint(all, forged: forged)
        }
    }

    static func error(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

    func withLive(clientSecret: String? = nil, _ body: @escaping @Sendable (Live) async throws -> Void) async throws {
        let idp = try await TestIdentityProvider.start()
        defer { idp.stop() }
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        var configuration = ServerConfiguration(port: 0, projectID: "idp-project", initialAPIKey: Self.apiKey)
        var google = IdentityProviderConfig(clientId: Self.clientID, issuer: idp.issuer)
        google.scopes = ["openid", "email"]
        var facebook = IdentityProviderConfig(clientId: "fb-app")
        facebook.userInfoUri = idp.issuer + "/graph/me"
        var github = IdentityProviderConfig(clientId: "gh-app")
        github.userInfoUri = idp.issuer + "/github/user"
        github.emailsUri = idp.issuer + "/github/user/emails"
        var twitter = IdentityProviderConfig(clientId: TestIdentityProvider.consumerKey,
                                             clientSecret: TestIdentityProvider.consumerSecret)
        twitter.verifyCredentialsUri = idp.issuer + "/1.1/account/verify_credentials.json?include_email=true&skip_status=true"
        twitter.userInfoUri = idp.issuer + "/x/users/me"
        twitter.requestTokenUri = idp.issuer + "/oauth/request_token"
        twitter.authorizationUri = idp.issuer + "/oauth/authenticate"
        twitter.tokenUri = idp.issuer + "/oauth/access_token"
        var slow = IdentityProviderConfig(clientId: Self.clientID, issuer: idp.issuer)
        slow.jwksUri = idp.issuer + "/slow"
        // Sign in with Apple with the app's key: Hearth signs client secrets for Apple's token endpoints with it.
        var apple = IdentityProviderConfig(clientId: Self.clientID, issuer: idp.issuer)
        (apple.teamId, apple.keyId, apple.privateKey) = try await idp.appleKey()
        apple.tokenUri = idp.issuer + "/apple/token"
        apple.revokeUri = idp.issuer + "/apple/revoke"
        var huge = IdentityProviderConfig(clientId: Self.clientID, issuer: idp.issuer)
        huge.jwksUri = idp.issuer + "/huge"
        var saml = IdentityProviderConfig(clientId: "idp-project")
        saml.saml = SAMLIdentityProvider(entityID: idp.issuer, ssoURL: idp.issuer + "/saml", certificates: ["c"],
                                         callbackURI: "https://idp-project.example/__/auth/handler")
        configuration.identityProviders = [
            "google.com": google, "apple.com": apple,
            "facebook.com": facebook, "github.com": github, "oidc.slow": slow, "oidc.huge": huge,
            "oidc.down": IdentityProviderConfig(clientId: Self.clientID, issuer: "http://127.0.0.1:1"),
            "microsoft.com": IdentityProviderConfig(enabled: false, clientId: Self.clientID, issuer: idp.issuer),
            "oidc.acme": IdentityProviderConfig(clientId: Self.clientID, clientSecret: clientSecret, issuer: idp.issuer),
            "twitter.com": twitter, "saml.acme": saml,
        ]
        configuration.rateLimits.enabled = false
        let app = try await buildApplication(configuration: configuration, store: store,
                                             hashing: ThreadPoolWorkRunner(threads: 1), hashParameters: { .generate(memoryCost: 10) })
        do {
            try await app.test(.live) { client in try await body(Live(client: client, store: store, idp: idp)) }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test func oidcIDTokensAreVerifiedAndSingleUse() async throws {
        try await withLive { live in
            let token = try await live.idToken(["sub": "g-1", "email": "gina@example.com", "email_verified": true,
                                                "name": "Gina", "nonce": "raw-nonce"])
            let first = try await live.signIn("id_token=\(token)&providerId=google.com&nonce=raw-nonce")
            #expect(first["isNewUser"] as? Bool == true, "\(first)")
            #expect(first["federatedId"] as? String == "https://accounts.google.com/g-1" && first["emailVerified"] as? Bool == true)
            let id = try #require(first["localId"] as? String)
            let replayed = try await live.signIn("id_token=\(token)&providerId=google.com&nonce=raw-nonce")
            #expect(Self.error(replayed) == "INVALID_IDP_RESPONSE : the id_token was already used")

            let again = try await live.signIn("id_token=\(try await live.idToken(["sub": "g-1", "email": "gina@example.com"]))&providerId=google.com")
            #expect(again["localId"] as? String == id && again["isNewUser"] == nil, "the same identity, the same localId")

            let bad: [(String, String, String)] = [
                ("forged", "id_token=\(try await live.idToken(["sub": "g-2"], forged: true))&providerId=google.com", "signature"),
                ("expired", "id_token=\(try await live.idToken(["sub": "g-2", "exp": Int(Date().timeIntervalSince1970) - 600]))&providerId=google.com", "expired"),
                ("wrong audience", "id_token=\(try await live.idToken(["sub": "g-2", "aud": "someone-else"]))&providerId=google.com", "another client"),
                ("wrong issuer", "id_token=\(try await live.idToken(["sub": "g-2", "iss": "https://evil.example"]))&providerId=google.com", "issuer"),
                ("wrong nonce", "id_token=\(try await live.idToken(["sub": "g-2", "nonce": "a"]))&providerId=google.com&nonce=b", "nonce"),
                ("unsigned", "id_token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJnLTIifQ.&providerId=google.com", "signed"),
                ("garbage", "id_token=garbage&providerId=google.com", "JWT"),
                ("no credential", "providerId=google.com", "id_token or an access_token"),
            ]
            for (why, postBody, detail) in bad {
                let reply = try await live.signIn(postBody)
                let message = Self.error(reply) ?? ""
                #expect(message.hasPrefix("INVALID_IDP_RESPONSE") && message.contains(detail), "\(why): \(message)")
            }
            for provider in ["microsoft.com", "yahoo.com"] {
                let reply = try await live.signIn("id_token=\(try await live.idToken(["sub": "x"]))&providerId=\(provider)")
                #expect(Self.error(reply) == "OPERATION_NOT_ALLOWED : The identity provider \(provider) is not enabled for this project.")
            }
            let users = try await live.store.users(projectID: "idp-project", after: nil, limit: 10)
            #expect(users.count == 1, "no refused credential left an account behind")
        }
    }

    @Test func appleHashedNoncesAndTheOneTimeName() async throws {
        try await withLive { live in
            let raw = "apple-raw-nonce"
            let digest = storageDigest(raw)  // SHA-256, hex: how Apple puts the nonce in its ID token
            let token = try await live.idToken(["sub": "apple-1", "email": "a@privaterelay.appleid.com", "email_verified": "true",
                                                "nonce": digest])
            let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@privaterelay.appleid.com"}"#
            let reply = try await live.signIn("id_token=\(token)&providerId=apple.com&nonce=\(raw)&user=\(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(reply["displayName"] as? String == "Ada Lovelace" && reply["emailVerified"] as? Bool == true, "\(reply)")
        }
    }

    /// `v2/accounts:revokeToken`, as apps call it before deleting an account: the authorization code is exchanged
    /// and its refresh token revoked, both with a client secret Hearth signs with the app's key (the test IdP's
    /// Apple endpoints accept nothing else).
    @Test func appleTokensAreRevokedWithAClientSecretSignedByTheAppsKey() async throws {
        try await withLive { live in
            let v2 = "/identitytoolkit.googleapis.com/v2/accounts:revokeToken"
            let signedIn = try await live.signIn("id_token=\(try await live.idToken(["sub": "apple-9"]))&providerId=apple.com")
            let idToken = try #require(signedIn["idToken"] as? String, "\(signedIn)")

            let revoked = try await live.post(v2, ["idToken": idToken, "providerId": "apple.com", "tokenType": "CODE",
                                                   "token": "apple-code-1"])
            #expect(revoked.isEmpty, "\(revoked)")
            // The iOS SDK sends the token type as a number: 1 is REFRESH_TOKEN.
            #expect(try await live.post(v2, ["idToken": idToken, "providerId": "apple.com", "tokenType": 1,
                                             "token": "rt-kept-by-the-app"]).isEmpty)
            let atApple = try await live.idp.appleRevoked()
            #expect(atApple == [["token": "rt-apple-code-1", "hint": "refresh_token", "client": Self.clientID],
                                ["token": "rt-kept-by-the-app", "hint": "refresh_token", "client": Self.clientID]])

            let reused = try await live.post(v2, ["idToken": idToken, "providerId": "apple.com", "tokenType": "CODE",
                                                  "token": "apple-code-1"])
            #expect(Self.error(reused) == "INVALID_IDP_RESPONSE : the provider refused the authorization code (400)")
            let refused: [([String: Any], String)] = [
                (["providerId": "apple.com", "tokenType": "CODE", "token": "apple-code-2"], "MISSING_ID_TOKEN"),
                (["idToken": idToken, "providerId": "google.com", "tokenType": "CODE", "token": "x"], "INVALID_ARGUMENT"),
                (["idToken": idToken, "providerId": "apple.com", "tokenType": "SOMETHING", "token": "x"], "INVALID_ARGUMENT"),
                (["idToken": idToken, "providerId": "apple.com", "tokenType": "CODE"], "INVALID_ARGUMENT"),
            ]
            for (body, code) in refused {
                let reply = try await live.post(v2, body)
                #expect(Self.error(reply)?.hasPrefix(code) == true, "\(body): \(reply)")
            }
            let other = try await live.post(Endpoints.signUp.path, ["email": "no-apple@example.com", "password": "secret123"])
            let notLinked = try await live.post(v2, ["idToken": other["idToken"] as? String ?? "", "providerId": "apple.com",
                                                     "tokenType": "CODE", "token": "apple-code-3"])
            #expect(Self.error(notLinked) == "INVALID_ARGUMENT : the user has not signed in with apple.com", "\(notLinked)")
            #expect(try await live.idp.appleRevoked().count == 2, "nothing else reached Apple")
        }
    }

    @Test func accessTokensOfGraphAndGitHubLikeAPIs() async throws {
        try await withLive { live in
            try await live.idp.register(accessToken: "fb-token", profile: [
                "id": "fb-1", "name": "Fay", "email": "fay@example.com", "picture": ["data": ["url": "https://pic/fay"]]])
            let fb = try await live.signIn("access_token=fb-token&providerId=facebook.com")
            #expect(fb["federatedId"] as? String == "fb-1" && fb["photoUrl"] as? String == "https://pic/fay", "\(fb)")
            #expect(fb["emailVerified"] as? Bool == false, "Facebook emails count as unverified")
            #expect(Self.error(try await live.signIn("access_token=stolen&providerId=facebook.com"))?.hasPrefix("INVALID_IDP_RESPONSE") == true)

            try await live.idp.register(accessToken: "gh-token", profile: ["id": 4242, "login": "octo", "name": NSNull(), "email": NSNull()],
                                        emails: [["email": "old@example.com", "primary": false, "verified": true],
                                                 ["email": "octo@example.com", "primary": true, "verified": true]])
            let gh = try await live.signIn("access_token=gh-token&providerId=github.com")
            #expect(gh["federatedId"] as? String == "4242" && gh["email"] as? String == "octo@example.com"
                    && gh["emailVerified"] as? Bool == true && gh["screenName"] as? String == "octo", "\(gh)")
        }
    }

    @Test(.enabled(if: TestIdentityProvider.hasOAuth1, "oauthlib unavailable"))
    func twitterOAuth1CredentialsAreCheckedByTheProvider() async throws {
        try await withLive { live in
            try await live.idp.register(oauth1Token: "user-token-0001", secret: "user-token-secret", profile: [
                "id_str": "tw-777", "name": "Tweety Bird", "screen_name": "tweety", "email": "tweety@example.com",
                "profile_image_url_https": "https://pic/tweety"])
            let signedIn = try await live.signIn("access_token=user-token-0001&oauth_token_secret=user-token-secret&providerId=twitter.com",
                                                 returnIdpCredential: true)
            #expect(signedIn["federatedId"] as? String == "tw-777" && signedIn["screenName"] as? String == "tweety", "\(signedIn)")
            #expect(signedIn["oauthTokenSecret"] as? String == "user-token-secret" && signedIn["idToken"] is String)
            let wrongSecret = try await live.signIn("access_token=user-token-0001&oauth_token_secret=guessed&providerId=twitter.com")
            #expect(Self.error(wrongSecret)?.hasPrefix("INVALID_IDP_RESPONSE") == true, "oauthlib refuses the signature")

            // X's OAuth 2.0: a bearer access token and API v2's /2/users/me shape.
            try await live.idp.register(accessToken: "x-oauth2-token", profile: [
                "data": ["id": "x-42", "name": "Ex Bird", "username": "exbird", "profile_image_url": "https://pic/x"]])
            let x = try await live.signIn("access_token=x-oauth2-token&providerId=twitter.com")
            #expect(x["federatedId"] as? String == "x-42" && x["screenName"] as? String == "exbird" && x["idToken"] is String, "\(x)")
        }
    }

    @Test func conflictsHandBackAPendingTokenThatCompletesTheMerge() async throws {
        try await withLive { live in
            // Dana has a password account; her IdP email is unverified: needConfirmation, then sign in and link.
            let dana = try await live.post(Endpoints.signUp.path, ["email": "dana@example.com", "password": "secret123"])
            let confirm = try await live.signIn("id_token=\(try await live.idToken(["sub": "g-dana", "email": "dana@example.com", "email_verified": false]))&providerId=google.com")
            #expect(confirm["needConfirmation"] as? Bool == true && confirm["idToken"] == nil)
            #expect(confirm["localId"] == nil, "production does not name the other account")
            let pending = try #require(confirm["pendingToken"] as? String)
            let linked = try await live.signIn("", idToken: dana["idToken"] as? String, pendingToken: pending)
            #expect(linked["localId"] as? String == dana["localId"] as? String, "\(linked)")
            let reused = try await live.signIn("", pendingToken: pending)
            #expect(Self.error(reused)?.contains("INVALID_PENDING_TOKEN") == true, "a pending token is single use")

            // g-dana is now Dana's; another user linking it gets the credential back and merges by signing in with it.
            let other = try await live.post(Endpoints.signUp.path, ["email": "other@example.com", "password": "secret123"])
            let taken = try await live.signIn("id_token=\(try await live.idToken(["sub": "g-dana"]))&providerId=google.com",
                                              idToken: other["idToken"] as? String, returnIdpCredential: true)
            #expect(taken["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED")
            let merge = try await live.signIn("", pendingToken: try #require(taken["pendingToken"] as? String))
            #expect(merge["localId"] as? String == dana["localId"] as? String)
        }
    }

    /// One account per email, production's rules: a provider's verified email enters an existing account only if
    /// the provider hosts the address (Google for Gmail); otherwise `needConfirmation`, and the account keeps its
    /// password. A trusted take-over of an unverified account ends the password set before.
    @Test func onlyAProviderThatHostsTheAddressMaySignInToAnExistingAccountByEmail() async throws {
        try await withLive { live in
            let erin = try await live.post(Endpoints.signUp.path, ["email": "erin@example.com", "password": "secret123"])
            let claimed = try await live.signIn("id_token=\(try await live.idToken(["sub": "g-erin", "email": "erin@example.com", "email_verified": true]))&providerId=google.com")
            #expect(claimed["needConfirmation"] as? Bool == true && claimed["idToken"] == nil && claimed["localId"] == nil, "\(claimed)")
            let still = try await live.post(Endpoints.signInWithPassword.path, ["email": "erin@example.com", "password": "secret123"])
            #expect(still["localId"] as? String == erin["localId"] as? String, "erin's password still works")

            let squatted = try await live.post(Endpoints.signUp.path, ["email": "fay@gmail.com", "password": "squatter1"])
            let owner = try await live.signIn("id_token=\(try await live.idToken(["sub": "g-fay", "email": "fay@gmail.com", "email_verified": true]))&providerId=google.com")
            #expect(owner["localId"] as? String == squatted["localId"] as? String && owner["idToken"] is String, "\(owner)")
            let squatter = try await live.post(Endpoints.signInWithPassword.path, ["email": "fay@gmail.com", "password": "squatter1"])
            #expect(squatter["idToken"] == nil, "the squatter's password ended with the take-over")
        }
    }

    /// Production keeps SAML configs but does not sign in with them yet: a clear refusal, not a 404 or a 500,
    /// through both ways in (a SAML response posted, and the redirect flow's start).
    @Test func samlSignInIsRefusedClearlyInProduction() async throws {
        try await withLive { live in
            let posted = try await live.signIn("providerId=saml.acme&SAMLResponse=PHNhbWw%2B")
            #expect(Self.error(posted)?.hasPrefix("OPERATION_NOT_ALLOWED : SAML sign-in is not supported") == true, "\(posted)")
            let started = try await live.post(Endpoints.createAuthUri.path, [
                "providerId": "saml.acme", "continueUri": "http://localhost/done"])
            #expect(Self.error(started)?.hasPrefix("OPERATION_NOT_ALLOWED : SAML sign-in is not supported") == true, "\(started)")
            #expect(try await live.store.users(projectID: "idp-project", after: nil, limit: 10).isEmpty)
        }
    }

    @Test func aProviderThatIsDownSlowOrTooTalkativeIsAnIdPErrorNotA500() async throws {
        try await withLive { live in
            let token = try await live.idToken(["sub": "s-1"])
            let slow = try await live.signIn("id_token=\(token)&providerId=oidc.slow")
            #expect(Self.error(slow) == "INVALID_IDP_RESPONSE : the identity provider cannot be reached")
            let down = try await live.signIn("id_token=\(token)&providerId=oidc.down")
            #expect(Self.error(down) == "INVALID_IDP_RESPONSE : the identity provider cannot be reached")
            let huge = try await live.signIn("id_token=\(token)&providerId=oidc.huge")
            #expect(Self.error(huge) == "INVALID_IDP_RESPONSE : the identity provider's answer could not be read")
            #expect(try await live.store.users(projectID: "idp-project", after: nil, limit: 10).isEmpty)
        }
    }
}


/// The redirect flow: `createAuthUri` with `providerId`, the provider's page, `signInWithIdp` with the URL it
/// returns to and the `sessionId`; the code is exchanged with PKCE.
@Suite(.enabled(if: TestIdentityProvider.unavailableReason() == nil,
                "test IdP unavailable: \(TestIdentityProvider.unavailableReason() ?? "")"))
struct RedirectFlowEndToEndTests {
    @Test func authorizationCodeWithPKCEStateAndSingleUseSessions() async throws {
        try await FederatedEndToEndTests().withLive(clientSecret: TestIdentityProvider.clientSecret) { live in
            let v1 = FederatedEndToEndTests.v1
            let start = try await live.post(Endpoints.createAuthUri.path, [
                "providerId": "oidc.acme", "continueUri": "http://localhost/__/auth/handler",
                "customParameter": ["login_hint": "rita", "lang": "fr"], "oauthScope": "openid,email"])
            let authURI = try #require(start["authUri"] as? String, "\(start)")
            let sessionID = try #require(start["sessionId"] as? String)
            let components = try #require(URLComponents(string: authURI))
            let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["code_challenge_method"] == "S256" && query["scope"] == "openid email" && query["lang"] == "fr")
            #expect(query["client_id"] == FederatedEndToEndTests.clientID && query["state"]?.isEmpty == false)

            let returned = try await live.idp.authorize(authURI)
            let tampered = returned.replacingOccurrences(of: "state=", with: "state=x")
            let wrongState = try await live.post(Endpoints.signInWithIdp.path,
                                                 ["requestUri": tampered, "sessionId": sessionID, "returnSecureToken": true])
            #expect(FederatedEndToEndTests.error(wrongState)?.contains("state") == true, "\(wrongState)")
            // The session was used up by the refused attempt: a state mismatch cannot be retried.
            let again = try await live.post(Endpoints.signInWithIdp.path,
                                            ["requestUri": returned, "sessionId": sessionID, "returnSecureToken": true])
            #expect(FederatedEndToEndTests.error(again)?.contains("sessionId") == true)

            // A fresh flow completes.
            let second = try await live.post(Endpoints.createAuthUri.path, [
                "providerId": "oidc.acme", "continueUri": "http://localhost/__/auth/handler", "customParameter": ["login_hint": "rita"]])
            let landed = try await live.idp.authorize(try #require(second["authUri"] as? String))
            let signedIn = try await live.post(Endpoints.signInWithIdp.path, [
                "requestUri": landed, "sessionId": second["sessionId"]!, "returnSecureToken": true, "returnIdpCredential": true])
            #expect(signedIn["isNewUser"] as? Bool == true)
            #expect(signedIn["email"] as? String == "rita@idp.example", "\(signedIn)")
            #expect(signedIn["oauthAccessToken"] is String && signedIn["oauthRefreshToken"] is String)
            #expect(signedIn["providerId"] as? String == "oidc.acme")

            let unauthorized = try await live.post(Endpoints.createAuthUri.path, [
                "providerId": "oidc.acme", "continueUri": "https://evil.example/steal"])
            #expect(FederatedEndToEndTests.error(unauthorized)?.hasPrefix("UNAUTHORIZED_DOMAIN") == true,
                    "codes are only ever sent back to authorized domains")
        }
    }
}

/// The hosted `/__/auth/handler` driven by headless Chromium: the browser goes handler → provider → handler → app,
/// and the app completes the sign-in with the link it received and its secret session id.
@Suite(.enabled(if: TestIdentityProvider.unavailableReason() == nil && Browser.unavailableReason() == nil,
                "needs authlib and chromium: \(TestIdentityProvider.unavailableReason() ?? Browser.unavailableReason() ?? "")"))
struct AuthHandlerBrowserTests {
    @Test func aBrowserRedirectFlowThroughTheHostedHandler() async throws {
        try await FederatedEndToEndTests().withLive(clientSecret: TestIdentityProvider.clientSecret) { live in
            let base = "http://127.0.0.1:\(live.client.port!)"
            let rawSession = "app-secret-session-\(UUID().uuidString)"
            let custom = #"{"login_hint":"browser-user"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let landing = "\(base)/landing"
            let start = "\(base)/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=oidc.acme"
                + "&sessionId=\(storageDigest(rawSession))&eventId=E1&authType=signInWithRedirect"
                + "&redirectUrl=\(landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&customParameters=\(custom)"
            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.open(start)
            var current = ""
            await eventually {
                current = (try? await browser.currentURL()) ?? current
                return current.hasPrefix(landing)
            }
            #expect(current.hasPrefix(landing), "the browser came back to the app: \(current)")
            let link = try #require(URLComponents(string: current)?.queryItems?.first { $0.name == "link" }?.value)
            #expect(link.hasPrefix("\(base)/__/auth/handler?") && link.contains("code="))

            let wrongSession = try await live.post("\(FederatedEndToEndTests.v1)/accounts:signInWithIdp",
                                                   ["requestUri": link, "sessionId": "not-the-app-secret", "returnSecureToken": true])
            #expect(FederatedEndToEndTests.error(wrongSession)?.hasPrefix("INVALID_IDP_RESPONSE") == true,
                    "the link alone signs nobody in")
            let signedIn = try await live.post("\(FederatedEndToEndTests.v1)/accounts:signInWithIdp",
                                               ["requestUri": link, "sessionId": rawSession, "returnSecureToken": true])
            #expect(signedIn["email"] as? String == "browser-user@idp.example" && signedIn["idToken"] is String, "\(signedIn)")
        }
    }

    /// Sign in with Apple on the web: the handler asks for `response_mode=form_post`, Apple posts the code, the
    /// state and (the first time) the user's name back to the handler, the code is exchanged with a client secret
    /// signed by the app's key, and the name reaches the account.
    @Test func appleAnswersWithAFormPostToTheHandler() async throws {
        try await FederatedEndToEndTests().withLive { live in
            let base = "http://127.0.0.1:\(live.client.port!)"
            let rawSession = "apple-session-\(UUID().uuidString)"
            let landing = "\(base)/landing"
            let custom = #"{"login_hint":"apple-web"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let start = try await live.client.execute(
                uri: "/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=apple.com&scopes=name,email"
                    + "&sessionId=\(storageDigest(rawSession))&customParameters=\(custom)"
                    + "&redirectUrl=\(landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", method: .get)
            let authorize = try #require(start.headers[.location], "\(start.status)")
            #expect(authorize.contains("response_mode=form_post") && authorize.contains("scope=name%20email"), "\(authorize)")

            // What the provider sends back, posted as Apple posts it.
            let returned = try #require(URLComponents(string: try await live.idp.authorize(authorize))?.queryItems)
            let code = try #require(returned.first { $0.name == "code" }?.value)
            let state = try #require(returned.first { $0.name == "state" }?.value)
            let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"apple-web@idp.example"}"#
            let form = "code=\(FormEncoding.escape(code))&state=\(FormEncoding.escape(state))&user=\(FormEncoding.escape(user))"
            let posted = try await live.client.execute(uri: "/__/auth/handler", method: .post,
                                                       headers: [.contentType: "application/x-www-form-urlencoded"],
                                                       body: ByteBuffer(string: form))
            let back = try #require(posted.headers[.location], "\(posted.status) \(String(buffer: posted.body))")
            #expect(back.hasPrefix(landing + "?link="))
            let link = try #require(URLComponents(string: back)?.queryItems?.first { $0.name == "link" }?.value)

            let signedIn = try await live.post("\(FederatedEndToEndTests.v1)/accounts:signInWithIdp",
                                               ["requestUri": link, "sessionId": rawSession, "returnSecureToken": true])
            #expect(signedIn["providerId"] as? String == "apple.com" && signedIn["displayName"] as? String == "Ada Lovelace",
                    "\(signedIn)")
            #expect(signedIn["email"] as? String == "apple-web@idp.example")

            // The same answer posted again: its state is used up.
            let again = try await live.client.execute(uri: "/__/auth/handler", method: .post,
                                                      headers: [.contentType: "application/x-www-form-urlencoded"],
                                                      body: ByteBuffer(string: form))
            #expect(again.status == .badRequest && again.headers[.location] == nil)
            let empty = try await live.client.execute(uri: "/__/auth/handler", method: .post,
                                                      headers: [.contentType: "application/x-www-form-urlencoded"],
                                                      body: ByteBuffer(string: "user=x"))
            #expect(empty.status == .badRequest && String(buffer: empty.body).contains("no state"))
        }
    }

    @Test(.enabled(if: TestIdentityProvider.hasOAuth1, "oauthlib unavailable"))
    func twitterThreeLeggedOAuth1ThroughTheHandler() async throws {
        try await FederatedEndToEndTests().withLive { live in
            let base = "http://127.0.0.1:\(live.client.port!)"
            let rawSession = "twitter-session-\(UUID().uuidString)"
            let landing = "\(base)/landing"
            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.open("\(base)/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=twitter.com"
                + "&sessionId=\(storageDigest(rawSession))&eventId=T1&redirectUrl=\(landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            var current = ""
            await eventually {
                current = (try? await browser.currentURL()) ?? current
                return current.hasPrefix(landing)
            }
            let link = try #require(URLComponents(string: current)?.queryItems?.first { $0.name == "link" }?.value, "\(current)")
            #expect(link.contains("oauth_verifier="))
            let signedIn = try await live.post("\(FederatedEndToEndTests.v1)/accounts:signInWithIdp",
                                               ["requestUri": link, "sessionId": rawSession, "returnSecureToken": true,
                                                "returnIdpCredential": true])
            #expect(signedIn["federatedId"] as? String == "tw-redirect" && signedIn["screenName"] as? String == "redirectbird",
                    "\(signedIn)")
            #expect(signedIn["oauthTokenSecret"] is String && signedIn["idToken"] is String)
        }
    }

    @Test func theHandlerRefusesBadStarts() async throws {
        try await FederatedEndToEndTests().withLive { live in
            let base = "http://127.0.0.1:\(live.client.port!)"
            let hash = storageDigest("s")
            let cases = [
                "\(base)/__/auth/handler?apiKey=wrong&providerId=oidc.acme&sessionId=\(hash)&redirectUrl=\(base)/x",
                "\(base)/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=oidc.acme&sessionId=\(hash)&redirectUrl=https%3A%2F%2Fevil.example%2F",
                "\(base)/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=yahoo.com&sessionId=\(hash)&redirectUrl=\(base)/x",
                "\(base)/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=oidc.acme&sessionId=short&redirectUrl=\(base)/x",
                "\(base)/__/auth/handler?code=abc&state=unknown",
            ]
            for url in cases {
                let response = try await live.client.execute(uri: String(url.dropFirst(base.count)), method: .get)
                #expect(response.status == .badRequest, "\(url): \(response.status)")
                #expect(response.headers[.location] == nil, "no redirect anywhere")
            }

            // A session id is good for one start: whoever saw its digest in the first browser's address cannot start
            // a second flow under it (and the answer is a page, not a server error).
            let once = "/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=oidc.acme"
                + "&sessionId=\(storageDigest("once"))&redirectUrl=\(base)/x"
            let first = try await live.client.execute(uri: once, method: .get)
            #expect(first.status == .found && first.headers[.location] != nil)
            let again = try await live.client.execute(uri: once, method: .get)
            #expect(again.status == .badRequest && again.headers[.location] == nil, "\(again.status)")
            #expect(String(buffer: again.body).contains("already"), "\(String(buffer: again.body))")
        }
    }
}

/// Emulator mode's fake-IdP page, filled in by headless Chromium as a developer would.
@Suite(.enabled(if: Browser.unavailableReason() == nil, "chromium unavailable: \(Browser.unavailableReason() ?? "")"))
struct EmulatorIdPBrowserTests {
    @Test func aDeveloperPicksAFakeAccountAndTheAppSignsIn() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let app = try await buildApplication(configuration: ServerConfiguration(mode: .emulator, port: 0, projectID: "demo-widget"),
                                             store: store, hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) })
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)"
            let landing = "\(base)/landing"
            let browser = try await Browser.start()
            defer { browser.stop() }
            try await browser.open("\(base)/emulator/auth/handler?apiKey=any&providerId=github.com&authType=signInWithRedirect"
                + "&redirectUrl=\(landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            try await browser.type("octo@example.com", into: "#email")
            try await browser.type("Octo Cat", into: "#displayName")
            try await browser.click("#sign-in")
            var current = ""
            await eventually {
                current = (try? await browser.currentURL()) ?? current
                return current.hasPrefix(landing)
            }
            let link = try #require(URLComponents(string: current)?.queryItems?.first { $0.name == "link" }?.value, "\(current)")
            let response = try await client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=any", method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["requestUri": link, "returnSecureToken": true])))
            let signedIn = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
            #expect(signedIn["email"] as? String == "octo@example.com" && signedIn["displayName"] as? String == "Octo Cat",
                    "\(signedIn)")
            #expect(signedIn["providerId"] as? String == "github.com" && signedIn["idToken"] is String)
        }
        try await store.close()
    }
}
