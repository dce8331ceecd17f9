import Foundation

/// Writes a reply as JSON in one pass: byte for byte what Foundation's `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]`, without the tree of boxed values `JSONEncoder` builds and then sorts.
///
/// Written by hand because encoding the reply was a tenth of `accounts:lookup`'s time in a `perf` profile under
/// `scripts/load-test.sh`; this writer takes three quarters of `JSONEncoder`'s time (12 against 16 µs for a lookup
/// reply in `Benchmarks/`; most of what is left is `Codable`'s own traversal). It covers what replies use: objects, arrays, strings, numbers, booleans, `null`, `Data` as
/// base64 and `URL` as its string. Anything else (`superEncoder`, nested containers opened by hand, a non-finite
/// number, a key written twice) throws ``Unsupported``, and the caller falls back to `JSONEncoder`.
/// `WireJSONEncoderTests` holds it to `JSONEncoder`'s bytes.
///
/// ```swift
/// let bytes = try WireJSONEncoder.encode(LookupResponse(users: [UserInfo(localId: "ada")]))
/// ```
public enum WireJSONEncoder {
    /// A value this writer does not cover; `JSONEncoder` does.
    public struct Unsupported: Error, CustomStringConvertible {
        public let description: String
    }

    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let writer = JSONWriter()
        try writer.value(value)
        if let refused = writer.refused { throw Unsupported(description: refused) }
        return writer.bytes
    }
}

/// The encoder every container of one reply writes through. Members of an object are written in the order they
/// come, each after a comma but the first; when the object ends they are put in key order, as `.sortedKeys` does.
final class JSONWriter: Encoder {
    var bytes: [UInt8] = []
    /// Why the value cannot be written here; set where a container method cannot throw.
    var refused: String?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// What the value being written has opened.
    private enum Opened { case nothing, object, array, single }
    private var opened = Opened.nothing
    /// A member written: from its key's opening quote (`start`) to its value's end, its key's closing quote between.
    private struct Member { var start, keyEnd, end: Int }
    /// The members of every object being written, each object's after its enclosing one's.
    private var members: [Member] = []
    /// The objects being written, innermost last: where each starts, and its first member's index in `members`.
    private var objects: [(start: Int, firstMember: Int)] = []
    /// The arrays being written, innermost last: how many elements each has so far.
    private var arrays: [Int] = []

    init() { bytes.reserveCapacity(1024) }

    func refuse(_ why: String) { if refused == nil { refused = why } }

    // MARK: Values

    func value<T: Encodable>(_ value: T) throws {
        if T.self == Data.self { return string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return refuse("Decimal is not written here") }
        let outer = opened
        opened = .nothing
        try value.encode(to: self)
        switch opened {
        case .nothing: refuse("\(T.self) wrote nothing")
        case .object: endObject()
        case .array: endArray()
        case .single: break
        }
        opened = outer
    }

    func null() { bytes.append(contentsOf: "null".utf8) }
    func bool(_ value: Bool) { bytes.append(contentsOf: value ? "true".utf8 : "false".utf8) }
    func integer(_ value: some BinaryInteger) { bytes.append(contentsOf: String(value).utf8) }

    /// Floating point as `JSONEncoder` writes it: the shortest form that reads back, without a trailing `.0`.
    func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) {
        guard value.isFinite else { return refuse("a non-finite number") }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            var clean = 0  // the start of the bytes not yet copied
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                clean = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Objects

    /// Writes one member of the innermost object: its key, then what `write` writes. Keys are written as they are
    /// and compared as bytes, so one that would need escaping, or is not ASCII, is left to `JSONEncoder`.
    func member(_ key: String, _ write: () throws -> Void) rethrows {
        guard let object = objects.last else { return refuse("a member outside an object") }
        guard key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            return refuse("a key to escape")
        }
        if members.count > object.firstMember { bytes.append(UInt8(ascii: ",")) }
        let start = bytes.count
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: key.utf8)
        let keyEnd = bytes.count
        bytes.append(contentsOf: "\":".utf8)
        try write()
        members.append(Member(start: start, keyEnd: keyEnd, end: bytes.count))
    }

    private func endObject() {
        let object = objects.removeLast()
        defer {
            members.removeSubrange(object.firstMember...)
            bytes.append(UInt8(ascii: "}"))
        }
        guard members.count - object.firstMember > 1 else { return }
        var written = members[object.firstMember...]
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            // The key's bytes, as `.sortedKeys` orders them (for ASCII keys: byte order).
            func order(_ a: Member, _ b: Member) -> Int32 {
                let (left, right) = (a.keyEnd - a.start - 1, b.keyEnd - b.start - 1)
                let compared = memcmp(base + a.start + 1, base + b.start + 1, min(left, right))
                return compared != 0 ? compared : Int32(left - right).signum()
            }
            if !zip(written, written.dropFirst()).allSatisfy({ order($0, $1) < 0 }) {
                written.sort { order($0, $1) < 0 }
                if zip(written, written.dropFirst()).contains(where: { order($0, $1) == 0 }) { refuse("a key written twice") }
            }
        }
        guard !written.elementsEqual(members[object.firstMember...], by: { $0.start == $1.start }) else { return }
        // The same bytes in another order: an enclosing object's ranges stay valid.
        let region = Array(bytes[(object.start + 1)...])
        bytes.removeSubrange((object.start + 1)...)
        for (index, member) in written.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: region[(member.start - object.start - 1)..<(member.end - object.start - 1)])
        }
    }

    // MARK: Arrays

    func element(_ write: () throws -> Void) rethrows {
        guard !arrays.isEmpty else { return refuse("an element outside an array") }
        if arrays[arrays.count - 1] > 0 { bytes.append(UInt8(ascii: ",")) }
        arrays[arrays.count - 1] += 1
        try write()
    }

    private func endArray() {
        arrays.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch opened {
        case .nothing:
            opened = .object
            objects.append((bytes.count, members.count))
            bytes.append(UInt8(ascii: "{"))
        case .object: break  // a second container on the same object, as a subclass's encode(to:) asks for
        case .array, .single: refuse("an object inside a value already written")
        }
        return KeyedEncodingContainer(Members(writer: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if opened == .nothing {
            opened = .array
            arrays.append(0)
            bytes.append(UInt8(ascii: "["))
        } else {
            refuse("a second container for one value")
        }
        return Elements(writer: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if opened == .nothing { opened = .single } else { refuse("a second container for one value") }
        return Single(writer: self)
    }
}

extension JSONWriter {
    struct Members<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: JSONWriter
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) { writer.member(key.stringValue) { writer.null() } }
        mutating func encode(_ value: Bool, forKey key: Key) { writer.member(key.stringValue) { writer.bool(value) } }
        mutating func encode(_ value: String, forKey key: Key) { writer.member(key.stringValue) { writer.string(value) } }
        mutating func encode(_ value: Double, forKey key: Key) { writer.member(key.stringValue) { writer.number(value) } }
        mutating func encode(_ value: Float, forKey key: Key) { writer.member(key.stringValue) { writer.number(value) } }
        mutating func encode(_ value: Int, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: Int8, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: Int16, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: Int32, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: Int64, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: UInt, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: UInt8, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: UInt16, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: UInt32, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode(_ value: UInt64, forKey key: Key) { writer.member(key.stringValue) { writer.integer(value) } }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try writer.member(key.stringValue) { try writer.value(value) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            writer.refuse("a nested container")
            return KeyedEncodingContainer(Members<NestedKey>(writer: writer))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            writer.refuse("a nested container")
            return Elements(writer: writer)
        }
        mutating func superEncoder() -> any Encoder { writer.refuse("a super encoder"); return writer }
        mutating func superEncoder(forKey key: Key) -> any Encoder { writer.refuse("a super encoder"); return writer }
    }

    struct Elements: UnkeyedEncodingContainer {
        let writer: JSONWriter
        var codingPath: [any CodingKey] { [] }
        var count = 0

        mutating func encodeNil() { count += 1; writer.element { writer.null() } }
        mutating func encode(_ value: Bool) { count += 1; writer.element { writer.bool(value) } }
        mutating func encode(_ value: String) { count += 1; writer.element { writer.string(value) } }
        mutating func encode(_ value: Double) { count += 1; writer.element { writer.number(value) } }
        mutating func encode(_ value: Float) { count += 1; writer.element { writer.number(value) } }
        mutating func encode(_ value: Int) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: Int8) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: Int16) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: Int32) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: Int64) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: UInt) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: UInt8) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: UInt16) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: UInt32) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode(_ value: UInt64) { count += 1; writer.element { writer.integer(value) } }
        mutating func encode<T: Encodable>(_ value: T) throws { count += 1; try writer.element { try writer.value(value) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            writer.refuse("a nested container")
            return KeyedEncodingContainer(Members<NestedKey>(writer: writer))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            writer.refuse("a nested container")
            return self
        }
        mutating func superEncoder() -> any Encoder { writer.refuse("a super encoder"); return writer }
    }

    struct Single: SingleValueEncodingContainer {
        let writer: JSONWriter
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { writer.null() }
        mutating func encode(_ value: Bool) { writer.bool(value) }
        mutating func encode(_ value: String) { writer.string(value) }
        mutating func encode(_ value: Double) { writer.number(value) }
        mutating func encode(_ value: Float) { writer.number(value) }
        mutating func encode(_ value: Int) { writer.integer(value) }
        mutating func encode(_ value: Int8) { writer.integer(value) }
        mutating func encode(_ value: Int16) { writer.integer(value) }
        mutating func encode(_ value: Int32) { writer.integer(value) }
        mutating func encode(_ value: Int64) { writer.integer(value) }
        mutating func encode(_ value: UInt) { writer.integer(value) }
        mutating func encode(_ value: UInt8) { writer.integer(value) }
        mutating func encode(_ value: UInt16) { writer.integer(value) }
        mutating func encode(_ value: UInt32) { writer.integer(value) }
        mutating func encode(_ value: UInt64) { writer.integer(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { try writer.value(value) }
    }
}
