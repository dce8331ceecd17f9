import Foundation

/// Decodes plain `Decodable` request types from a ``WireObject`` with Google's JSON mapping rules, so each wire
/// shape is declared once, as a struct:
///
/// - keys may be camelCase or snake_case (`return_secure_token` reads as `returnSecureToken`); the keys of maps
///   (`[String: String]`) are kept exactly as sent;
/// - numbers are accepted for strings and numeric strings for numbers (Google's int64 mapping);
/// - `Data` is base64 in either alphabet; ``ProtoEnum`` values may be given by their proto number;
/// - a value of the wrong type is an error naming the field (`/returnSecureToken must be boolean`);
/// - with `strict` (production), a key no type asked for, at any depth, is `Unknown name "x"`; types list the keys
///   they accept and ignore in ``IgnoresWireFields``.
///
/// ```swift
/// let request = try WireDecoder(strict: true).decode(SignInWithPasswordRequest.self, from: WireObject(json: data))
/// ```
public struct WireDecoder: Sendable {
    public var strict: Bool
    /// Top-level keys every request may carry and no type declares (`tenantId`, which scopes the call).
    public var alsoIgnoring: [String]
    /// Reads an absent field as its proto3 default (`""`, `false`, `0`, `[]`, an empty object), as Google's own
    /// clients read replies: what the SDKs use, so a reply that leaves a field out still decodes.
    public var absentAsDefault: Bool

    public init(strict: Bool, alsoIgnoring: [String] = [], absentAsDefault: Bool = false) {
        self.strict = strict
        self.alsoIgnoring = alsoIgnoring
        self.absentAsDefault = absentAsDefault
    }

    /// The decoder the SDKs read server replies with: lenient, absent fields as defaults.
    public static let replies = WireDecoder(strict: false, absentAsDefault: true)

    public func decode<T: Decodable>(_ type: T.Type, from body: WireObject) throws(WireDecodingError) -> T {
        let state = DecodingState()
        state.absentAsDefault = absentAsDefault
        do {
            let value = try WireValueDecoder.unbox(type, .object(body.fields), path: [], state: state,
                                                   extraIgnored: alsoIgnoring)
            if strict, let unknown = state.firstUnknown() { throw unknown }
            return value
        } catch let error as WireDecodingError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw .wrongType(path: WireValueDecoder.path(context.codingPath + [key]), expected: "present")
        } catch let DecodingError.dataCorrupted(context) {
            throw .wrongType(path: WireValueDecoder.path(context.codingPath), expected: "equal to one of the allowed values")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .wrongType(path: WireValueDecoder.path(context.codingPath), expected: "valid")
        } catch {
            // Nothing else is thrown by the types decoded here; if it were, its text is not for clients.
            throw .wrongType(path: "/", expected: "valid")
        }
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(WireDecodingError) -> T {
        try decode(type, from: try WireObject(json: data))
    }
}

/// A type whose wire form has keys it accepts and ignores (reCAPTCHA fields, say), so strict decoding does not
/// refuse them.
public protocol IgnoresWireFields {
    static var ignoredWireFields: [String] { get }
}

/// A list: absent from a body, it decodes as empty (proto3's repeated fields).
private protocol EmptyWhenAbsent {}
extension Array: EmptyWhenAbsent {}

/// A string enum that Google's JSON mapping also accepts by its proto number (Android sends `requestType: 6`).
public protocol ProtoEnum: RawRepresentable<String>, Decodable {
    /// The proto's value names in number order.
    static var protoNames: [String] { get }
}

/// The keys of one object being decoded, and which were read: what strict decoding reports as unknown.
/// Flags beside the keys rather than a set of names: bodies have a handful of keys, and a scan of them is cheaper
/// than hashing each name (a lookup's profile showed the set).
private final class ObjectReads {
    let path: [any CodingKey]
    let keys: [String]
    var read: [Bool]
    var readsAll = false

    init(path: [any CodingKey], keys: [String], ignored: [String]) {
        self.path = path
        self.keys = keys
        read = ignored.isEmpty ? Array(repeating: false, count: keys.count) : keys.map(ignored.contains)
    }

    func markRead(_ name: String) {
        for index in keys.indices where !read[index] && keys[index] == name { read[index] = true }
    }

    var unread: [String] { keys.indices.filter { !read[$0] }.map { keys[$0] } }
}

private final class DecodingState {
    var objects: [ObjectReads] = []
    var absentAsDefault = false

    /// The proto3 default a `T` is read from when its field is absent (``WireDecoder/absentAsDefault``).
    static func defaultValue<T>(for type: T.Type) -> JSONValue {
        if let primitive = type as? any WrapsPrimitive.Type { return primitive.absentDefault }
        switch type {
        case is String.Type: return .string("")
        case is Bool.Type: return .bool(false)
        case is any BinaryInteger.Type, is Double.Type, is Float.Type: return .number(0)
        case is any EmptyWhenAbsent.Type: return .array([])
        default: return .object([:])
        }
    }

    /// The first key nobody read: the top level's first, then nested objects' in the order they were decoded.
    func firstUnknown() -> WireDecodingError? {
        for object in objects where !object.readsAll {
            guard let name = object.unread.sorted().first else { continue }
            if object.path.isEmpty { return .unknownField(name) }
            return .unknownNestedField(name, at: WireObject.googlePath(WireValueDecoder.path(object.path)))
        }
        return nil
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct WireValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let state: DecodingState
    let reads: ObjectReads?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `/users/1/email`, as Google names a field in a type error.
    static func path(_ keys: [any CodingKey]) -> String {
        "/" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
    }

    var pathText: String { Self.path(codingPath) }

    static func unbox<T: Decodable>(_ type: T.Type, _ value: JSONValue, path: [any CodingKey], state: DecodingState,
                                    extraIgnored: [String] = []) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if T.self == Data.self {
            let text: String
            switch value {
            case .string(let string): text = string
            default: throw WireDecodingError.wrongType(path: Self.path(path), expected: "base64 bytes")
            }
            guard let data = WireObject.base64(text) else {
                throw WireDecodingError.wrongType(path: Self.path(path), expected: "base64 bytes")
            }
            return data as! T
        }
        var value = value
        // A proto enum given by number (checked only for numbers: the conformance lookup is not free).
        let number: Int? = switch value {
        case .number(let n) where n.rounded() == n && abs(n) < 1e9: Int(n)
        case .string(let s) where s.utf8.first.map { (48...57).contains($0) } == true: Int(s)
        default: nil
        }
        if let number, let proto = T.self as? any ProtoEnum.Type, proto.protoNames.indices.contains(number) {
            value = .string(proto.protoNames[number])
        }
        let ignored = value.isObject ? ((T.self as? any IgnoresWireFields.Type)?.ignoredWireFields ?? []) + extraIgnored : []
        return try T(from: decoder(for: value, at: path, state: state, ignoring: ignored))
    }

    /// A decoder for `value` at `path`; an object's keys are registered for the unknown-field check.
    static func decoder(for value: JSONValue, at path: [any CodingKey], state: DecodingState,
                        ignoring ignored: [String] = []) -> WireValueDecoder {
        var reads: ObjectReads?
        if case .object(let members) = value {
            let record = ObjectReads(path: path, keys: members.keys.map(WireObject.camelCase), ignored: ignored)
            state.objects.append(record)
            reads = record
        }
        return WireValueDecoder(value: value, codingPath: path, state: state, reads: reads)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value, let reads else {
            throw WireDecodingError.wrongType(path: pathText, expected: "object", got: value.typeName)
        }
        return KeyedDecodingContainer(KeyedWireContainer<Key>(members: members, codingPath: codingPath, state: state, reads: reads))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw WireDecodingError.wrongType(path: pathText, expected: "array") }
        return UnkeyedWireContainer(items: items, codingPath: codingPath, state: state)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension WireValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw WireDecodingError.wrongType(path: pathText, expected: "boolean") }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        switch value {
        case .string(let text): return text
        case .number(let number): return WireObject.format(number)
        default: throw WireDecodingError.wrongType(path: pathText, expected: "string", got: value.typeName)
        }
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .number(let number): return number
        case .string(let text) where Double(text) != nil: return Double(text)!
        default: throw WireDecodingError.wrongType(path: pathText, expected: "number")
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    /// An integer given as a JSON number or as a decimal string (Google's int64 mapping).
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let parsed: I? = switch value {
        case .number(let n) where n.rounded() == n && abs(n) < 9e15: I(exactly: n)
        case .string(let s): I(s)
        default: nil
        }
        guard let parsed else { throw WireDecodingError.wrongType(path: pathText, expected: "integer") }
        return parsed
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try Self.unbox(type, value, path: codingPath, state: state)
    }
}

private struct KeyedWireContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    let state: DecodingState
    let reads: ObjectReads
    /// camelCase name → the key as sent, for bodies that spell keys in snake_case.
    let aliases: [String: String]

    init(members: [String: JSONValue], codingPath: [any CodingKey], state: DecodingState, reads: ObjectReads) {
        self.members = members
        self.codingPath = codingPath
        self.state = state
        self.reads = reads
        var aliases: [String: String] = [:]
        for key in members.keys where WireObject.hasUnderscore(key) { aliases[WireObject.camelCase(key)] = key }
        self.aliases = aliases
    }

    /// A map's keys are data, kept as sent; reading them means the whole object is read.
    var allKeys: [Key] {
        reads.readsAll = true
        return members.keys.compactMap { Key(stringValue: $0) }
    }

    private func member(_ key: Key) -> JSONValue? {
        // A type may spell its key either way (`grant_type`); the body may too.
        let name = WireObject.camelCase(key.stringValue)
        reads.markRead(name)
        return members[key.stringValue] ?? members[name] ?? aliases[name].flatMap { members[$0] }
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { (member(key) ?? .null) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = member(key)
        guard let value, value != .null else {
            // An absent list is empty (proto3's repeated fields); a null one is refused, as Firebase's emulator does.
            if T.self is any EmptyWhenAbsent.Type {
                if value == .null { throw WireDecodingError.wrongType(path: WireValueDecoder.path(codingPath + [key]), expected: "array") }
                return try WireValueDecoder.unbox(type, .array([]), path: codingPath + [key], state: state)
            }
            if state.absentAsDefault {
                return try WireValueDecoder.unbox(type, DecodingState.defaultValue(for: type), path: codingPath + [key], state: state)
            }
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return try WireValueDecoder.unbox(type, value, path: codingPath + [key], state: state)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(key), value != .null else { return nil }
        return try WireValueDecoder.unbox(type, value, path: codingPath + [key], state: state)
    }

    // The primitive requirements all go through the generic one, so every value follows the same rules.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Primitive<Bool>.self, forKey: key).value }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(Primitive<String>.self, forKey: key).value }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Primitive<Double>.self, forKey: key).value }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Primitive<Float>.self, forKey: key).value }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Primitive<Int>.self, forKey: key).value }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(Primitive<Int8>.self, forKey: key).value }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(Primitive<Int16>.self, forKey: key).value }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Primitive<Int32>.self, forKey: key).value }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Primitive<Int64>.self, forKey: key).value }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(Primitive<UInt>.self, forKey: key).value }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(Primitive<UInt8>.self, forKey: key).value }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(Primitive<UInt16>.self, forKey: key).value }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(Primitive<UInt32>.self, forKey: key).value }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(Primitive<UInt64>.self, forKey: key).value }

    // One lookup per optional field (the default goes through `contains`, `decodeNil` and `decode`).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(Primitive<Bool>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(Primitive<String>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(Primitive<Double>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(Primitive<Float>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(Primitive<Int>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeIfPresent(Primitive<Int8>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeIfPresent(Primitive<Int16>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(Primitive<Int32>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(Primitive<Int64>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(Primitive<UInt>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(Primitive<UInt8>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeIfPresent(Primitive<UInt16>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(Primitive<UInt32>.self, forKey: key)?.value }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(Primitive<UInt64>.self, forKey: key)?.value }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { WireValueDecoder(value: .object(members), codingPath: codingPath, state: state, reads: reads) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }

    private func decoder(for key: Key) throws -> WireValueDecoder {
        WireValueDecoder.decoder(for: member(key) ?? .null, at: codingPath + [key], state: state)
    }
}

/// A primitive read through ``WireValueDecoder/unbox`` (one place for its rules).
private protocol WrapsPrimitive { static var absentDefault: JSONValue { get } }

private struct Primitive<Value: Decodable>: Decodable, WrapsPrimitive {
    static var absentDefault: JSONValue { DecodingState.defaultValue(for: Value.self) }
    let value: Value
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Value.self) }
}

private struct UnkeyedWireContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    let state: DecodingState
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey], state: DecodingState) {
        self.items = items
        self.codingPath = codingPath
        self.state = state
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "end of array"))
        }
        let path = codingPath + [IndexKey(currentIndex)]
        let value = try WireValueDecoder.unbox(type, items[currentIndex], path: path, state: state)
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decode(Primitive<Bool>.self).value }
    mutating func decode(_ type: String.Type) throws -> String { try decode(Primitive<String>.self).value }
    mutating func decode(_ type: Double.Type) throws -> Double { try decode(Primitive<Double>.self).value }
    mutating func decode(_ type: Float.Type) throws -> Float { try decode(Primitive<Float>.self).value }
    mutating func decode(_ type: Int.Type) throws -> Int { try decode(Primitive<Int>.self).value }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decode(Primitive<Int8>.self).value }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decode(Primitive<Int16>.self).value }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decode(Primitive<Int32>.self).value }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decode(Primitive<Int64>.self).value }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decode(Primitive<UInt>.self).value }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(Primitive<UInt8>.self).value }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(Primitive<UInt16>.self).value }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(Primitive<UInt32>.self).value }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(Primitive<UInt64>.self).value }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try superDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try superDecoder().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath, debugDescription: "end of array"))
        }
        let value = items[currentIndex]
        let path = codingPath + [IndexKey(currentIndex)]
        currentIndex += 1
        return WireValueDecoder.decoder(for: value, at: path, state: state)
    }
}
