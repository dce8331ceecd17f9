import Foundation
import HearthCore
import Hummingbird
import JWTKit
import Testing

/// The published keys verify our ID tokens with a JWT library we did not write (vapor/jwt-kit).
@Suite struct PublicKeyRoutesTests {
    struct FirebaseClaims: JWTPayload {
        var iss: IssuerClaim
        var aud: AudienceClaim
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var email: String?

        func verify(using algorithm: some JWTAlgorithm) throws {
            try exp.verifyNotExpired()
            try aud.verifyIntendedAudience(includes: "demo-project")
        }
    }

    @Test func jwksVerifiesIDTokensWithJWTKit() async throws {
        try await TestApp().run { client in
            let created = try await client.signUp("jwks@example.com")
            for path in ["/.well-known/jwks.json",
                         "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                         "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys"] {
                let jwks = try await client.send(.get, path, key: nil)
                #expect(jwks.status == 200)
                #expect(jwks.headers[.cacheControl]?.contains("max-age=3600") == true)
                let keys = JWTKeyCollection()
                try await keys.add(jwksJSON: jwks.text)
                let claims = try await keys.verify(created["idToken"] as! String, as: FirebaseClaims.self)
                #expect(claims.sub.value == created["localId"] as? String)
                #expect(claims.iss.value == "https://securetoken.google.com/demo-project")
                #expect(claims.email == "jwks@example.com")
            }
        }
    }

    @Test func x509MapHoldsCertificatesOfTheSigningKeys() async throws {
        try await TestApp().run { client in
            let created = try await client.signUp("x509@example.com")
            let reply = try await client.send(.get,
                "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com", key: nil)
            let map = try #require(try reply.object() as? [String: String])
            let legacy = try await client.send(.get, "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys", key: nil)
            #expect(try legacy.object() as? [String: String] == map, "the v3 publicKeys alias serves the same map")
            let header = try #require(JSONSerialization.jsonObject(
                with: Base64URL.decode((created["idToken"] as! String).split(separator: ".")[0])!) as? [String: String])
            let pem = try #require(map[header["kid"]!], "the token's kid is in the x509 map")
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
            let keys = JWTKeyCollection()
            await keys.add(rsa: try Insecure.RSA.PublicKey(certificatePEM: pem), digestAlgorithm: .sha256,
                           kid: JWKIdentifier(string: header["kid"]!))
            let claims = try await keys.verify(created["idToken"] as! String, as: FirebaseClaims.self)
            #expect(claims.sub.value == created["localId"] as? String)
        }
    }

    /// The discovery document sits under the issuer, here Google's (`securetoken.google.com/{project}`, on this
    /// server under the host prefix and at the root), names the issuer and this server's JWKS, and exists only for
    /// the served project.
    @Test func discoveryNamesTheIssuerAndTheKeys() async throws {
        try await TestApp().run { client in
            for path in ["/securetoken.google.com/demo-project/.well-known/openid-configuration",
                         "/demo-project/.well-known/openid-configuration"] {
                let found = try await client.send(.get, path, key: nil)
                #expect(found.status == 200, "\(path): \(found.text)")
                #expect(found["issuer"] as? String == "https://securetoken.google.com/demo-project")
                #expect((found["jwks_uri"] as? String)?.hasSuffix("/.well-known/jwks.json") == true)
                #expect(found["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            }
            let other = try await client.send(.get, "/other-project/.well-known/openid-configuration", key: nil)
            #expect(other.status == 404 && other.errorMessage != nil, "\(other.text)")
        }
    }
}
