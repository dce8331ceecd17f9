import Foundation
import HearthCore
import HearthServer
import HearthWire
import Testing
import HTTPTypes

/// Rotation on a running server, as `hearth keys rotate` and `retire` change the stored project: the new key is in
/// the JWKS before it signs, tokens signed before and after both verify, and a retired key leaves the JWKS only once
/// its tokens have expired.
@Suite struct KeyRotationTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    static func kid(_ token: String) throws -> String {
        let header = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        return try #require((try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String)
    }

    @Test func tokensSignedBeforeAndAfterARotationBothVerify() async throws {
        let app = TestApp()
        try await app.run { client in
            let before = try await client.signUp("rotate@example.com")
            let oldToken = try #require(before["idToken"] as? String)
            var record = try #require(try await app.store.project(id: "demo-project"))
            let oldKid = try Self.kid(oldToken)
            var next = try await SigningKey.generate(now: app.clock.now())
            next.activatesAt = app.clock.now() + 100
            record.signingKeys.append(next)
            record = try await app.store.updateProject(record)
            func jwks() async throws -> [String] {
                ((try await client.send(.get, "/.well-known/jwks.json", key: nil)["keys"] as? [[String: Any]]) ?? [])
                    .compactMap { $0["kid"] as? String }
            }
            func signIn() async throws -> String {
                try #require(try await client.post(Endpoints.signInWithPassword.path,
                                                   ["email": "rotate@example.com", "password": "secret1"])["idToken"] as? String)
            }

            app.clock.advance(by: 10)  // past the project cache
            #expect(try await jwks() == [oldKid, next.kid], "published before it signs")
            #expect(try Self.kid(try await signIn()) == oldKid)
            app.clock.advance(by: 100)
            let newToken = try await signIn()
            #expect(try Self.kid(newToken) == next.kid, "signs once active")
            for token in [oldToken, newToken] {
                #expect(try await client.post(Endpoints.lookup.path, ["idToken": token]).status == 200)
            }

            record.signingKeys[0].retiredAt = app.clock.now()
            try await app.store.updateProject(record)
            app.clock.advance(by: 10)
            #expect(try await jwks() == [oldKid, next.kid], "a retired key stays published while its tokens live")
            #expect(try Self.kid(try await signIn()) == next.kid)
            app.clock.advance(by: KeyRing.retention)
            #expect(try await jwks() == [next.kid], "and leaves once they have all expired")
        }
    }

    /// ID tokens signed with the project's own key but longer than an hour, or issued after their key retired (a
    /// copy of a retired key), are refused; the key's own earlier tokens still verify.
    @Test func tokensThatOutliveTheirKindOrTheirKeyAreRefused() async throws {
        let app = TestApp()
        try await app.run { client in
            let signUp = try await client.signUp("keys@example.com")
            let genuine = try #require(signUp["idToken"] as? String)
            let localID = try #require(signUp["localId"] as? String)
            let user = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: localID))
            var record = try #require(try await app.store.project(id: "demo-project"))
            let oldKey = record.signingKeys[0]
            let session = SignInSession(signInProvider: "password", authTime: app.clock.now())
            func mint(lifetime: TimeInterval, keys: [SigningKeyRecord], at: Date) throws -> String {
                try IDTokenIssuer(lifetime: lifetime).mint(for: user, session: session, projectID: "demo-project",
                                                           keys: try KeyRing(keys, now: at), now: at)
            }
            func lookup(_ token: String) async throws -> Reply {
                try await client.post(Self.v1 + "/accounts:lookup", ["idToken": token])
            }
            let long = try mint(lifetime: 30 * 86400, keys: [oldKey], at: app.clock.now())
            #expect(try await lookup(long).errorMessage?.hasPrefix("INVALID_ID_TOKEN") == true, "a 30-day ID token")

            // Rotate: a new key signs, the old one retires now.
            var next = try await SigningKey.generate(now: app.clock.now())
            next.activatesAt = app.clock.now() - 1
            record.signingKeys.append(next)
            record.signingKeys[0].retiredAt = app.clock.now()
            try await app.store.updateProject(record)
            app.clock.advance(by: 10)
            #expect(try await lookup(genuine).status == 200, "tokens the old key signed before retiring still verify")
            let forged = try mint(lifetime: 3600, keys: [oldKey], at: app.clock.now())
            #expect(try await lookup(forged).errorMessage?.hasPrefix("INVALID_ID_TOKEN") == true, "signed after its key retired")
            let fresh = try mint(lifetime: 3600, keys: [next], at: app.clock.now())
            #expect(try await lookup(fresh).status == 200, "the new key's tokens verify")
        }
    }
}
