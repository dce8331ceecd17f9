import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore

/// A Google OAuth access token for a service-account key file, obtained as Google's client libraries do: a JWT
/// signed with the key (`iss` the account, `aud` the key's `token_uri`, the scopes the Admin APIs need), exchanged at
/// `token_uri` with the `jwt-bearer` grant (RFC 7523).
enum GoogleAccessToken {
    static let scopes = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/identitytoolkit "
        + "https://www.googleapis.com/auth/firebase"

    struct KeyFile: Decodable {
        var project_id: String?
        var private_key_id: String
        var private_key: String
        var client_email: String
        var token_uri: String?
    }

    /// The signed assertion for `key`, valid an hour from `now`.
    static func assertion(_ key: KeyFile, tokenURI: String, now: Date) throws -> String {
        struct Claims: Encodable { var iss: String, scope: String, aud: String, iat: Int64, exp: Int64 }
        let signing = try SigningKey(SigningKeyRecord(kid: key.private_key_id, privateKeyPEM: key.private_key,
                                                      certificatePEM: "", createdAt: now))
        let claims = Claims(iss: key.client_email, scope: scopes, aud: tokenURI, iat: now.epochSeconds,
                            exp: now.epochSeconds + 3600)
        return try JWS.sign(payload: Array(try JSONEncoder().encode(claims)), with: signing)
    }

    /// Exchanges the key's assertion for an access token at its `token_uri` (Google's by default).
    static func fetch(_ key: KeyFile) async throws -> String {
        let tokenURI = key.token_uri ?? "https://oauth2.googleapis.com/token"
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
            + (try assertion(key, tokenURI: tokenURI, now: Date()))
        var request = HTTPClientRequest(url: tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
        guard response.status.code == 200, let token = object?["access_token"] as? String else {
            let reason = object?["error_description"] as? String ?? object?["error"] as? String ?? "HTTP \(response.status.code)"
            throw CommandFailure("\(tokenURI) refused the service account \(key.client_email): \(reason). Check that the "
                + "key is current and the account has the Firebase Authentication Admin role.")
        }
        return token
    }
}
