import Foundation
import HearthCore
import JWTKit

/// Signs admin assertions and custom tokens the way a client holding a service-account key file does, with jwt-kit
/// (a JWT library we did not write), from the key file's JSON.
struct ServiceAccountSigner: Sendable {
    let keys = JWTKeyCollection()
    let email: String
    let keyID: String

    init(keyFile: Data) async throws {
        let file = try JSONSerialization.jsonObject(with: keyFile) as! [String: String]
        email = file["client_email"]!
        keyID = file["private_key_id"]!
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: file["private_key"]!), digestAlgorithm: .sha256,
                       kid: JWKIdentifier(string: keyID))
    }

    struct Payload: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var iat: Int
        var exp: Int
        var jti: String?
        var uid: String?
        var claims: [String: String]?
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// An admin bearer JWT: `aud` = the base URL, a fresh `jti` unless given.
    func assertion(audience: String, now: Date = Date(), lifetime: Int = 3600, jti: String? = UUID().uuidString,
                   issuer: String? = nil) async throws -> String {
        let iat = Int(now.timeIntervalSince1970)
        return try await keys.sign(Payload(iss: issuer ?? email, sub: issuer ?? email, aud: audience, iat: iat,
                                           exp: iat + lifetime, jti: jti))
    }

    /// A custom token as `createCustomToken` makes it.
    func customToken(uid: String?, claims: [String: String]? = nil, audience: String = CustomToken.audience,
                     now: Date = Date(), lifetime: Int = 3600) async throws -> String {
        let iat = Int(now.timeIntervalSince1970)
        return try await keys.sign(Payload(iss: email, sub: email, aud: audience, iat: iat, exp: iat + lifetime,
                                           uid: uid, claims: claims))
    }
}
