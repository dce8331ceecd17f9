import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// The admin API's import (`accounts:batchCreate`) and its credentials, against the emulator's captures.
@Suite struct AdminRoutesTests {
    static let batchCreate = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:batchCreate"
    static let signIn = Endpoints.signInWithPassword.path
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    @Test func importsFirebaseScryptUsersWhoThenSignInAndAreRehashed() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let fixture = try Fixture("admin-batchCreate-scrypt")
            let reply = try await client.post(fixture.path, fixture.requestBody, key: nil, headers: Self.owner)
            #expect(reply.status == 200)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
            let imported = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "scrypt-1"))
            #expect(imported.passwordHash?.contains("sk=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==") == true)
            let wrong = try await client.post(Self.signIn, ["email": "scrypt1@example.com", "password": "user2password"])
            #expect(wrong.status == 400)
            let signedIn = try await client.post(Self.signIn, ["email": "scrypt1@example.com", "password": "user1password"])
            #expect(signedIn.status == 200, "the README vector verifies as imported: \(signedIn.text)")
            let rehashed = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "scrypt-1"))
            #expect(rehashed.passwordHash != imported.passwordHash, "re-hashed with the project's own key")
            #expect(try await client.post(Self.signIn, ["email": "scrypt1@example.com", "password": "user1password"]).status == 200)
        }
    }

    @Test func perUserErrorsAreListedByIndexAndTheRestIsImported() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let first = try Fixture("admin-batchCreate-no-hash")
            let created = try await client.post(first.path, first.requestBody, key: nil, headers: Self.owner)
            #expect(try created.object() as NSDictionary == first.body as! NSDictionary)
            let second = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "imp-2"))
            #expect(second.customAttributes == "{\"plan\": \"pro\"}" && second.providers.first?.providerID == "google.com")
            let one = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "imp-1"))
            #expect(one.createdAt == Date(timeIntervalSince1970: 1_600_000_000) && one.emailVerified)

            let fixture = try Fixture("admin-batchCreate-per-user-error")
            let reply = try await client.post(fixture.path, fixture.requestBody, key: nil, headers: Self.owner)
            #expect(reply.status == 200)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "ok-1") != nil)
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "bad-1") == nil,
                    "a rejected user leaves nothing behind")
        }
    }

    @Test func everyImportedAlgorithmSignsIn() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let salt = Data("NaCl".utf8).base64EncodedString()
            let batches: [[String: Any]] = [
                ["hashAlgorithm": "SHA256", "rounds": 1, "users": [
                    ["localId": "sha", "email": "sha@example.com", "salt": salt,
                     "passwordHash": "sgq3SqJUn34ToOiGy0RxzC5w_NLOgHXA7mSDq7phMvM"]]],
                ["hashAlgorithm": "HMAC_SHA256", "signerKey": Data("hmac-signer-key".utf8).base64EncodedString(),
                 "users": [["localId": "hmac", "email": "hmac@example.com", "salt": salt,
                            "passwordHash": "6z+Yix6OnjeKzY15iAZqZX2iXU/SF0iDQ7O8vFZN/qM="]]],
                ["hashAlgorithm": "PBKDF2_SHA256", "rounds": 10000, "users": [
                    ["localId": "pbkdf2", "email": "pbkdf2@example.com", "salt": salt,
                     "passwordHash": "5yZRhcIGnnrNS7ATB7zj9LUEXAGDveM2SRZOsE0LAov1tVKXvLBFi1Hf+Hs1Xe2itcMxECWSXt35m+h1I1diEA=="]]],
                ["hashAlgorithm": "STANDARD_SCRYPT", "cpuMemCost": 1024, "blockSize": 8, "parallelization": 16, "users": [
                    ["localId": "scrypt", "email": "scrypt@example.com", "salt": salt,
                     "passwordHash": "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA=="]]],
            ]
            for batch in batches {
                let reply = try await client.post(Self.batchCreate, batch, key: nil, headers: Self.owner)
                #expect(reply.status == 200 && (reply["error"] as? [Any])?.isEmpty == true, "\(reply.text)")
            }
            for name in ["sha", "hmac", "pbkdf2", "scrypt"] {
                let signedIn = try await client.post(Self.signIn, ["email": "\(name)@example.com", "password": "password"])
                #expect(signedIn.status == 200, "\(name): \(signedIn.text)")
            }
        }
    }

    @Test func credentialsAreCheckedAsGoogleDoes() async throws {
        try await TestApp(mode: .emulator).run { client in
            for name in ["error-admin-bad-bearer-token", "error-admin-path-api-key-no-bearer", "error-admin-path-no-credentials"] {
                let fixture = try Fixture(name)
                let path = fixture.path.replacingOccurrences(of: "accounts:lookup", with: "accounts:batchCreate")
                var headers: HTTPFields = [:]
                if let value = (fixture.json["request"] as? [String: Any])?["headers"].flatMap({ ($0 as? [String: String])?["authorization"] }) {
                    headers[.authorization] = value
                }
                let key = (fixture.json["request"] as? [String: Any])?["path"].flatMap { ($0 as? String)?.contains("key=") } == true
                    ? "fake-api-key" : nil
                let reply = try await client.post(path.components(separatedBy: "?")[0], ["users": [["localId": "x"]]],
                                                  key: key, headers: headers)
                #expect(reply.status == fixture.status, "\(name)")
                #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary, "\(name)")
            }
        }
        try await TestApp().run { client in
            let production = try await client.post(Self.batchCreate, ["users": [["localId": "x"]]], key: nil, headers: Self.owner)
            #expect(production.status == 401, "`Bearer owner` is an emulator convenience only")
        }
    }

    @Test func badBatchesAreRefusedWholeWithFirebasesCodes() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let tooMany = (0...1000).map { ["localId": "u\($0)"] }
            #expect(try await client.post(Self.batchCreate, ["users": tooMany], key: nil, headers: Self.owner).errorMessage
                    == "MAXIMUM_USER_COUNT_EXCEEDED")
            let duplicate = try await client.post(Self.batchCreate, ["users": [["localId": "test1"], ["localId": "test1"]]],
                                                  key: nil, headers: Self.owner)
            #expect(duplicate.errorMessage == "DUPLICATE_LOCAL_ID : test1")
            let rounds = try await client.post(Self.batchCreate, [
                "hashAlgorithm": "SCRYPT", "signerKey": "c2VjcmV0", "rounds": 9, "memoryCost": 14,
                "users": [["localId": "r"]]], key: nil, headers: Self.owner)
            #expect(rounds.errorMessage == "INVALID_HASH_ROUNDS")
            let unknown = try await client.post(Self.batchCreate, ["hashAlgorithm": "ROT13", "users": [["localId": "r"]]],
                                                key: nil, headers: Self.owner)
            #expect(unknown.errorMessage == "INVALID_HASH_ALGORITHM")
            let base64 = try await client.post(Self.batchCreate, ["hashAlgorithm": "SHA256", "rounds": 1,
                                                                  "users": [["localId": "b", "passwordHash": "%%%"]]],
                                               key: nil, headers: Self.owner)
            #expect(base64.status == 400 && base64.text.contains("INVALID_ARGUMENT"))
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "u0") == nil,
                    "a refused batch imports nobody")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "test1") == nil)
        }
    }

    @Test func lookupAndDeleteByUid() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let imported = try await client.post(Self.batchCreate, ["users": [
                ["localId": "admin-uid-42", "email": "uid42@example.com", "phoneNumber": "+15555550142"],
                ["localId": "user-04", "email": "four@example.com"]]], key: nil, headers: Self.owner)
            #expect((imported["error"] as? [Any])?.isEmpty == true)
            let lookup = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup"
            let found = try await client.post(lookup, ["localId": ["admin-uid-42"]], key: nil, headers: Self.owner)
            let fixture = try Fixture("admin-lookup-by-localId")
            // Hearth also reports validSince, as production does; the emulator's capture has no login yet.
            expectSameShape(try found.object(), fixture.body, ignoring: ["lastLoginAt", "validSince"])
            let users = try #require(found["users"] as? [[String: Any]])
            #expect(users.count == 1 && users[0]["phoneNumber"] as? String == "+15555550142")
            let byEmail = try await client.post(lookup, ["email": ["FOUR@example.com"], "localId": ["user-04"]],
                                                key: nil, headers: Self.owner)
            #expect((byEmail["users"] as? [Any])?.count == 1, "one user matched twice is listed once")
            let missing = try await client.post(lookup, ["localId": ["no-such-uid"]], key: nil, headers: Self.owner)
            #expect(try missing.object() as NSDictionary == (try Fixture("admin-lookup-not-found").body as! NSDictionary))

            let delete = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:delete"
            let deleted = try await client.post(delete, ["localId": "user-04"], key: nil, headers: Self.owner)
            #expect(try deleted.object() as NSDictionary == (try Fixture("admin-delete-by-localId").body as! NSDictionary))
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "user-04") == nil)
            #expect(try await client.post(delete, ["localId": "user-04"], key: nil, headers: Self.owner).errorMessage
                    == "USER_NOT_FOUND")
            #expect(try await client.post(delete, [String: Any](), key: nil, headers: Self.owner).errorMessage
                    == "MISSING_LOCAL_ID")
        }
    }

    @Test func adminUpdateSetsClaimsDisablesAndRevokes() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let user = try await client.signUp("uid42@example.com", "secret123")
            let uid = try #require(user["localId"] as? String)
            let update = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update"
            for name in ["admin-update-customAttributes-invalid-json", "admin-update-customAttributes-reserved-claim",
                         "admin-update-user-not-found"] {
                let fixture = try Fixture(name)
                var body = fixture.requestBody as! [String: Any]
                if body["localId"] as? String == "admin-uid-42" { body["localId"] = uid }
                let reply = try await client.post(update, body, key: nil, headers: Self.owner)
                #expect(reply.status == 400, "\(name)")
                #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary, "\(name)")
            }
            let claims = try await client.post(update, ["localId": uid, "customAttributes": #"{"role": "admin", "level": 5}"#],
                                               key: nil, headers: Self.owner)
            expectSameShape(try claims.object(), try Fixture("admin-update-customAttributes").body,
                            ignoring: ["providerUserInfo", "passwordHash", "displayName"])
            let signIn = try await client.post(Self.signIn, ["email": "uid42@example.com", "password": "secret123"])
            let payload = try #require((signIn["idToken"] as? String)?.split(separator: ".").dropFirst().first)
            var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let token = try #require(try JSONSerialization.jsonObject(with: Data(base64Encoded: base64)!) as? [String: Any])
            #expect(token["role"] as? String == "admin" && token["level"] as? Int == 5, "claims at the top level")

            app.clock.advance(by: 2)
            let revoked = try await client.post(update, ["localId": uid, "validSince": String(Int(app.clock.now().timeIntervalSince1970))],
                                                key: nil, headers: Self.owner)
            #expect(revoked.status == 200)
            let refresh = try await client.post("/securetoken.googleapis.com/v1/token",
                                                ["grant_type": "refresh_token", "refresh_token": signIn["refreshToken"]!])
            #expect(refresh.errorMessage == "TOKEN_EXPIRED", "validSince revokes earlier sessions")

            let disabled = try await client.post(update, ["localId": uid, "disableUser": true], key: nil, headers: Self.owner)
            #expect(disabled.status == 200)
            #expect(try await client.post(Self.signIn, ["email": "uid42@example.com", "password": "secret123"]).errorMessage
                    == "USER_DISABLED")
        }
        try await TestApp().run { client in
            let user = try await client.signUp("self@example.com", "secret123")
            let selfService = try await client.post(Endpoints.update.path,
                                                    ["idToken": user["idToken"]!, "customAttributes": #"{"role":"admin"}"#])
            #expect(selfService.errorMessage == "INSUFFICIENT_PERMISSION", "a user cannot give themselves claims")
        }
    }
}
