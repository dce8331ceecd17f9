import Foundation
import HearthWire
import Hummingbird

/// The ID-token signing keys, where Firebase verifiers (Admin SDKs, `jose`, Hasura, …) look for them.
/// `Cache-Control: max-age` tells verifiers how long to cache; it is shorter than a retired key stays published.
enum PublicKeyRoutes {
    static let cacheControl = "public, max-age=3600, must-revalidate, no-transform"

    /// `{kid: PEM certificate}`, Google's x509 map.
    static func x509(_ call: Call) async throws -> Response {
        let keys = try await call.services.defaultProject().keys.all
        let map = Dictionary(keys.map { ($0.kid, $0.certificatePEM) }, uniquingKeysWith: { _, new in new })
        return json(map, headers: [.cacheControl: cacheControl])
    }

    /// `{keys: [JWK]}`.
    static func jwks(_ call: Call) async throws -> Response {
        let keys = try await call.services.defaultProject().keys.all
        return json(JWKSet(keys: keys.map(\.jwk)), headers: [.cacheControl: cacheControl])
    }

    /// OpenID Connect discovery for the ID tokens (`{issuer}/.well-known/openid-configuration`), as Google serves it
    /// for `https://securetoken.google.com/{project}`: the issuer and where its keys are. With `issuerPrefix` set to
    /// this server's public URL, OIDC middleware finds the keys from the token's `iss` alone.
    static func discovery(_ call: Call) async throws -> Response {
        let project = try await call.services.defaultProject()
        guard call.parameter("project") == project.id else { throw APIError.notFound }
        return json(Discovery(issuer: call.configuration.issuerPrefix + project.id,
                              jwks_uri: call.services.publicBaseURL + "/.well-known/jwks.json"),
                    headers: [.cacheControl: cacheControl])
    }

    struct Discovery: Encodable {
        var issuer: String
        var jwks_uri: String
        var response_types_supported = ["id_token"]
        var subject_types_supported = ["public"]
        var id_token_signing_alg_values_supported = ["RS256"]
        var claims_supported = ["iss", "aud", "sub", "iat", "exp", "auth_time", "user_id", "email", "email_verified",
                                "phone_number", "name", "picture", "firebase"]
    }

    /// Where the discovery document of `issuerPrefix`'s issuers is asked for: under the issuer's path, on this
    /// server and under Google's host prefix.
    static func discoveryPaths(issuerPrefix: String) -> [String] {
        let issuerPath = URL(string: issuerPrefix).map { $0.path.hasSuffix("/") ? String($0.path.dropLast()) : $0.path } ?? ""
        let host = URL(string: issuerPrefix)?.host ?? "securetoken.google.com"
        return Array(Set(["\(issuerPath)/{project}/.well-known/openid-configuration",
                          "/\(host)\(issuerPath)/{project}/.well-known/openid-configuration"])).sorted()
    }
}
