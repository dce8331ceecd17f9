import Foundation
import HearthCore
import HearthServer
import Hummingbird
import HearthWire
import Testing

@Suite struct SecureTokenRoutesTests {
    static let path = "/securetoken.googleapis.com/v1/token"

    /// Emulator mode's refresh tokens read as Firebase's emulator's (base64 JSON naming the user and tenant, which
    /// its tests decode) but carry a random nonce and are only trusted through their stored digest: an edited one
    /// is refused. Production's are opaque.
    @Test func emulatorRefreshTokensHaveTheEmulatorsShapeButAreNotTrusted() async throws {
        for mode in [ServerConfiguration.Mode.emulator, .production] {
            try await TestApp(mode: mode).run { client in
                let created = try await client.signUp("shape@example.com")
                let token = try #require(created["refreshToken"] as? String)
                let decoded = Data(base64Encoded: token).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
                guard mode == .emulator else {
                    #expect(decoded == nil, "production's token says nothing")
                    return
                }
                let record = try #require(decoded)
                #expect(record["_AuthEmulatorRefreshToken"] != nil && record["localId"] == created["localId"] as? String)
                #expect((record["nonce"]?.count ?? 0) >= 32)
                var forged = record
                forged["nonce"] = String(repeating: "A", count: 43)
                let forgedToken = try JSONSerialization.data(withJSONObject: forged, options: [.sortedKeys]).base64EncodedString()
                let refused = try await client.post(Self.path, ["grant_type": "refresh_token", "refresh_token": forgedToken])
                #expect(refused.errorMessage == "INVALID_REFRESH_TOKEN", "\(refused.text)")
                let accepted = try await client.post(Self.path, ["grant_type": "refresh_token", "refresh_token": token])
                #expect(accepted.status == 200)
            }
        }
    }

    @Test func refreshWithJSONAndForm() async throws {
        try await TestApp().run { client in
            let created = try await client.signUp("r@example.com")
            let refreshToken = created["refreshToken"] as! String
            let json = try await client.post(Self.path, ["grant_type": "refresh_token", "refresh_token": refreshToken])
            #expect(json.status == 200)
            expectSameShape(try json.object(), try Fixture("token-refresh-json").body)
            #expect(json["user_id"] as? String == created["localId"] as? String)
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["id_token"] as? String == json["access_token"] as? String)
            let form = try await client.post(Self.path, raw: "grant_type=refresh_token&refresh_token=\(refreshToken)",
                                             headers: [.contentType: "application/x-www-form-urlencoded"])
            expectSameShape(try form.object(), try Fixture("token-refresh-form-encoded").body)
            let camel = try await client.post(Self.path, ["grantType": "refresh_token", "refreshToken": refreshToken])
            #expect(camel.status == 200)
        }
    }

    @Test(arguments: [
        ("token-invalid-grant-type", ["grant_type": "authorization_code", "refresh_token": "x"]),
        ("token-missing-grant-type", ["refresh_token": "x"]),
        ("token-missing-refresh-token", ["grant_type": "refresh_token"]),
        ("token-invalid-refresh-token", ["grant_type": "refresh_token", "refresh_token": "garbage-refresh-token"]),
    ])
    func errors(_ fixtureName: String, _ body: [String: String]) async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.path, body)
            let fixture = try Fixture(fixtureName)
            #expect(reply.status == fixture.status)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
        }
    }

    @Test func refreshStopsForDisabledDeletedAndRevokedUsers() async throws {
        let app = TestApp()
        try await app.run { client in
            let created = try await client.signUp("r@example.com")
            let refreshToken = created["refreshToken"] as! String
            let body = ["grant_type": "refresh_token", "refresh_token": refreshToken]
            var user = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil,
                                                             localID: created["localId"] as! String))
            user.disabled = true
            user = try await app.store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
            #expect(try await client.post(Self.path, body).errorMessage == "USER_DISABLED")
            user.disabled = false
            app.clock.advance(by: 5)
            user.validSince = app.clock.now().epochSeconds
            user = try await app.store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
            #expect(try await client.post(Self.path, body).errorMessage == "TOKEN_EXPIRED")
            let fresh = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "r@example.com", "password": "secret1"])
            try await app.store.deleteUser(projectID: "demo-project", tenantID: nil, localID: user.localID)
            let afterDelete = try await client.post(Self.path, ["grant_type": "refresh_token",
                                                                "refresh_token": fresh["refreshToken"]!])
            #expect(afterDelete.errorMessage == "INVALID_REFRESH_TOKEN")
        }
    }
}
