import AsyncHTTPClient
import Foundation
import HearthCore
import JWTKit
import NIOCore
import NIOFoundationCompat

/// OIDC discovery documents and key sets, cached per issuer. Keys are kept for the provider's `Cache-Control:
/// max-age` (an hour when it sends none) and fetched again early when a token names an unknown `kid` — at most once
/// every 10 seconds, so a flood of forged `kid`s cannot make Hearth hammer the provider. An actor: its one job is
/// that shared cache.
actor OIDCKeys {
    struct Discovery: Decodable {
        var issuer: String
        var jwks_uri: String
        var userinfo_endpoint: String?
        var authorization_endpoint: String?
        var token_endpoint: String?
    }

    private struct Entry {
        var keys: JWTKeyCollection
        var kids: Set<String>
        var expiresAt: Date
        var fetchedAt: Date
    }

    private let http: HTTPClient
    private let timeout: TimeAmount
    private var discoveries: [String: (Discovery, Date)] = [:]
    private var sets: [String: Entry] = [:]

    init(http: HTTPClient, timeout: TimeAmount) {
        self.http = http
        self.timeout = timeout
    }

    func discovery(issuer: String, now: Date) async throws -> Discovery {
        if let (cached, expires) = discoveries[issuer], now < expires { return cached }
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        let (data, maxAge) = try await fetch(url)
        guard let document = try? JSONDecoder().decode(Discovery.self, from: data) else {
            throw AuthFailure.invalidIDPResponse("the provider's discovery document at \(url) is not valid")
        }
        // OIDC Discovery §4.3: the document must name the issuer it was fetched for (no mix-up between providers).
        let trimmed = { (text: String) in text.hasSuffix("/") ? String(text.dropLast()) : text }
        guard trimmed(document.issuer) == trimmed(issuer) || issuer.contains("/common/") else {
            throw AuthFailure.invalidIDPResponse("the discovery document names issuer \(document.issuer), not \(issuer)")
        }
        discoveries[issuer] = (document, now.addingTimeInterval(maxAge ?? 3600))
        return document
    }

    /// The key collection of `url` that knows `kid` (or the cached one if it cannot be refreshed yet).
    func keys(url: String, kid: String?, now: Date) async throws -> JWTKeyCollection {
        if let entry = sets[url], now < entry.expiresAt, kid.map(entry.kids.contains) ?? true { return entry.keys }
        if let entry = sets[url], now < entry.expiresAt, now.timeIntervalSince(entry.fetchedAt) < 10 { return entry.keys }
        let (data, maxAge) = try await fetch(url)
        let collection = JWTKeyCollection()
        guard let json = String(data: data, encoding: .utf8), (try? await collection.add(jwksJSON: json)) != nil else {
            throw AuthFailure.invalidIDPResponse("the provider's key set at \(url) is not valid")
        }
        let kids = ((try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["keys"] as? [[String: Any]] ?? [])
            .compactMap { $0["kid"] as? String }
        sets[url] = Entry(keys: collection, kids: Set(kids), expiresAt: now.addingTimeInterval(maxAge ?? 3600), fetchedAt: now)
        return collection
    }

    private func fetch(_ url: String) async throws -> (Data, TimeInterval?) {
        let (response, body) = try await http.askProvider(HTTPClientRequest(url: url), timeout: timeout)
        guard response.status == .ok else {
            throw AuthFailure.invalidIDPResponse("the identity provider answered \(response.status.code)")
        }
        let maxAge = response.headers["Cache-Control"].joined(separator: ",").split(separator: ",").compactMap { part -> TimeInterval? in
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            return pair.count == 2 && pair[0].lowercased() == "max-age" ? TimeInterval(pair[1]) : nil
        }.first
        return (Data(buffer: body), maxAge)
    }
}
