import Foundation

/// Writes one JSON object, member by member, in the order given: how ID-token claims are serialized.
///
/// `JSONSerialization` costs more than the rest of token minting apart from the signature on Linux (bridging to
/// `NSDictionary`, locale-aware key sorting); claims are a fixed, small shape, so they are written directly.
struct JSONWriter {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    init() { bytes.reserveCapacity(512) }

    private mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: String, _ value: String) {
        key(name)
        appendString(value)
    }

    mutating func int(_ name: String, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A member whose value is already JSON text (a nested object built by another writer, a custom claim).
    mutating func raw(_ name: String, _ json: some Collection<UInt8>) {
        key(name)
        bytes.append(contentsOf: json)
    }

    /// `{"provider": ["id", …], …}`.
    mutating func stringLists(_ name: String, _ lists: [String: [String]]) {
        key(name)
        bytes.append(UInt8(ascii: "{"))
        for (index, (provider, ids)) in lists.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(provider)
            bytes.append(contentsOf: ":[".utf8)
            for (position, id) in ids.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(id)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The finished object.
    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case ..<0x20:
                let hex = String(byte, radix: 16)
                bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
