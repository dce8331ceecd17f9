import Foundation
import HearthCore
import HearthServer
import HTTPTypes
import HummingbirdTesting
import HearthWire
import Testing

/// Admin SDKs and the emulator's helpers call client paths (`accounts:lookup`, `update`, `delete`, `sendOobCode`,
/// `signUp`) with a bearer and no API key: such a call is an admin call, in the body's `targetProjectId` or the
/// credential's project. Without a bearer the same paths stay client calls.
@Suite struct ClientPathAdminTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    @Test func ownerActsAsAdminOnClientPathsInEmulatorMode() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let user = try await client.signUp("owner-path@example.com")
            let localID = try #require(user["localId"] as? String)
            let looked = try await client.post(Endpoints.lookup.path, ["localId": [localID]], key: nil, headers: owner)
            #expect(looked.status == 200 && looked.text.contains("owner-path@example.com"), "\(looked.text)")
            let updated = try await client.post(Endpoints.update.path, ["localId": localID, "displayName": "Set by admin"],
                                                key: nil, headers: owner)
            #expect(updated.status == 200, "\(updated.text)")
            // signUp as admin creates with the caller's choices, in another project when the body names one.
            let created = try await client.post(Endpoints.signUp.path,
                                                ["localId": "chosen-id", "email": "made@example.com", "targetProjectId": "other-proj"],
                                                key: nil, headers: owner)
            #expect(created.status == 200 && created["localId"] as? String == "chosen-id", "\(created.text)")
            let elsewhere = try await client.post(Endpoints.lookup.path, ["localId": ["chosen-id"], "targetProjectId": "other-proj"],
                                                  key: nil, headers: owner)
            #expect(elsewhere.text.contains("made@example.com"), "\(elsewhere.text)")
            let here = try await client.post(Endpoints.lookup.path, ["localId": ["chosen-id"]], key: nil, headers: owner)
            #expect(!here.text.contains("made@example.com"), "the default project does not have it")
            let deleted = try await client.post(Endpoints.delete.path, ["localId": localID], key: nil, headers: owner)
            #expect(deleted.status == 200, "\(deleted.text)")
            // Another scheme is ignored: a client call, which needs its key.
            let basic = try await client.post(Endpoints.lookup.path, ["idToken": "x"], key: nil,
                                              headers: [.authorization: "Basic b3duZXI6"])
            #expect(basic.status == 403, "\(basic.text)")
        }
    }

    @Test func productionNeedsAServiceAccountAndStaysInItsProject() async throws {
        var app = CredentialGuardsTests.productionApp()
        app.configuration.rateLimits = .init(enabled: true, signUpsPerAddress: .init(limit: 1, window: 3600))
        let signer = try await CredentialGuardsTests.register(app)
        let clock = app.clock
        try await app.run { client in
            func bearer() async throws -> HTTPFields { CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: clock.now())) }
            let owner = try await client.post(Endpoints.lookup.path, ["localId": ["x"]], key: nil,
                                              headers: [.authorization: "Bearer owner"])
            #expect(owner.status == 401, "owner is emulator-only: \(owner.text)")
            for index in 0..<3 {  // admin creations are not limited per address
                let made = try await client.post(Endpoints.signUp.path, ["email": "sa\(index)@example.com", "password": "secret1"],
                                                 key: nil, headers: try await bearer())
                #expect(made.status == 200, "\(made.text)")
            }
            let looked = try await client.post(Endpoints.lookup.path, ["email": ["sa1@example.com"]], key: nil,
                                               headers: try await bearer())
            #expect(looked.text.contains("sa1@example.com"), "\(looked.text)")
            let foreign = try await client.post(Endpoints.lookup.path, ["email": ["sa1@example.com"], "targetProjectId": "someone-else"],
                                                key: nil, headers: try await bearer())
            #expect(foreign.status == 403, "a service account acts in its own project only: \(foreign.text)")
        }
    }
}

/// Codes Firebase gives for absent input, distinct from invalid input, and the emulator's lenient owner forms.
@Suite struct MissingInputCodesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    @Test func absentInputHasItsOwnCode() async throws {
        try await TestApp(protection: false).run { client in
            let cases: [(String, [String: Any], String)] = [
                ("accounts:signInWithPassword", ["password": "secret1"], "MISSING_EMAIL"),
                ("accounts:signInWithPassword", ["email": "", "password": "secret1"], "INVALID_EMAIL"),
                ("accounts:signInWithPassword", ["email": "a@example.com"], "MISSING_PASSWORD"),
                ("accounts:signInWithCustomToken", [:], "MISSING_CUSTOM_TOKEN"),
                ("accounts:createAuthUri", ["continueUri": "http://localhost"], "MISSING_IDENTIFIER"),
                ("accounts:signInWithPhoneNumber", ["code": "123456"], "MISSING_SESSION_INFO"),
                ("accounts:signInWithPhoneNumber", ["sessionInfo": "not-a-session"], "MISSING_CODE"),
            ]
            for (verb, body, code) in cases {
                let reply = try await client.post("\(Self.v1)/\(verb)", body)
                #expect(reply.status == 400 && reply.errorMessage == code, "\(verb) \(body): \(reply.text)")
            }
        }
    }

    @Test func onlyAdminsNameAUserIDOrGiveSecondFactors() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        try await app.run { client in
            let chosen = try await client.post(Endpoints.signUp.path, ["localId": "mine", "email": "c@example.com", "password": "secret1"])
            #expect(chosen.errorMessage == "UNEXPECTED_PARAMETER : User ID", "\(chosen.text)")
            let badFactor = try await client.post(Endpoints.signUp.path,
                                                  ["email": "m@example.com", "mfaInfo": [["phoneInfo": "not-a-number"]]],
                                                  key: nil, headers: [.authorization: "Bearer owner"])
            #expect(badFactor.errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.", "\(badFactor.text)")
        }
    }

    @Test func emulatorOwnerIsCaseInsensitiveAndTakesGoogleAccessTokens() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        try await app.run { client in
            for credential in ["Bearer owner", "bearer OWNER", "Bearer ya29.a0AfH6SMBexample"] {
                let reply = try await client.post(Endpoints.lookup.path, ["localId": ["nobody"]], key: nil,
                                                  headers: [.authorization: credential])
                #expect(reply.status == 200, "\(credential): \(reply.text)")
            }
        }
        var production = CredentialGuardsTests.productionApp()
        production.configuration.rateLimits.enabled = false
        try await production.run { client in
            let reply = try await client.post(Endpoints.lookup.path, ["localId": ["nobody"]], key: nil,
                                              headers: [.authorization: "Bearer ya29.a0AfH6SMBexample"])
            #expect(reply.status == 401, "production checks its own credentials: \(reply.text)")
        }
    }
}

/// Legacy v3 admin names, full pages, the caller's createAuthUri session, and the emulator's fake reCAPTCHA.
@Suite struct EmulatorFidelityTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

    @Test func legacyDownloadAccountPagesAndNeedsItsTarget() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            for index in 0..<3 { _ = try await client.signUp("page\(index)@example.com") }
            let first = try await client.post("\(Self.v3)/downloadAccount", ["targetProjectId": "demo-project", "maxResults": 2],
                                              key: nil, headers: owner).object()
            #expect((first["users"] as? [[String: Any]])?.count == 2)
            let token = try #require(first["nextPageToken"] as? String, "a full page carries a token")
            let second = try await client.post("\(Self.v3)/downloadAccount",
                                               ["targetProjectId": "demo-project", "maxResults": 2, "nextPageToken": token],
                                               key: nil, headers: owner).object()
            #expect((second["users"] as? [[String: Any]])?.count == 1 && second["nextPageToken"] == nil)
            let untargeted = try await client.post("\(Self.v3)/downloadAccount", ["maxResults": 2], key: nil, headers: owner)
            #expect(untargeted.status == 400 && untargeted.errorMessage == "INSUFFICIENT_PERMISSION", "\(untargeted.text)")
            let upload = try await client.post("\(Self.v3)/uploadAccount", ["users": [["localId": "u1"]]], key: nil, headers: owner)
            #expect(upload.errorMessage == "INSUFFICIENT_PERMISSION", "\(upload.text)")
        }
    }

    @Test func createAuthUriAnswersWithTheCallersSession() async throws {
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.post(Endpoints.createAuthUri.path,
                                              ["identifier": "a@example.com", "continueUri": "http://localhost", "sessionId": "my-session-1"])
            #expect(reply["sessionId"] as? String == "my-session-1", "\(reply.text)")
        }
    }

    @Test func fakeRecaptchaParamsInEmulatorModeOnly() async throws {
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.send(.get, "\(Self.v1)/recaptchaParams")
            #expect(reply.status == 200 && (reply["recaptchaSiteKey"] as? String)?.hasPrefix("Fake-key") == true)
        }
        try await TestApp().run { client in
            let production = try await client.send(.get, "\(Self.v1)/recaptchaParams")
            #expect(production.status == 404)
        }
    }
}

extension EmulatorFidelityTests {
    @Test func addressesAreStoredLowercasedAndAnonymousAccountsTakeNoProfile() async throws {
        try await TestApp().run { client in
            let user = try await client.signUp("AlIcE@exAMPle.COM")
            #expect(user["email"] as? String == "alice@example.com", "\(user)")
            let signedIn = try await client.post(Endpoints.signInWithPassword.path,
                                                 ["email": "ALICE@example.com", "password": "secret1"])
            #expect(signedIn.status == 200, "any case signs in")
            let anonymous = try await client.post(Endpoints.signUp.path, ["displayName": "Me", "returnSecureToken": true])
            let idToken = try #require(anonymous["idToken"] as? String)
            let looked = try await client.post(Endpoints.lookup.path, ["idToken": idToken])
            #expect(!looked.text.contains("\"displayName\""), "\(looked.text)")
        }
    }
}

extension EmulatorFidelityTests {
    /// Test suites sign thousands of users up: emulator mode hashes at Firebase scrypt's lowest cost, production at
    /// Firebase's usual one. The hashes stay Firebase scrypt and verify either way.
    @Test(arguments: [ServerConfiguration.Mode.emulator, .production])
    func emulatorModeHashesAtTheLowestCost(mode: ServerConfiguration.Mode) async throws {
        let store = InMemoryStore()
        let configuration = ServerConfiguration(mode: mode, port: 0, projectID: "demo-project",
                                                initialAPIKey: TestApp.apiKey)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: InlineWorkRunner())
        try await app.test(.router) { raw in
            let client = Client(client: raw)
            _ = try await client.signUp("cost@example.com", "secret1")
            let signedIn = try await client.post(Endpoints.signInWithPassword.path,
                                                 ["email": "cost@example.com", "password": "secret1"])
            #expect(signedIn.status == 200)
        }
        let project = try #require(try await store.project(id: "demo-project"))
        let stored = try #require(try await store.user(projectID: "demo-project", tenantID: nil, email: "cost@example.com")?.passwordHash)
        let parsed = try #require(FirebaseScryptHash(stored))
        #expect(parsed.parameters == project.hashConfig)
        let expected = mode == .emulator ? (rounds: 1, memoryCost: 1) : (rounds: 8, memoryCost: 14)
        #expect(parsed.parameters.rounds == expected.rounds && parsed.parameters.memoryCost == expected.memoryCost)
        #expect(try PasswordHash.verify("secret1", against: stored) && !(try PasswordHash.verify("secret2", against: stored)))
    }
}

extension EmulatorFidelityTests {
    /// Firebase's emulator lets a client sign up with second factors (ids generated, a number once); production
    /// does not let a client enrol a factor it never proved, and ignores them.
    @Test(arguments: [ServerConfiguration.Mode.emulator, .production])
    func clientSignUpWithSecondFactors(mode: ServerConfiguration.Mode) async throws {
        try await TestApp(mode: mode).run { client in
            let factor: [String: Any] = ["phoneInfo": "+15555550100", "displayName": "Cell", "mfaEnrollmentId": "mine"]
            let created = try await client.post(Endpoints.signUp.path, [
                "email": "mfa@example.com", "password": "secret1", "mfaInfo": [factor, factor]])
            #expect(created.status == 200, "\(created.text)")
            let stored = try await client.post(Endpoints.signInWithPassword.path, ["email": "mfa@example.com", "password": "secret1"])
            if mode == .emulator {
                let info = try #require((stored["mfaInfo"] as? [[String: Any]]))
                #expect(info.count == 1 && info[0]["mfaEnrollmentId"] as? String != "mine", "\(stored.text)")
            } else {
                #expect(stored["idToken"] is String && stored["mfaInfo"] == nil, "\(stored.text)")
            }
        }
    }
}

extension EmulatorFidelityTests {
    /// Emulator mode takes plain-JSON custom tokens, as Firebase's emulator (and the JS SDK's tests) use them;
    /// production takes only signed ones. A token without a uid is MISSING_IDENTIFIER in both.
    @Test func plainJSONCustomTokensInEmulatorModeOnly() async throws {
        let path = Endpoints.signInWithCustomToken.path
        try await TestApp(mode: .emulator).run { client in
            let signedIn = try await client.post(path, ["token": #"{"uid":"json-user","claims":{"role":"admin"}}"#])
            let idToken = try #require(signedIn["idToken"] as? String, "\(signedIn.text)")
            let payload = try #require(Base64URL.decode(idToken.split(separator: ".")[1]))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["user_id"] as? String == "json-user" && claims["role"] as? String == "admin")
            #expect(try await client.post(path, ["token": #"{"look":"no uid"}"#]).errorMessage == "MISSING_IDENTIFIER")
            #expect(try await client.post(path, ["token": #"{"uid":"x","claims":{"firebase":1}}"#]).errorMessage?
                .hasPrefix("FORBIDDEN_CLAIM : firebase") == true)
            #expect(try await client.post(path, ["token": "{not json"]).errorMessage?.hasPrefix("INVALID_CUSTOM_TOKEN") == true)
        }
        try await TestApp().run { client in
            let refused = try await client.post(path, ["token": #"{"uid":"json-user"}"#])
            #expect(refused.errorMessage == "INVALID_CUSTOM_TOKEN : Invalid assertion format", "\(refused.text)")
        }
    }
}

extension EmulatorFidelityTests {
    /// Android sends enum numbers (`requestType: 6` is EMAIL_SIGNIN); a client naming `targetProjectId` is refused
    /// without an admin credential; emulator mode answers Chrome's Private Network Access preflight.
    @Test func enumNumbersTargetsAndPrivateNetworkPreflight() async throws {
        try await TestApp(mode: .emulator).run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            for path in [Endpoints.sendOobCode.path, "\(Self.v3)/getOobConfirmationCode"] {
                let link = try await client.post(path, ["email": "n@example.com", "requestType": 6, "returnOobLink": true],
                                                 key: nil, headers: owner)
                #expect((link["oobLink"] as? String)?.contains("mode=signIn") == true, "\(path): \(link.text)")
            }
            let unknown = try await client.post(Endpoints.sendOobCode.path, ["email": "n@example.com", "requestType": 42],
                                                key: nil, headers: owner)
            #expect(unknown.status == 400)
            let targeted = try await client.post(Endpoints.signUp.path, ["targetProjectId": "other-project"])
            #expect(targeted.errorMessage == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            let preflight = try await client.send(.options, "/", headers: [
                .origin: "http://tunnel.example", HTTPField.Name("Access-Control-Request-Private-Network")!: "true"])
            #expect(preflight.status == 204 && preflight.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] == "true")
        }
        try await TestApp().run { client in
            let preflight = try await client.send(.options, "/", headers: [
                .origin: "http://tunnel.example", HTTPField.Name("Access-Control-Request-Private-Network")!: "true"])
            #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] == nil, "production keeps private networks private")
        }
    }
}

extension EmulatorFidelityTests {
    /// Several accounts per email: createAuthUri lists an account's password methods only, since its identities'
    /// addresses say nothing about it. And under enumeration protection, Firebase's emulator answers an
    /// administrator's reset link for an unknown address as quietly as a client's.
    @Test func duplicateEmailModeAndQuietAdminResets() async throws {
        try await TestApp(mode: .emulator).run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let user = try await client.signUp("dup@example.com")
            _ = try await client.post(Endpoints.signInWithIdp.path, [
                "idToken": user["idToken"] as Any, "requestUri": "http://localhost",
                "postBody": "providerId=google.com&id_token=\(FormEncoding.escape(#"{"sub":"d1","email":"other@example.com"}"#))"])
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            _ = try await client.send(.patch, config + "?updateMask=signIn.allowDuplicateEmails,emailPrivacyConfig",
                                      ["signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false]],
                                      key: nil, headers: owner)
            let methods = try await client.post(Endpoints.createAuthUri.path, ["identifier": "dup@example.com", "continueUri": "http://localhost"])
            #expect(methods["signinMethods"] as? [String] == ["password"], "\(methods.text)")
            _ = try await client.send(.patch, config + "?updateMask=emailPrivacyConfig",
                                      ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]], key: nil, headers: owner)
            let quiet = try await client.post(Endpoints.sendOobCode.path,
                                              ["requestType": "PASSWORD_RESET", "email": "nobody@example.com", "returnOobLink": true],
                                              key: nil, headers: owner)
            #expect(quiet.status == 200 && quiet["email"] as? String == "nobody@example.com" && quiet["oobLink"] == nil, "\(quiet.text)")
        }
    }
}

extension EmulatorFidelityTests {
    /// A client describing an identity to link (`linkProviderUserInfo`): nobody vouches for it, so production takes
    /// it from administrators only; emulator mode links it, as Firebase's emulator does, and both name what is missing.
    @Test(arguments: [ServerConfiguration.Mode.emulator, .production])
    func describedIdentitiesAreLinkedByClientsOnlyInEmulatorMode(mode: ServerConfiguration.Mode) async throws {
        try await TestApp(mode: mode).run { client in
            let user = try await client.signUp("link@example.com")
            let identity = ["providerId": "google.com", "rawId": "g-7", "email": "linked@example.com"]
            let linked = try await client.post(Endpoints.update.path, ["idToken": user["idToken"] as Any, "linkProviderUserInfo": identity])
            if mode == .production {
                #expect(linked.errorMessage == "INSUFFICIENT_PERMISSION", "\(linked.text)")
                return
            }
            let providers = try #require(linked["providerUserInfo"] as? [[String: Any]], "\(linked.text)")
            #expect(providers.count == 2 && providers.contains { $0["rawId"] as? String == "g-7" })
            for (partial, code) in [(["providerId": "google.com"], "MISSING_RAW_ID"), (["rawId": "x"], "MISSING_PROVIDER_ID")] {
                let reply = try await client.post(Endpoints.update.path, ["idToken": user["idToken"] as Any, "linkProviderUserInfo": partial])
                #expect(reply.errorMessage == code, "\(reply.text)")
            }
        }
    }
}

extension EmulatorFidelityTests {
    /// `createAuthUri` finds an account by its own email or, failing that, by a linked identity's, as Firebase does;
    /// a later sign-in that brings the identity a new email moves the lookup with it.
    @Test func signInMethodsAreFoundByAnIdentitysEmailToo() async throws {
        try await TestApp(mode: .emulator).run { client in
            func idp(_ email: String) async throws -> Reply {
                try await client.post(Endpoints.signInWithIdp.path, [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": "providerId=google.com&id_token=\(FormEncoding.escape(#"{"sub":"m1","email":"\#(email)"}"#))"])
            }
            func methods(_ email: String) async throws -> [String]? {
                try await client.post(Endpoints.createAuthUri.path, ["identifier": email, "continueUri": "http://localhost"])["signinMethods"] as? [String]
            }
            _ = try await idp("first@example.com")
            #expect(try await methods("FIRST@example.com") == ["google.com"])
            _ = try await idp("second@example.com")
            #expect(try await methods("second@example.com") == ["google.com"], "found by the identity's new email")
            #expect(try await methods("nobody@example.com") == [])
        }
    }
}
