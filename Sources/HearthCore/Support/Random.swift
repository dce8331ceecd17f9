import Crypto
import Foundation

/// Cryptographically secure random strings for ids, codes and opaque tokens.
public enum SecureRandom {
    /// `count` random bytes from the system's CSPRNG.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A Firebase-style user id: 28 characters of `[A-Za-z0-9]`, about 166 bits.
    public static func localID() -> String {
        string(length: 28, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"))
    }

    /// An opaque token of `byteCount` random bytes, base64url without padding.
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }

    /// A string of `length` characters drawn uniformly from `alphabet`.
    public static func string(length: Int, alphabet: [Character]) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A random decimal string of `length` digits, first digit non-zero (project numbers).
    public static func digits(_ length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let first = Character(String(Int.random(in: 1...9, using: &generator)))
        return String(first) + string(length: length - 1, alphabet: Array("0123456789"))
    }
}

/// SHA-256 of a secret, hex encoded: how opaque tokens and codes are stored at rest.
public func storageDigest(_ secret: String) -> String {
    SHA256.hash(data: Data(secret.utf8)).hexString
}

extension Sequence<UInt8> {
    /// Lowercase hex, two digits a byte. By hand: `String(format: "%02x")` a byte was 3 % of a token refresh in a
    /// `perf` profile (the refresh token's digest).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Compares two byte sequences in time that depends only on their lengths.
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

/// A secret handed to a client for a later call of the same flow (`mfaPendingCredential`, an SMS `sessionInfo`, a
/// TOTP enrollment's `sessionInfo`, a phone number's temporary proof) that names its tenant: `<random>.<tenant>`.
/// A call that carries one and names no tenant runs in the secret's tenant (the server's tenant scope reads it with
/// ``tenant(of:)``). The name is only a pointer: secrets are stored under a key derived from their tenant as well,
/// so one whose tenant part was changed finds nothing.
///
/// ```swift
/// let sessionInfo = ScopedSecret.make(tenantID: "acme-a1b2c")   // "Jq…Xw.acme-a1b2c"
/// ScopedSecret.tenant(of: sessionInfo)                           // "acme-a1b2c"
/// ```
public enum ScopedSecret {
    public static func make(tenantID: String?, byteCount: Int = 32) -> String {
        SecureRandom.token(byteCount: byteCount) + (tenantID.map { "." + $0 } ?? "")
    }

    /// The tenant a secret names, or `nil` for the project's own (base64url has no dot).
    public static func tenant(of secret: String) -> String? {
        guard let dot = secret.lastIndex(of: "."), secret.index(after: dot) < secret.endIndex else { return nil }
        return String(secret[secret.index(after: dot)...])
    }
}
