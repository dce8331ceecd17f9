import Crypto
import CryptoExtras
import Foundation

/// JWTs signed by a project's service accounts: admin-API bearer assertions and custom tokens.
///
/// The header must name RS256; the signing account is the one whose `keyID` is the header's `kid` (or, without a
/// `kid`, whose email is `iss`), and `iss` must be that account's email. Everything else is left to the caller.
public enum ServiceAccountJWT {
    public struct Verified: Sendable {
        public var account: ServiceAccountRecord
        public var payload: Data
    }

    public static func verify(_ token: String, accounts: [ServiceAccountRecord]) throws(TokenError) -> Verified {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count < 16_384,
              let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData),
              let payload = Base64URL.decode(parts[1]),
              let issuer = try? JSONDecoder().decode(Issuer.self, from: payload),
              let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard header.alg == "RS256" else { throw .unsupportedAlgorithm }
        let account = header.kid.map { kid in accounts.first { $0.keyID == kid } }
            ?? accounts.first { $0.clientEmail == issuer.iss }
        guard let account, let key = try? _RSA.Signing.PublicKey(pemRepresentation: account.publicKeyPEM) else {
            throw .unknownKey
        }
        guard issuer.iss == account.clientEmail else { throw .wrongIssuer }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.isValidSignature(.init(rawRepresentation: signature), for: SHA256.hash(data: signingInput),
                                   padding: .insecurePKCS1v1_5)
        else { throw .badSignature }
        return Verified(account: account, payload: payload)
    }

    /// The payload of an unsigned (`alg: none`) JWT, as Firebase's emulator accepts custom tokens.
    public static func unsignedPayload(_ token: String) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count < 16_384,
              let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData),
              header.alg == "none"
        else { return nil }
        return Base64URL.decode(parts[1])
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private struct Issuer: Decodable {
        var iss: String
    }
}

/// Checks the bearer JWT of an admin-API call.
///
/// A client (`HearthAdmin`, or any JWT library) signs, with its service-account key, a JWT with
/// `iss = sub = client_email`, `aud` = the Hearth base URL, `iat`, `exp` at most one hour later and a unique `jti`.
/// Each `jti` is accepted once: a captured header cannot be replayed, even within the token's lifetime.
///
/// ```swift
/// let account = try await AdminAssertion.verify(bearer, project: project.record,
///                                               audiences: ["https://auth.example.com"], store: store, now: now)
/// ```
public enum AdminAssertion {
    public static let maximumLifetime: Int64 = 3600
    /// Allowed difference between the client's clock and ours.
    public static let clockSkew: Int64 = 60

    public enum Failure: Error, Equatable {
        case token(TokenError)
        /// The token's `aud`, which names no address this server answers to.
        case wrongAudience(String)
        case lifetimeTooLong
        case missingJTI
        case replayed
    }

    public static func verify(_ token: String, project: ProjectRecord, audiences: [String],
                              store: any IdentityStore, now: Date) async throws -> ServiceAccountRecord {
        let verified: ServiceAccountJWT.Verified
        do { verified = try ServiceAccountJWT.verify(token, accounts: project.serviceAccounts) } catch {
            throw Failure.token(error)
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: verified.payload) else {
            throw Failure.token(.malformed)
        }
        let seconds = now.epochSeconds
        guard claims.sub == claims.iss else { throw Failure.token(.wrongIssuer) }
        let normalized = Set(audiences.map(Self.trimmingSlash))
        guard claims.aud.values.contains(where: { normalized.contains(Self.trimmingSlash($0)) }) else {
            throw Failure.wrongAudience(claims.aud.values.joined(separator: ", "))
        }
        guard claims.exp > seconds - clockSkew else { throw Failure.token(.expired) }
        guard claims.iat <= seconds + clockSkew else { throw Failure.token(.issuedInFuture) }
        guard claims.exp - claims.iat <= maximumLifetime, claims.exp > claims.iat else { throw Failure.lifetimeTooLong }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else { throw Failure.missingJTI }
        let fresh = try await store.useAssertionOnce(
            digest: storageDigest(project.id + "\u{0}" + claims.iss + "\u{0}" + jti),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp + clockSkew)), now: now)
        guard fresh else { throw Failure.replayed }
        return verified.account
    }

    /// Signs an admin assertion with a service account's key file (what `hearth service-accounts create` wrote):
    /// `iss = sub = client_email`, `aud`, a `lifetime` of at most an hour, a fresh `jti`. Single use, as every
    /// assertion: `hearth admin-token` prints one per call.
    public static func sign(keyFile: Data, audience: String, now: Date, lifetime: Int64 = 300) throws -> String {
        struct KeyFile: Decodable {
            var private_key_id: String
            var private_key: String
            var client_email: String
        }
        struct Payload: Encodable {
            var iss: String, sub: String, aud: String, iat: Int64, exp: Int64, jti: String
        }
        let file = try JSONDecoder().decode(KeyFile.self, from: keyFile)
        let key = try SigningKey(SigningKeyRecord(kid: file.private_key_id, privateKeyPEM: file.private_key,
                                                  certificatePEM: "", createdAt: now))
        let iat = now.epochSeconds
        let payload = Payload(iss: file.client_email, sub: file.client_email, aud: audience, iat: iat,
                              exp: iat + min(max(lifetime, 1), maximumLifetime), jti: SecureRandom.token())
        return try JWS.sign(payload: Array(try JSONEncoder().encode(payload)), with: key)
    }

    private static func trimmingSlash(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    private struct Claims: Decodable {
        var iss: String
        var sub: String
        var aud: Audience
        var iat: Int64
        var exp: Int64
        var jti: String?
    }

    /// `aud`: one string, or an array of them (RFC 7519 allows both; go-jose, for one, always writes an array).
    private struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) { values = [one] } else { values = try container.decode([String].self) }
        }
    }
}
