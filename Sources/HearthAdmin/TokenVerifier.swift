import AsyncHTTPClient
import Foundation
import HearthWire
import JWTKit
import NIOHTTP1

/// What a verified ID token or session cookie says.
public struct VerifiedToken: Sendable, Equatable {
    public var uid: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var authTime: Date
    /// `firebase.sign_in_provider`: `password`, `custom`, `google.com`, …
    public var signInProvider: String?
    /// Every claim of the token, custom claims included (they sit at the top level).
    public var claims: [String: JSONValue]
}

/// Caches Hearth's public signing keys (JWKS) for as long as the server's `Cache-Control: max-age` says, and
/// fetches them again early when a token names a key it has not seen (a rotation), at most every 10 seconds.
/// An actor because its one job is to share that cache between concurrent verifications.
actor PublicKeyCache {
    private let url: String
    private let http: HTTPClient
    private let now: @Sendable () -> Date
    private var keys: JWTKeyCollection?
    private var knownKIDs: Set<String> = []
    private var expiresAt = Date.distantPast
    private var fetchedAt = Date.distantPast
    /// Fetches so far (tests check that the cache is honoured).
    private(set) var fetches = 0

    init(url: String, http: HTTPClient, now: @escaping @Sendable () -> Date) {
        self.url = url
        self.http = http
        self.now = now
    }

    /// The key collection that knows `kid`, fetching when the cache is stale or the kid is new.
    func keys(for kid: String) async throws -> JWTKeyCollection {
        let current = now()
        if let keys, current < expiresAt, knownKIDs.contains(kid) { return keys }
        if let keys, current < expiresAt, current.timeIntervalSince(fetchedAt) < 10 { return keys }
        return try await fetch()
    }

    private func fetch() async throws -> JWTKeyCollection {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .seconds(15))
        } catch {
            throw HearthAdminError.transport("cannot fetch public keys from \(url): \(error)")
        }
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, let json = body.getString(at: body.readerIndex, length: body.readableBytes) else {
            throw HearthAdminError.transport("public keys at \(url) answered \(response.status.code)")
        }
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: json)
        let set = try JSONDecoder().decode(JWKSet.self, from: Data(json.utf8))
        knownKIDs = Set(set.keys.compactMap { $0["kid"] })
        keys = collection
        fetches += 1
        fetchedAt = now()
        expiresAt = fetchedAt.addingTimeInterval(Self.maxAge(response.headers) ?? 0)
        return collection
    }

    /// `max-age` of a `Cache-Control` header, in seconds.
    static func maxAge(_ headers: HTTPHeaders) -> TimeInterval? {
        for value in headers["Cache-Control"] {
            for directive in value.split(separator: ",") {
                let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = TimeInterval(parts[1]) {
                    return seconds
                }
            }
        }
        return nil
    }
}

/// The standard claims a Firebase verifier checks.
struct StandardClaims: JWTPayload {
    var iss: String
    var aud: String
    var sub: String
    var iat: Double
    var exp: Double
    var auth_time: Double?
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
