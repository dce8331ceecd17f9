import Crypto
import Foundation

/// RFC 6238 time-based one-time passwords (HMAC-SHA1, 30-second steps, 6 digits: what authenticator apps use and
/// Firebase's `totpSessionInfo` announces), and RFC 4648 base32 for the shared secret.
///
/// ```swift
/// let secret = TOTP.newSecret()                       // 20 random bytes
/// let code = TOTP.code(secret: secret, at: Date())    // "492039"
/// TOTP.match(code, secret: secret, at: Date(), window: 1)   // the matching time step, or nil
/// ```
public enum TOTP {
    public static let period: Int64 = 30
    public static let digits = 6

    public static func newSecret() -> Data { Data(SecureRandom.bytes(20)) }

    public static func step(at date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970)) / period }

    public static func code(secret: Data, step: Int64) -> String {
        var counter = UInt64(step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    public static func code(secret: Data, at date: Date) -> String { code(secret: secret, step: step(at: date)) }

    /// The time step whose code is `code`, looking `window` steps either side of now (compared in constant time).
    public static func match(_ code: String, secret: Data, at date: Date, window: Int) -> Int64? {
        let now = step(at: date)
        var found: Int64?
        for offset in -Int64(window)...Int64(window) {
            let candidate = now + offset
            if constantTimeEquals(Array(Self.code(secret: secret, step: candidate).utf8), Array(code.utf8)) {
                found = candidate
            }
        }
        return found
    }
}

/// RFC 4648 base32 (upper case, no padding), the form authenticator apps take secrets in.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ data: Data) -> String {
        var result: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                result.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: result, as: UTF8.self)
    }

    public static func decode(_ text: String) -> Data? {
        var result = Data()
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(index)
            bits += 5
            if bits >= 8 {
                result.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return result
    }
}
