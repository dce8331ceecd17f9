import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// An RSA-2048 key that signs ID tokens (RS256), ready to use: parsed once, then shared.
public struct SigningKey: Sendable {
    public let kid: String
    public let publicKey: _RSA.Signing.PublicKey
    public let certificatePEM: String
    /// The encoded JWS header of tokens this key signs: fixed, so it is built once and recognised by equality.
    public let headerSegment: String
    /// When it stopped signing: tokens it verifies must be issued before.
    public let retiredAt: Date?
    let privateKey: _RSA.Signing.PrivateKey

    /// Parses a stored key.
    public init(_ record: SigningKeyRecord) throws {
        privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: record.privateKeyPEM)
        publicKey = privateKey.publicKey
        kid = record.kid
        certificatePEM = record.certificatePEM
        retiredAt = record.retiredAt
        headerSegment = Base64URL.encode(Data(#"{"alg":"RS256","kid":"\#(record.kid)","typ":"JWT"}"#.utf8))
    }

    /// Creates a new RSA-2048 key with a self-signed X.509 certificate (for the Google-shaped x509 endpoint).
    public static func generate(now: Date, subject: String = "securetoken.hearth") async throws -> SigningKeyRecord {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = SHA256.hash(data: key.publicKey.derRepresentation).prefix(20).hexString
        let name = try DistinguishedName { CommonName(subject) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions {}, issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let pem = PEMDocument(type: "CERTIFICATE", derBytes: serializer.serializedBytes).pemString
        return SigningKeyRecord(kid: kid, privateKeyPEM: key.pkcs8PEMRepresentation, certificatePEM: pem, createdAt: now)
    }

    /// RS256 signature of `data`.
    public func sign(_ data: Data) throws -> Data {
        try privateKey.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation
    }

    /// Checks an RS256 signature.
    public func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        publicKey.isValidSignature(.init(rawRepresentation: signature), for: SHA256.hash(data: data),
                                   padding: .insecurePKCS1v1_5)
    }

    /// The public key as a JWK (`kty`, `alg`, `use`, `kid`, `n`, `e`), as Google's JWKS endpoints publish it.
    public var jwk: [String: String] {
        let primitives = try? publicKey.getKeyPrimitives()
        return ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                "n": Base64URL.encode(primitives?.modulus ?? Data()),
                "e": Base64URL.encode(primitives?.publicExponent ?? Data())]
    }
}

/// A project's keys, parsed, as they stand at one instant: the newest key already active and not retired signs;
/// every key that is not past its retention is published and verifies.
///
/// A retired key stays published for ``retention`` (session cookies live up to 14 days), so no token it signed stops
/// verifying early. Built by the project cache at most 5 seconds before use, and again at ``nextChange``, so every
/// instance switches keys at the same instant.
public struct KeyRing: Sendable {
    /// How long a retired key still verifies: the longest-lived token it can have signed, plus clock skew.
    public static let retention: TimeInterval = 14 * 86400 + 300

    public let active: SigningKey
    public let byKid: [String: SigningKey]
    /// Keys by the exact header segment they produce: the fast path for verifying Hearth's own tokens.
    public let byHeaderSegment: [String: SigningKey]
    /// The published keys, oldest first.
    public let all: [SigningKey]
    /// The next instant at which the ring would differ (a key activates or leaves retention), if any.
    public let nextChange: Date?

    public init(_ records: [SigningKeyRecord], now: Date = Date()) throws {
        let published = records.filter { record in record.retiredAt.map { now < $0 + Self.retention } ?? true }
        let signing = published.last { record in
            record.retiredAt == nil && (record.activatesAt.map { $0 <= now } ?? true)
        } ?? published.last { $0.retiredAt == nil } ?? published.last
        guard let signing else { throw TokenError.noSigningKey }
        let keys = try published.map(SigningKey.init)
        active = keys[published.firstIndex(of: signing)!]
        all = keys
        byKid = Dictionary(keys.map { ($0.kid, $0) }, uniquingKeysWith: { _, new in new })
        byHeaderSegment = Dictionary(keys.map { ($0.headerSegment, $0) }, uniquingKeysWith: { _, new in new })
        let changes = records.compactMap { $0.activatesAt } + records.compactMap { $0.retiredAt.map { $0 + Self.retention } }
        nextChange = changes.filter { $0 > now }.min()
    }
}
