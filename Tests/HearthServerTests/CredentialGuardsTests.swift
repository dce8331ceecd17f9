import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// Production admin credentials: service-account JWTs (audience, lifetime, single use), and custom tokens.
@Suite struct CredentialGuardsTests {
    static let audience = "https://auth.example.test"
    static let lookup = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup"
    static let customToken = Endpoints.signInWithCustomToken.path
    static let refresh = "/securetoken.googleapis.com/v1/token"

    static func productionApp() -> TestApp {
        var app = TestApp()
        app.configuration.publicURL = audience
        return app
    }

    /// Creates the project as a first start would and registers a new service account with it.
    static func register(_ app: TestApp, name: String = "backend-api") async throws -> ServiceAccountSigner {
        let directory = ProjectDirectory(store: app.store, clock: app.clock,
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: "demo-project", apiKey: TestApp.apiKey).record
        let key = try ServiceAccountKey.generate(name: name, projectID: record.id, now: app.clock.now())
        record.serviceAccounts.append(key.record)
        try await app.store.updateProject(record)
        return try await ServiceAccountSigner(keyFile: key.keyFileJSON)
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test func aSignedAssertionIsAcceptedOnceAndOnlyForItsAudienceAndLifetime() async throws {
        let app = Self.productionApp()
        let signer = try await Self.register(app)
        try await app.run { client in
            let token = try await signer.assertion(audience: Self.audience, now: app.clock.now())
            let ok = try await client.post(Self.lookup, ["localId": ["nobody"]], key: nil, headers: Self.bearer(token))
            #expect(ok.status == 200, "\(ok.text)")
            let replay = try await client.post(Self.lookup, ["localId": ["nobody"]], key: nil, headers: Self.bearer(token))
            #expect(replay.status == 401 && replay.text.contains("UNAUTHENTICATED"), "a used assertion cannot be replayed")

            let refused: [(String, String)] = [
                ("wrong audience", try await signer.assertion(audience: "https://elsewhere.example")),
                ("lifetime over an hour", try await signer.assertion(audience: Self.audience, lifetime: 7200)),
                ("expired", try await signer.assertion(audience: Self.audience, now: Date().addingTimeInterval(-4000))),
                ("issued in the future", try await signer.assertion(audience: Self.audience, now: Date().addingTimeInterval(600))),
                ("no jti", try await signer.assertion(audience: Self.audience, jti: nil)),
                ("issuer is not the key's account", try await signer.assertion(audience: Self.audience, issuer: "x@y.iam.hearth")),
                ("owner is emulator-only", "owner"),
                ("garbage", "not.a.jwt"),
            ]
            for (why, credential) in refused {
                let reply = try await client.post(Self.lookup, ["localId": ["x"]], key: nil, headers: Self.bearer(credential))
                #expect(reply.status == 401, "\(why): \(reply.text)")
                #expect(reply.errorMessage?.hasPrefix("Request had invalid authentication credentials") == true, "\(why)")
            }
            let stranger = try await ServiceAccountSigner(
                keyFile: try ServiceAccountKey.generate(name: "stranger", projectID: "demo-project", now: Date()).keyFileJSON)
            let unknown = try await client.post(Self.lookup, ["localId": ["x"]], key: nil,
                                                headers: Self.bearer(try await stranger.assertion(audience: Self.audience)))
            #expect(unknown.status == 401, "a key the project does not know")

            let other = try await client.post("/identitytoolkit.googleapis.com/v1/projects/other-project/accounts:lookup",
                                              ["localId": ["x"]], key: nil,
                                              headers: Self.bearer(try await signer.assertion(audience: Self.audience, now: app.clock.now())))
            #expect(other.status == 403 && other.text.contains("PERMISSION_DENIED"))
        }
    }

    @Test func customTokensSignInCreateTheUserOnceAndCarryTheirClaimsThroughRefresh() async throws {
        let app = Self.productionApp()
        let signer = try await Self.register(app)
        try await app.run { client in
            let token = try await signer.customToken(uid: "custom-1", claims: ["role": "admin"])
            let first = try await client.post(Self.customToken, ["token": token, "returnSecureToken": true])
            #expect(first.status == 200, "\(first.text)")
            #expect(first["isNewUser"] as? Bool == true && first["kind"] as? String == "identitytoolkit#VerifyCustomTokenResponse")
            let claims = try decodeJWT(try #require(first["idToken"] as? String))
            #expect(claims["sub"] as? String == "custom-1" && claims["role"] as? String == "admin")
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "custom")

            let refreshed = try await client.post(Self.refresh, ["grant_type": "refresh_token",
                                                                 "refresh_token": first["refreshToken"] as! String])
            #expect(try decodeJWT(try #require(refreshed["id_token"] as? String))["role"] as? String == "admin",
                    "session claims survive a refresh")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "custom-1"))
            #expect(stored.customAttributes == nil, "a custom token's claims are not stored on the user")

            let again = try await client.post(Self.customToken, ["token": try await signer.customToken(uid: "custom-1")])
            #expect(again["isNewUser"] as? Bool == false)
            #expect(try decodeJWT(try #require(again["idToken"] as? String))["role"] == nil)
        }
    }

    @Test func badCustomTokensAreRefusedWithFirebaseErrors() async throws {
        let app = Self.productionApp()
        let signer = try await Self.register(app)
        let stranger = try await ServiceAccountSigner(
            keyFile: try ServiceAccountKey.generate(name: "stranger", projectID: "demo-project", now: Date()).keyFileJSON)
        try await app.run { client in
            let unsigned = try Fixture("signInWithCustomToken-existing-user").requestBody as! [String: Any]
            let cases: [(String, String, String)] = [
                ("unsigned in production", unsigned["token"] as! String,
                 "INVALID_CUSTOM_TOKEN : Custom tokens must be signed with RS256"),
                ("unknown key", try await stranger.customToken(uid: "u"),
                 "CREDENTIAL_MISMATCH : The custom token corresponds to a different audience."),
                ("wrong audience", try await signer.customToken(uid: "u", audience: "https://example.com/x"),
                 "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): https://example.com/x Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"),
                ("expired", try await signer.customToken(uid: "u", now: Date().addingTimeInterval(-7200)),
                 "INVALID_CUSTOM_TOKEN : The custom token has expired"),
                ("too long", try await signer.customToken(uid: "u", lifetime: 7200),
                 "INVALID_CUSTOM_TOKEN : The custom token's lifetime is longer than one hour"),
                ("reserved claim", try await signer.customToken(uid: "u", claims: ["sub": "x"]), "FORBIDDEN_CLAIM : sub"),
                ("empty uid", try await signer.customToken(uid: ""),
                 "INVALID_CUSTOM_TOKEN : The uid must be a non-empty string of at most 128 characters"),
                ("not a JWT", "not-a-jwt", "INVALID_CUSTOM_TOKEN : Invalid assertion format"),
                ("no uid", try await signer.customToken(uid: nil), "INVALID_CUSTOM_TOKEN : The custom token has no uid"),
            ]
            for (why, token, message) in cases {
                let reply = try await client.post(Self.customToken, ["token": token])
                #expect(reply.status == 400, "\(why)")
                #expect(reply.errorMessage == message, "\(why): \(reply.text)")
            }
            // Tamper with a valid token's payload: the signature no longer matches.
            let valid = try await signer.customToken(uid: "u")
            var parts = valid.split(separator: ".").map(String.init)
            parts[1] = Base64URL.encode(Data(#"{"aud":"\#(CustomToken.audience)","iss":"\#(signer.email)","sub":"\#(signer.email)","uid":"admin","iat":1,"exp":9999999999}"#.utf8))
            let forged = try await client.post(Self.customToken, ["token": parts.joined(separator: ".")])
            #expect(forged.errorMessage == "INVALID_CUSTOM_TOKEN : The custom token's signature does not verify")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "u") == nil,
                    "no refused token created an account")
            // An ID token is named as one (its audience), before any signature check, as Firebase's emulator does.
            let idToken = try #require(try await client.signUp("idtoken@example.com")["idToken"] as? String)
            let mistaken = try await client.post(Self.customToken, ["token": idToken])
            #expect(mistaken.errorMessage == "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): demo-project Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))",
                    "\(mistaken.text)")
        }
    }

    @Test func emulatorModeAcceptsTheEmulatorsUnsignedCustomTokens() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            for name in ["signInWithCustomToken-with-claims", "signInWithCustomToken-existing-user",
                         "signInWithCustomToken-reserved-claim", "signInWithCustomToken-wrong-audience",
                         "signInWithCustomToken-invalid-token"] {
                let fixture = try Fixture(name)
                let reply = try await client.post(fixture.path, fixture.requestBody)
                #expect(reply.status == fixture.status, "\(name): \(reply.text)")
                if fixture.status == 200 {
                    expectSameShape(try reply.object(), fixture.body)
                    let expected = try decodeJWT(((fixture.body as! [String: Any])["idToken"] as! String))
                    let ours = try decodeJWT(try #require(reply["idToken"] as? String))
                    #expect(ours["role"] as? String == expected["role"] as? String, "\(name)")
                    #expect(reply["isNewUser"] as? Bool == (fixture.body as! [String: Any])["isNewUser"] as? Bool, "\(name)")
                } else {
                    #expect(reply.errorMessage == ((fixture.body as! [String: Any])["error"] as! [String: Any])["message"] as? String,
                            "\(name)")
                }
            }
        }
    }
}

/// The payload of a JWT, unverified (the tests check what Hearth put in it).
func decodeJWT(_ token: String) throws -> [String: Any] {
    let part = token.split(separator: ".", omittingEmptySubsequences: false)[1]
    let data = try #require(Base64URL.decode(part))
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}
