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
}
