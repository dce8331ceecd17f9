import Foundation

/// A strict RFC 8259 parser into ``JSONValue``, for request bodies.
///
/// Written by hand for two reasons: it is several times cheaper than decoding `JSONValue` through `Decodable`
/// (request parsing is on every call's hot path), and its messages match what Firebase's emulator answers
/// ("Unexpected end of JSON input", "Unexpected token } in JSON at position 12"). Nesting is limited to 64 levels.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    static func parse(_ data: Data) throws(WireDecodingError) -> JSONValue {
        let result: Result<JSONValue, WireDecodingError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            return Result { () throws(WireDecodingError) -> JSONValue in
                parser.skipWhitespace()
                let value = try parser.value()
                parser.skipWhitespace()
                guard parser.position == parser.bytes.count else { throw parser.unexpected() }
                return value
            }
        }
        return try result.get()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func unexpected() -> WireDecodingError {
        guard position < bytes.count else { return .malformed("Unexpected end of JSON input") }
        let byte = bytes[position]
        let token = byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
        return .malformed("Unexpected token \(token) in JSON at position \(position)")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws(WireDecodingError) {
        for byte in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard position < bytes.count, bytes[position] == byte else { throw unexpected() }
            position += 1
        }
    }

    private mutating func value() throws(WireDecodingError) -> JSONValue {
        guard position < bytes.count else { throw unexpected() }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw unexpected()
        }
    }

    private mutating func object() throws(WireDecodingError) -> JSONValue {
        depth += 1
        guard depth <= 64 else { throw .malformed("Nesting too deep at position \(position)") }
        defer { depth -= 1 }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw unexpected() }
            let key = try string()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw unexpected() }
            position += 1
            skipWhitespace()
            // A field spelled twice is refused where the body is parsed, so every reader sees one value.
            guard members.updateValue(try value(), forKey: key) == nil else { throw .duplicateField(key) }
            skipWhitespace()
            guard position < bytes.count else { throw unexpected() }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                try WireObject.refuseAliases(members.keys)
                return .object(members)
            }
            throw unexpected()
        }
    }

    private mutating func array() throws(WireDecodingError) -> JSONValue {
        depth += 1
        guard depth <= 64 else { throw .malformed("Nesting too deep at position \(position)") }
        defer { depth -= 1 }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            guard position < bytes.count else { throw unexpected() }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            throw unexpected()
        }
    }

    private mutating func string() throws(WireDecodingError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        var scalars = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw unexpected() }
            if byte != UInt8(ascii: "\\") {
                scalars.append(byte)
                position += 1
                continue
            }
            position += 1
            guard position < bytes.count else { throw unexpected() }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {  // surrogate pair
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw .malformed("Invalid Unicode escape at position \(position)") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw .malformed("Invalid Unicode escape at position \(position)") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                position -= 1
                throw unexpected()
            }
        }
        throw unexpected()
    }

    private mutating func hex4() throws(WireDecodingError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count, let digit = hexValue(bytes[position]) else { throw unexpected() }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func number() throws(WireDecodingError) -> Double {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw unexpected() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard try digits() > 0 else { throw unexpected() }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard try digits() > 0 else { throw unexpected() }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard try digits() > 0 else { throw unexpected() }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw .malformed("Number out of range at position \(start)") }
        return number
    }

    private mutating func digits() throws(WireDecodingError) -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        return position - start
    }
}
