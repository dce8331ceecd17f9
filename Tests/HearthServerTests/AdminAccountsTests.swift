import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// Admin account operations beyond import: create, lookup by phone / identity, batchGet, query, batchDelete,
/// sendOobCode with returnOobLink, session cookies and the v2 config resource; against the emulator's captures.
@Suite struct AdminAccountsTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"

    /// Replays a fixture (emulator mode, `Bearer owner`) and checks status and shape.
    @discardableResult
    static func replay(_ name: String, _ client: Client, ignoring: Set<String> = []) async throws -> Reply {
        let fixture = try Fixture(name)
        let method = HTTPRequest.Method(fixture.request["method"] as! String)!
        let fullPath = fixture.request["path"] as! String
        let reply = try await client.send(method, fullPath, fixture.requestBody, key: nil, headers: owner)
        #expect(reply.status == fixture.status, "\(name): \(reply.text)")
        expectSameShape(try reply.object(), fixture.body, ignoring: ignoring)
        return reply
    }

    static func createFiveUsers(_ client: Client) async throws {
        for index in 1...5 {
            let id = String(format: "user-%02d", index)
            let reply = try await client.post("\(base)/accounts", ["localId": id, "email": "\(id.replacingOccurrences(of: "-", with: ""))@example.com",
                                                                   "password": "secret123"], key: nil, headers: owner)
            try #require(reply.status == 200, "\(reply.text)")
        }
    }

    @Test func createWithAndWithoutLocalIdAndTheDuplicateRules() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let created = try await Self.replay("admin-create-account", client)
            let id = try #require(created["localId"] as? String)
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: id))
            #expect(stored.displayName == "Admin Created" && stored.passwordHash != nil)
            let signIn = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "admin.created@example.com", "password": "secret123"])
            #expect(signIn.status == 200, "an admin-created user signs in with the password given")

            let withPhone = try await Self.replay("admin-create-account-with-localId-and-phone", client)
            #expect(withPhone["localId"] as? String == "admin-uid-42")
            let duplicate = try await Self.replay("admin-create-account-duplicate-localId", client)
            #expect(duplicate.errorMessage == "DUPLICATE_LOCAL_ID")
            let samePhone = try await client.post("\(Self.base)/accounts", ["phoneNumber": "+15555550142"], key: nil, headers: Self.owner)
            #expect(samePhone.errorMessage == "PHONE_NUMBER_EXISTS")
            let badPhone = try await client.post("\(Self.base)/accounts", ["phoneNumber": "555-0142"], key: nil, headers: Self.owner)
            #expect(badPhone.errorMessage?.hasPrefix("INVALID_PHONE_NUMBER") == true)
            let sameEmail = try await client.post("\(Self.base)/accounts", ["email": "uid42@example.com"], key: nil, headers: Self.owner)
            #expect(sameEmail.errorMessage == "EMAIL_EXISTS")
            let weak = try await client.post("\(Self.base)/accounts", ["email": "weak@example.com", "password": "123"], key: nil, headers: Self.owner)
            #expect(weak.errorMessage?.hasPrefix("WEAK_PASSWORD") == true)
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "weak@example.com") == nil)
        }
    }

    @Test func lookupByPhoneAndByLinkedIdentityAndLinkingThroughUpdate() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            try await client.post("\(Self.base)/accounts", ["localId": "p1", "phoneNumber": "+15555550100"], key: nil, headers: Self.owner)
            try await client.post("\(Self.base)/accounts", ["localId": "p2", "email": "p2@example.com"], key: nil, headers: Self.owner)
            let link = try await client.post("\(Self.base)/accounts:update", [
                "localId": "p2", "linkProviderUserInfo": ["providerId": "google.com", "rawId": "g-123", "email": "p2@gmail.com"],
            ], key: nil, headers: Self.owner)
            #expect(link.status == 200, "\(link.text)")
            let taken = try await client.post("\(Self.base)/accounts:update", [
                "localId": "p1", "linkProviderUserInfo": ["providerId": "google.com", "rawId": "g-123"],
            ], key: nil, headers: Self.owner)
            #expect(taken.errorMessage == "FEDERATED_USER_ID_ALREADY_LINKED")

            let found = try await client.post("\(Self.base)/accounts:lookup", [
                "phoneNumber": ["+15555550100"], "federatedUserId": [["providerId": "google.com", "rawId": "g-123"]],
            ], key: nil, headers: Self.owner)
            let ids = (found["users"] as? [[String: Any]])?.compactMap { $0["localId"] as? String }
            #expect(ids == ["p1", "p2"], "\(found.text)")
            let providers = ((found["users"] as? [[String: Any]])?[1]["providerUserInfo"] as? [[String: Any]])?
                .compactMap { $0["providerId"] as? String }
            #expect(providers == ["google.com"])

            let unlinked = try await client.post("\(Self.base)/accounts:update", ["localId": "p2", "deleteProvider": ["google.com"]],
                                                 key: nil, headers: Self.owner)
            #expect(unlinked.status == 200)
            let gone = try await client.post("\(Self.base)/accounts:lookup", [
                "federatedUserId": [["providerId": "google.com", "rawId": "g-123"]]], key: nil, headers: Self.owner)
            #expect(gone["users"] == nil)
        }
    }

    @Test func batchGetPagesInLocalIdOrderWithExportableHashes() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            try await Self.createFiveUsers(client)
            // Never-signed-in users have no lastLoginAt (the emulator's fixture users had signed in).
            let first = try await Self.replay("admin-batchGet-page1", client, ignoring: ["lastLoginAt"])
            #expect((first["users"] as? [[String: Any]])?.map { $0["localId"] as! String } == ["user-01", "user-02"])
            #expect(first["nextPageToken"] as? String == "user-02")
            let user = try #require((first["users"] as? [[String: Any]])?.first)
            #expect(Data(base64Encoded: user["passwordHash"] as? String ?? "")?.count == 64, "Firebase-scrypt hash for export")
            let last = try await Self.replay("admin-batchGet-last-page", client, ignoring: ["lastLoginAt"])
            #expect((last["users"] as? [[String: Any]])?.map { $0["localId"] as! String } == ["user-05"])
            #expect(last["nextPageToken"] == nil)
            let tooMany = try await client.send(.get, "\(Self.base)/accounts:batchGet?maxResults=1001", key: nil, headers: Self.owner)
            #expect(tooMany.status == 400)
        }
    }

    @Test func queryCountsSortsPagesAndFilters() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            try await Self.createFiveUsers(client)
            let all = try await Self.replay("admin-query", client, ignoring: ["lastLoginAt"])
            #expect(all["recordsCount"] as? String == "5")
            try await Self.replay("admin-query-count-only", client)
            // Production supports what the emulator answers 501 to.
            let page = try await client.post("\(Self.base)/accounts:query", [
                "returnUserInfo": true, "limit": "2", "offset": "1", "sortBy": "USER_ID", "order": "DESC",
            ], key: nil, headers: Self.owner)
            #expect(page["recordsCount"] as? String == "5")
            #expect((page["userInfo"] as? [[String: Any]])?.map { $0["localId"] as! String } == ["user-04", "user-03"])
            let filtered = try await client.post("\(Self.base):queryAccounts", [
                "expression": [["email": "USER03@example.com"]],
            ], key: nil, headers: Self.owner)
            #expect((filtered["userInfo"] as? [[String: Any]])?.map { $0["localId"] as! String } == ["user-03"])
            let bad = try await client.post("\(Self.base)/accounts:query", ["sortBy": "FAVOURITE"], key: nil, headers: Self.owner)
            #expect(bad.status == 400)
        }
    }

    @Test func batchDeleteNeedsForceForEnabledAccounts() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            try await Self.createFiveUsers(client)
            let refused = try await Self.replay("admin-batchDelete-without-force", client)
            #expect((refused["errors"] as? [[String: Any]])?.count == 2)
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "user-01") != nil)
            try await client.post("\(Self.base)/accounts:update", ["localId": "user-02", "disableUser": true], key: nil, headers: Self.owner)
            try await Self.replay("admin-batchDelete-disabled-without-force", client)
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "user-02") == nil)
            try await Self.replay("admin-batchDelete-force", client)
            let left = try await app.store.users(projectID: "demo-project", after: nil, limit: 10).map(\.localID)
            #expect(left == ["user-04", "user-05"])
            let tooMany = try await client.post("\(Self.base)/accounts:batchDelete",
                                                ["localIds": (0...1000).map { "u\($0)" }, "force": true], key: nil, headers: Self.owner)
            #expect(tooMany.errorMessage == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        }
    }

    @Test func sendOobCodeWithReturnOobLinkReturnsWorkingLinksAndSendsNothing() async throws {
        var configured = TestApp(mode: .emulator)
        configured.configuration.authorizedDomains = ["localhost", "127.0.0.1", "app.example.com"]
        let app = configured
        try await app.run { client in
            try await client.post("\(Self.base)/accounts", ["email": "oob.admin@example.com", "password": "secret123"],
                                  key: nil, headers: Self.owner)
            for name in ["admin-sendOobCode-password-reset-returnOobLink", "admin-sendOobCode-verify-email-returnOobLink",
                         "admin-sendOobCode-email-signin-returnOobLink"] {
                let reply = try await Self.replay(name, client)
                let link = try #require(reply["oobLink"] as? String)
                let code = try #require(reply["oobCode"] as? String)
                #expect(link.contains("oobCode=\(code)"), "\(name)")
            }
            // Nothing is sent in emulator mode; the codes are listed, as Firebase's emulator lists every code (a
            // production call with returnOobLink queues nothing: ActionCodesTests).
            #expect(try await app.store.outboxMessages(projectID: "demo-project").count == 3)
            let reset = try await client.post("\(Self.base)/accounts:sendOobCode", [
                "requestType": "PASSWORD_RESET", "email": "oob.admin@example.com", "returnOobLink": true,
            ], key: nil, headers: Self.owner)
            let applied = try await client.post(Endpoints.resetPassword.path, [
                "oobCode": reset["oobCode"] as! String, "newPassword": "brand-new-1",
            ])
            #expect(applied.status == 200, "the returned code works: \(applied.text)")
            let unknown = try await client.post("\(Self.base)/accounts:sendOobCode", [
                "requestType": "VERIFY_EMAIL", "email": "nobody@example.com", "returnOobLink": true,
            ], key: nil, headers: Self.owner)
            #expect(unknown.errorMessage == "USER_NOT_FOUND", "what the Admin SDKs read as auth/user-not-found")
            let clientSide = try await client.post(Endpoints.sendOobCode.path, [
                "requestType": "PASSWORD_RESET", "email": "oob.admin@example.com", "returnOobLink": true,
            ])
            #expect(clientSide.errorMessage?.hasPrefix("INSUFFICIENT_PERMISSION") == true, "clients cannot ask for the link")
        }
    }

    @Test func sessionCookiesCarryTheIDTokenClaimsUnderTheirOwnIssuerAndLifetime() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let user = try await client.signUp("cookie@example.com")
            let idToken = user["idToken"] as! String
            let path = "\(Self.base):createSessionCookie"
            func call(_ body: [String: Any]) async throws -> Reply {
                try await client.post(path, body, key: nil,
                                      headers: CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now())))
            }
            let reply = try await call(["idToken": idToken, "validDuration": "604800"])
            #expect(reply.status == 200, "\(reply.text)")
            let cookie = try #require(reply["sessionCookie"] as? String)
            let claims = try decodeJWT(cookie)
            let token = try decodeJWT(idToken)
            #expect(claims["iss"] as? String == "https://session.firebase.google.com/demo-project")
            #expect((claims["exp"] as! Int) - (claims["iat"] as! Int) == 604800)
            #expect(claims["sub"] as? String == token["sub"] as? String && claims["auth_time"] as? Int == token["auth_time"] as? Int)
            #expect(claims["email"] as? String == "cookie@example.com")
            // Signed with the ID-token keys, which the session-cookie key endpoints publish.
            let project = try #require(try await app.store.project(id: "demo-project"))
            #expect(throws: Never.self) { try JWS.verify(cookie, keys: try KeyRing(project.signingKeys)) }

            for duration in ["299", "1209601"] {
                #expect(try await call(["idToken": idToken, "validDuration": duration]).errorMessage?.hasPrefix("INVALID_DURATION") == true)
            }
            #expect(try await call(["idToken": "not-a-jwt", "validDuration": "600"]).errorMessage == "INVALID_ID_TOKEN")
            // No duration: the longest, two weeks, as Firebase's emulator gives.
            let longest = try await call(["idToken": idToken])
            let longestClaims = try decodeJWT(try #require(longest["sessionCookie"] as? String, "\(longest.text)"))
            #expect((longestClaims["exp"] as! Int) - (longestClaims["iat"] as! Int) == 14 * 86_400)
        }
    }

    @Test func sessionCookieFixturesReplayInEmulatorMode() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let user = try await client.signUp("oob.admin@example.com")
            let fixture = try Fixture("admin-createSessionCookie")
            var body = fixture.requestBody as! [String: Any]
            body["idToken"] = user["idToken"]
            let reply = try await client.post(fixture.path, body, key: nil, headers: Self.owner)
            #expect(reply.status == 200)
            expectSameShape(try reply.object(), fixture.body)
            try await Self.replay("admin-createSessionCookie-invalid-id-token", client)
        }
    }

    @Test func projectConfigReadsAndPatchesTheSignInSettings() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            let config = try await client.send(.get, path, key: nil, headers: Self.owner)
            #expect(config.status == 200)
            // The emulator's shape: its tests compare `signIn` whole.
            #expect(config["signIn"] as? [String: Bool] == ["allowDuplicateEmails": false], "\(config.text)")
            #expect(config["blockingFunctions"] as? [String: Any] != nil)
            // The console asks for Hearth's whole view, in which it sets every switch.
            let full = try await client.send(.get, path + "?view=full", key: nil, headers: Self.owner)
            #expect(((full["signIn"] as? [String: Any])?["hashConfig"] as? [String: Any])?["algorithm"] as? String == "SCRYPT")
            #expect(((full["signIn"] as? [String: Any])?["anonymous"] as? [String: Any])?["enabled"] as? Bool == true)

            let patched = try await client.send(.patch, path + "?updateMask=signIn.anonymous.enabled,signIn.allowDuplicateEmails",
                                                ["signIn": ["anonymous": ["enabled": false], "allowDuplicateEmails": true]],
                                                key: nil, headers: Self.owner)
            #expect(patched.status == 200 && patched["signIn"] as? [String: Bool] == ["allowDuplicateEmails": true], "\(patched.text)")
            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            #expect(anonymous.errorMessage?.hasPrefix("ADMIN_ONLY_OPERATION") == true, "anonymous sign-up is now off")
            // Emulator mode ignores a path it cannot change, as Firebase's emulator does (production: below).
            let readOnly = try await client.send(.patch, path + "?updateMask=signIn.hashConfig",
                                                 ["signIn": ["hashConfig": ["rounds": 1]]], key: nil, headers: Self.owner)
            #expect(readOnly.status == 200 && ((readOnly["signIn"] as? [String: Any])?["hashConfig"] as? [String: Any])?["rounds"] as? Int != 1)
            let noCredentials = try await client.send(.get, path, key: nil)
            #expect(noCredentials.status == 403)
        }
    }

    /// Blocking functions are kept and reported (not called); a parent mask names its fields; production refuses
    /// a path it cannot change, and emulator mode reads no mask as a full update of what its emulator keeps.
    @Test func configMasksAndBlockingFunctions() async throws {
        let path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
        try await TestApp(mode: .emulator).run { client in
            let set = try await client.send(.patch, path + "?updateMask=blockingFunctions,emailPrivacyConfig", [
                "blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": "https://fn.example/create"]],
                                      "forwardInboundCredentials": ["idToken": true]],
                "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]], key: nil, headers: Self.owner)
            let blocking = try #require(set["blockingFunctions"] as? [String: Any], "\(set.text)")
            #expect((blocking["forwardInboundCredentials"] as? [String: Bool]) == ["idToken": true])
            let trigger = (blocking["triggers"] as? [String: [String: String]])?["beforeCreate"]
            #expect(trigger?["functionUri"] == "https://fn.example/create" && trigger?["updateTime"] != nil)
            #expect((set["emailPrivacyConfig"] as? [String: Bool])?["enableImprovedEmailPrivacy"] == true)
            for (event, uri) in [("beforeLunch", "https://fn.example"), ("beforeSignIn", "not-a-uri")] {
                let bad = try await client.send(.patch, path, ["blockingFunctions": ["triggers": [event: ["functionUri": uri]]]],
                                                key: nil, headers: Self.owner)
                #expect(bad.errorMessage?.hasPrefix("INVALID_BLOCKING_FUNCTION") == true, "\(event) \(uri): \(bad.text)")
            }
            let full = try await client.send(.patch, path, [String: Any](), key: nil, headers: Self.owner)
            #expect((full["blockingFunctions"] as? [String: Any])?.isEmpty == true
                    && (full["emailPrivacyConfig"] as? [String: Bool])?["enableImprovedEmailPrivacy"] == false, "\(full.text)")
        }
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let token = try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now())
            let readOnly = try await client.send(.patch, path + "?updateMask=signIn.hashConfig", ["signIn": ["hashConfig": ["rounds": 1]]],
                                                 key: nil, headers: CredentialGuardsTests.bearer(token))
            #expect(readOnly.status == 400 && readOnly.errorMessage?.contains("signIn.hashConfig") == true, "\(readOnly.text)")
        }
    }
}

extension AdminAccountsTests {
    /// batchCreate as Firebase reads it: `rawPassword` hashed on import, the emulator's fake hashes (emulator mode),
    /// `sanityCheck` refusing a batch that names an email or identity twice, and per-user problems by index.
    @Test func batchCreateInputsAsFirebaseReadsThem() async throws {
        try await TestApp(mode: .emulator).run { client in
            let create = "\(Self.base)/accounts:batchCreate"
            let imported = try await client.post(create, ["users": [
                ["localId": "raw", "email": "raw@example.com", "rawPassword": "secret123"],
                ["localId": "fake", "email": "Fake@Example.com", "salt": "beach", "passwordHash": "fakeHash:salt=beach:password=hawaii"],
            ]], key: nil, headers: Self.owner)
            #expect((imported["error"] as? [Any])?.isEmpty == true, "\(imported.text)")
            for (email, password) in [("raw@example.com", "secret123"), ("fake@example.com", "hawaii")] {
                let signedIn = try await client.post(Endpoints.signInWithPassword.path,
                                                     ["email": email, "password": password])
                #expect(signedIn.status == 200, "\(email): \(signedIn.text)")
            }
            let duplicate = try await client.post(create, ["sanityCheck": true, "users": [
                ["localId": "d1", "email": "d@example.com"], ["localId": "d2", "email": "d@example.com"]]], key: nil, headers: Self.owner)
            #expect(duplicate.errorMessage == "DUPLICATE_EMAIL : d@example.com", "\(duplicate.text)")
            let twice = try await client.post(create, ["sanityCheck": true, "users": [
                ["localId": "i1", "providerUserInfo": [["providerId": "google.com", "rawId": "r"]]],
                ["localId": "i2", "providerUserInfo": [["providerId": "google.com", "rawId": "r"]]]]], key: nil, headers: Self.owner)
            #expect(twice.errorMessage == "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(r)", "\(twice.text)")
            let problems = try await client.post(create, ["users": [
                ["localId": "p1", "providerUserInfo": [["providerId": "google.com"]]],
                ["localId": "p2", "mfaInfo": [["phoneInfo": "+15555550100"]]],
                ["localId": "p3", "email": "p3@example.com", "mfaInfo": [["phoneInfo": "+15555550100"]]],
            ]], key: nil, headers: Self.owner)
            let messages = (problems["error"] as? [[String: Any]])?.compactMap { $0["message"] as? String }
            #expect(messages == ["federatedId or (providerId & rawId) is required",
                                 "Second factor account requires email to be presented.",
                                 "Second factor account requires email to be verified."], "\(problems.text)")
            let none = try await client.post("\(Self.base)/accounts:batchDelete", ["localIds": [String](), "force": true],
                                             key: nil, headers: Self.owner)
            #expect(none.errorMessage == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        }
    }
}
