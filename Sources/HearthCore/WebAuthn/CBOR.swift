import Foundation

/// A CBOR value (RFC 8949), as much of it as WebAuthn carries: integers, byte and text strings, arrays, maps,
/// booleans and null. Decoded by ``CBOR/decode(_:)`` — a strict reader written here because no Swift CBOR package
/// is in the dependency graph, and WebAuthn needs only this subset.
///
/// ```swift
/// let object = try CBOR.decode(attestationObject)
/// let format = object[text: "fmt"]?.text          // "none", "packed"
/// ```
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer -1 - n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Entries in their encoded order; keys are unique (the decoder refuses duplicates).
    case map([Entry])
    case bool(Bool)
    case null

    public struct Entry: Sendable, Equatable {
        public var key: CBOR
        public var value: CBOR
    }

    /// The value as a signed integer, when it is one that fits.
    public var int: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    public var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    public var text: String? { if case .text(let t) = self { t } else { nil } }
    public var array: [CBOR]? { if case .array(let a) = self { a } else { nil } }
    public var entries: [Entry]? { if case .map(let m) = self { m } else { nil } }

    /// A map's value under an integer key (COSE labels).
    public subscript(int key: Int64) -> CBOR? { entries?.first { $0.key.int == key }?.value }
    /// A map's value under a text key.
    public subscript(text key: String) -> CBOR? { entries?.first { $0.key.text == key }?.value }

    /// Why bytes are not the CBOR this reader takes.
    public enum DecodingError: Error, Equatable, Sendable {
        case truncated
        case trailingBytes
        case indefiniteLength
        case unsupported(String)
        case nonCanonical
        case tooDeep
        case invalidText
        case duplicateKey
        case badKey
    }

    /// Nesting deeper than this is refused: WebAuthn's structures are three or four levels deep.
    static let maximumDepth = 16
    /// Arrays and maps longer than this are refused: WebAuthn's hold a handful of items (a COSE key six, an
    /// attestation object three), and a map's duplicate-key check is quadratic in its length.
    static let maximumCount: UInt64 = 256

    /// Decodes exactly one value that fills `bytes`.
    public static func decode(_ bytes: some Collection<UInt8>) throws(DecodingError) -> CBOR {
        var reader = Reader(bytes: Array(bytes))
        let value = try reader.value(depth: 0)
        guard reader.offset == reader.bytes.count else { throw .trailingBytes }
        return value
    }

    /// Decodes one value at the start of `bytes` and says how many bytes it took (authenticator data holds a COSE
    /// key followed by more).
    public static func decodePrefix(_ bytes: some Collection<UInt8>) throws(DecodingError) -> (CBOR, Int) {
        var reader = Reader(bytes: Array(bytes))
        let value = try reader.value(depth: 0)
        return (value, reader.offset)
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(DecodingError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: UInt64) throws(DecodingError) -> ArraySlice<UInt8> {
            // Compared with what is left before anything is allocated: a declared length cannot outgrow the input.
            guard count <= UInt64(bytes.count - offset) else { throw .truncated }
            let end = offset + Int(count)
            defer { offset = end }
            return bytes[offset..<end]
        }

        /// The argument of a head: the value itself below 24, else the 1, 2, 4 or 8 bytes that follow, which must
        /// be the shortest form (CTAP2's canonical encoding).
        mutating func argument(_ info: UInt8) throws(DecodingError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                let width = 1 << Int(info - 24)
                var value: UInt64 = 0
                for byte in try take(UInt64(width)) { value = value << 8 | UInt64(byte) }
                let smallest: UInt64 = switch width { case 1: 24; case 2: 0x100; case 4: 0x1_0000; default: 0x1_0000_0000 }
                guard value >= smallest else { throw .nonCanonical }
                return value
            case 31: throw .indefiniteLength
            default: throw .unsupported("additional information \(info)")
            }
        }

        mutating func value(depth: Int) throws(DecodingError) -> CBOR {
            guard depth < CBOR.maximumDepth else { throw .tooDeep }
            let head = try byte()
            let (major, info) = (head >> 5, head & 0x1f)
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Array(try take(try argument(info))))
            case 3:
                guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else { throw .invalidText }
                return .text(text)
            case 4:
                let count = try argument(info)
                // Each element takes at least a byte: a count beyond what is left is refused before anything is reserved.
                guard count <= CBOR.maximumCount else { throw .unsupported("an array of \(count) items") }
                guard count <= UInt64(bytes.count - offset) else { throw .truncated }
                var items: [CBOR] = []
                items.reserveCapacity(Int(count))
                for _ in 0..<count { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try argument(info)
                guard count <= CBOR.maximumCount else { throw .unsupported("a map of \(count) entries") }
                guard count <= UInt64(bytes.count - offset) / 2 else { throw .truncated }
                var entries: [Entry] = []
                entries.reserveCapacity(Int(count))
                for _ in 0..<count {
                    let key = try value(depth: depth + 1)
                    guard key.int != nil || key.text != nil else { throw .badKey }
                    guard !entries.contains(where: { $0.key == key }) else { throw .duplicateKey }
                    entries.append(Entry(key: key, value: try value(depth: depth + 1)))
                }
                return .map(entries)
            case 6: throw .unsupported("tags")
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 31: throw .indefiniteLength
                default: throw .unsupported("simple value or float \(info)")
                }
            }
        }
    }
}
