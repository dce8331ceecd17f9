import Crypto
import CryptoExtras
import Foundation

/// A credential's public key in COSE form (RFC 9053), as an authenticator registers it: ES256 (P-256), EdDSA
/// (Ed25519) or RS256 (RSA, PKCS #1 v1.5). Stored as registered and parsed again to check each assertion.
///
/// ```swift
/// let key = try COSEKey(encoded: storedKeyBytes)
/// guard key.isValidSignature(signature, for: authenticatorData + clientDataHash) else { … }
/// ```
public struct COSEKey: Sendable {
    public enum Algorithm: Int64, Sendable, CaseIterable {
        case es256 = -7, eddsa = -8, rs256 = -257
    }

    enum Material: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    public let algorithm: Algorithm
    /// The key's CBOR, as registered.
    public let encoded: [UInt8]
    let material: Material

    public init(encoded: [UInt8]) throws(WebAuthnError) {
        let map: CBOR
        do { map = try CBOR.decode(encoded) } catch { throw .malformed("the credential public key is not CBOR (\(error))") }
        try self.init(map, encoded: encoded)
    }

    init(_ map: CBOR, encoded: [UInt8]) throws(WebAuthnError) {
        guard map.entries != nil, let kty = map[int: 1]?.int, let alg = map[int: 3]?.int else {
            throw .malformed("the credential public key has no kty or alg")
        }
        guard let algorithm = Algorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
        self.algorithm = algorithm
        self.encoded = encoded
        do {
            switch (algorithm, kty) {
            case (.es256, 2):
                guard map[int: -1]?.int == 1, let x = map[int: -2]?.bytes, let y = map[int: -3]?.bytes, x.count == 32, y.count == 32
                else { throw WebAuthnError.malformed("an ES256 key needs curve P-256 and 32-byte x and y") }
                material = .p256(try P256.Signing.PublicKey(rawRepresentation: x + y))
            case (.eddsa, 1):
                guard map[int: -1]?.int == 6, let x = map[int: -2]?.bytes, x.count == 32
                else { throw WebAuthnError.malformed("an EdDSA key needs curve Ed25519 and a 32-byte x") }
                material = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            case (.rs256, 3):
                guard let n = map[int: -1]?.bytes, let e = map[int: -2]?.bytes, !n.isEmpty, !e.isEmpty
                else { throw WebAuthnError.malformed("an RS256 key needs n and e") }
                material = .rsa(try _RSA.Signing.PublicKey(n: n, e: e))  // swift-crypto refuses keys under 2048 bits
            default:
                throw WebAuthnError.malformed("key type \(kty) does not match algorithm \(alg)")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw .malformed("the credential public key is not a valid \(algorithm) key")
        }
    }

    /// Whether `signature` (DER for ES256, raw for EdDSA and RS256, as WebAuthn carries them) signs `data`.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch material {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data,
                                        padding: .insecurePKCS1v1_5)
        }
    }
}
