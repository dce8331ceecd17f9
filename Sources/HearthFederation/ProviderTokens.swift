import AsyncHTTPClient
import Foundation
import HearthCore
import JWTKit
import NIOCore
import NIOFoundationCompat

/// Client secrets and token revocation: what Sign in with Apple needs beyond verifying ID tokens.
extension HTTPIdentityProviderVerifier {
    /// The secret that authenticates Hearth to `providerID`'s token endpoints. For apple.com with a key (`teamId`,
    /// `keyId`, `privateKey`) it is a fresh ES256 JWT in Apple's format — issuer the team, subject the client id,
    /// audience `https://appleid.apple.com`, valid five minutes; otherwise the configured `clientSecret`.
    func clientSecret(_ providerID: String, config: IdentityProviderConfig) async throws -> String? {
        guard providerID == "apple.com", let team = config.teamId, let keyID = config.keyId,
              let pem = config.privateKey else { return config.clientSecret }
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: pem)
        } catch {
            throw AuthFailure.invalidIDPResponse("apple.com's privateKey is not a P-256 key in PEM form (Apple's .p8 file)")
        }
        let kid = JWKIdentifier(string: keyID)
        let now = clock.now()
        let claims = AppleClientSecret(iss: team, sub: config.clientId, aud: "https://appleid.apple.com",
                                       iat: Int(now.timeIntervalSince1970), exp: Int(now.timeIntervalSince1970) + 300)
        return try await JWTKeyCollection().add(ecdsa: key, kid: kid).sign(claims, kid: kid)
    }

    public func revoke(_ token: String, kind: ProviderTokenKind, providerID: String, redirectURI: String?,
                       project: ProjectContext) async throws {
        let config = try enabledConfig(providerID, project: project)
        guard let secret = try await clientSecret(providerID, config: config) else {
            throw AuthFailure.invalidIDPResponse("\(providerID) needs teamId, keyId and privateKey (or a clientSecret) to revoke tokens")
        }
        guard let revokeURL = config.revokeUri ?? ProviderDefaults.revoke(providerID) else {
            throw AuthFailure.invalidIDPResponse("\(providerID) has no revocation endpoint configured")
        }
        var revoked = token
        var hint = kind.rawValue
        if kind == .code {
            // Apple revokes tokens, not codes: the code is exchanged first, and what it gave is revoked.
            guard let tokenURL = config.tokenUri ?? ProviderDefaults.token(providerID) else {
                throw AuthFailure.invalidIDPResponse("\(providerID) has no token endpoint configured")
            }
            var form = ["grant_type": "authorization_code", "code": token, "client_id": config.clientId,
                        "client_secret": secret]
            if let redirectURI { form["redirect_uri"] = redirectURI }
            let tokens = try await postForm(tokenURL, form, refusal: "the provider refused the authorization code")
            if let refresh = tokens["refresh_token"] as? String {
                (revoked, hint) = (refresh, "refresh_token")
            } else if let access = tokens["access_token"] as? String {
                (revoked, hint) = (access, "access_token")
            } else {
                throw AuthFailure.invalidIDPResponse("the provider exchanged the code for no token")
            }
        }
        _ = try await postForm(revokeURL, ["client_id": config.clientId, "client_secret": secret, "token": revoked,
                                           "token_type_hint": hint],
                               refusal: "the provider refused to revoke the token")
    }

    /// POSTs a form; a 200 answer's JSON object (empty when the body is not JSON, as Apple's revocation answers).
    func postForm(_ url: String, _ form: [String: String], refusal: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let (response, buffer) = try await http.askProvider(request, timeout: timeout)
        guard response.status == .ok else { throw AuthFailure.invalidIDPResponse("\(refusal) (\(response.status.code))") }
        return (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
    }
}

/// Apple's client-secret JWT.
struct AppleClientSecret: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int
    var exp: Int
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
