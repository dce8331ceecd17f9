import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs and JWKs use it.
///
/// Byte-level on purpose: every token verification decodes three parts, and going through Foundation's string
/// replacement showed up as the largest cost of `accounts:lookup` under load.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for each base64url character, 0xFF for anything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            if rest == 2 { output.append(alphabet[Int(chunk >> 6 & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url without padding; `nil` for any other character, padding or an impossible length.
    public static func decode(_ string: String) -> Data? {
        var string = string
        return string.withUTF8(decode(utf8:))
    }

    /// Decodes one part of a compact token without copying it out first.
    public static func decode(_ string: Substring) -> Data? {
        var string = string
        return string.withUTF8(decode(utf8:))
    }

    private static func decode(utf8: UnsafeBufferPointer<UInt8>) -> Data? {
        var end = utf8.count
        while end > 0 && utf8[end - 1] == UInt8(ascii: "=") { end -= 1 }  // tolerate padding
        guard end % 4 != 1 else { return nil }
        return values.withUnsafeBufferPointer { table -> Data? in
            var output = Data(count: end * 3 / 4)
            let complete = output.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Bool in
                var written = 0
                var accumulator: UInt32 = 0
                var bits: UInt32 = 0
                for index in 0..<end {
                    let value = table[Int(utf8[index])]
                    guard value != 0xFF else { return false }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        raw[written] = UInt8(truncatingIfNeeded: accumulator >> bits)
                        written += 1
                    }
                }
                return true
            }
            return complete ? output : nil
        }
    }
}
