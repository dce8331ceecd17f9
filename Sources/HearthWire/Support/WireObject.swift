import Foundation

/// A JSON request body being read field by field, with Google's REST mapping rules:
///
/// - keys may be camelCase or snake_case (`return_secure_token` reads as `returnSecureToken`);
/// - numbers are accepted where strings are expected (`12345` reads as `"12345"`), and numeric strings where
///   numbers are expected;
/// - a value of the wrong type is an error naming the field (`/returnSecureToken must be boolean`);
/// - every key that was never read is reported by ``unreadKeys``, so strict servers can reject unknown fields.
///
/// ```swift
/// var body = try WireObject(json: data)
/// let email = try body.string("email")
/// let returnSecureToken = try body.bool("returnSecureToken")
/// ```
public struct WireObject: Sendable {
    private let fields: [String: JSONValue]
    private let path: String
    private var read: Set<String> = []
    /// Unknown keys of nested objects handed back with ``absorb(_:)``: (name, where).
    private var nestedUnread: [(name: String, at: String)] = []

    /// Parses a JSON object. Anything else (malformed JSON, an array, an empty body) is ``WireDecodingError``.
    public init(json data: Data) throws(WireDecodingError) {
        let value = try JSONParser.parse(data)
        guard case .object(let object) = value else { throw .wrongType(path: "/", expected: "object") }
        self.init(object, path: "")
    }

    /// Reads an `application/x-www-form-urlencoded` body: every value is a string.
    public init(form data: Data) {
        var object: [String: JSONValue] = [:]
        let text = String(decoding: data, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in (s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? String(s) }
            object[decode(parts[0])] = .string(parts.count > 1 ? decode(parts[1]) : "")
        }
        self.init(object, path: "")
    }

    public init(_ fields: [String: JSONValue], path: String = "") {
        var normalized: [String: JSONValue] = [:]
        for (key, value) in fields { normalized[Self.camelCase(key)] = value }
        self.fields = normalized
        self.path = path
    }

    /// Keys present in the body that no accessor asked for.
    public var unreadKeys: [String] { fields.keys.filter { !read.contains($0) }.sorted() }

    /// Takes back a nested object (from ``object(_:)`` or ``objects(_:)``) once read, so that its unknown keys
    /// are refused like the top level's.
    public mutating func absorb(_ nested: WireObject) {
        nestedUnread += nested.nestedUnread
        nestedUnread += nested.unreadKeys.map { (name: $0, at: Self.googlePath(nested.path)) }
    }

    /// The first unknown key, at any depth that was absorbed.
    var firstUnknown: WireDecodingError? {
        if let unknown = unreadKeys.first { return .unknownField(unknown) }
        if let nested = nestedUnread.first { return .unknownNestedField(nested.name, at: nested.at) }
        return nil
    }

    /// `/users/0/providerUserInfo/1` → `users[0].providerUserInfo[1]`, as Google names a place in a body.
    static func googlePath(_ path: String) -> String {
        var result = ""
        for part in path.split(separator: "/") {
            if part.allSatisfy(\.isNumber) { result += "[\(part)]" } else { result += (result.isEmpty ? "" : ".") + part }
        }
        return result
    }

    /// Whether the field is present as an explicit `null`.
    public func isNull(_ key: String) -> Bool { fields[key] == .null }

    /// Whether the body has this field at all (null counts as absent).
    public func has(_ key: String) -> Bool {
        if let value = fields[key], value != .null { return true }
        return false
    }

    private mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    public mutating func string(_ key: String) throws(WireDecodingError) -> String? {
        switch value(key) {
        case nil: return nil
        case .string(let s): return s
        case .number(let n): return Self.format(n)
        case let other?: throw .wrongType(path: path + "/" + key, expected: "string", got: other.typeName)
        }
    }

    public mutating func bool(_ key: String) throws(WireDecodingError) -> Bool? {
        switch value(key) {
        case nil: return nil
        case .bool(let b): return b
        default: throw .wrongType(path: path + "/" + key, expected: "boolean")
        }
    }

    /// An integer given as a JSON number or as a decimal string (Google's int64 mapping).
    public mutating func int64(_ key: String) throws(WireDecodingError) -> Int64? {
        switch value(key) {
        case nil: return nil
        case .number(let n) where n.rounded() == n && abs(n) < 9e15: return Int64(n)
        case .string(let s) where Int64(s) != nil: return Int64(s)
        default: throw .wrongType(path: path + "/" + key, expected: "integer")
        }
    }

    public mutating func strings(_ key: String) throws(WireDecodingError) -> [String]? {
        switch value(key) {
        case nil: return nil
        case .array(let items):
            var result: [String] = []
            for (index, item) in items.enumerated() {
                switch item {
                case .string(let s): result.append(s)
                case .number(let n): result.append(Self.format(n))
                default: throw .wrongType(path: "\(path)/\(key)/\(index)", expected: "string")
                }
            }
            return result
        default: throw .wrongType(path: path + "/" + key, expected: "array")
        }
    }

    /// A nested object, read with the same rules.
    public mutating func object(_ key: String) throws(WireDecodingError) -> WireObject? {
        switch value(key) {
        case nil: return nil
        case .object(let o): return WireObject(o, path: path + "/" + key)
        default: throw .wrongType(path: path + "/" + key, expected: "object")
        }
    }

    /// A JSON object of strings whose keys are data, not field names (`customParameter`, `testPhoneNumbers`): the
    /// keys are kept exactly as sent.
    public mutating func stringMap(_ key: String) throws(WireDecodingError) -> [String: String]? {
        switch value(key) {
        case nil: return nil
        case .object(let object):
            var result: [String: String] = [:]
            for (name, item) in object {
                switch item {
                case .string(let text): result[name] = text
                case .number(let number): result[name] = Self.format(number)
                case .bool(let flag): result[name] = flag ? "true" : "false"
                default: throw .wrongType(path: "\(path)/\(key)/\(name)", expected: "string")
                }
            }
            return result
        default: throw .wrongType(path: path + "/" + key, expected: "object")
        }
    }

    /// A JSON object whose keys are data (`blockingFunctions.triggers`' event names), each value an object read with
    /// the same rules.
    public mutating func objectMap(_ key: String) throws(WireDecodingError) -> [String: WireObject]? {
        switch value(key) {
        case nil: return nil
        case .object(let object):
            var result: [String: WireObject] = [:]
            for (name, item) in object {
                guard case .object(let nested) = item else {
                    throw .wrongType(path: "\(path)/\(key)/\(name)", expected: "object")
                }
                result[name] = WireObject(nested, path: "\(path)/\(key)/\(name)")
            }
            return result
        default: throw .wrongType(path: path + "/" + key, expected: "object")
        }
    }

    /// An array of objects, each read with the same rules.
    public mutating func objects(_ key: String) throws(WireDecodingError) -> [WireObject]? {
        switch value(key) {
        case nil: return nil
        case .array(let items):
            var result: [WireObject] = []
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else {
                    throw .wrongType(path: "\(path)/\(key)/\(index)", expected: "object")
                }
                result.append(WireObject(object, path: "\(path)/\(key)/\(index)"))
            }
            return result
        default: throw .wrongType(path: path + "/" + key, expected: "array")
        }
    }

    /// Bytes fields (Google's `bytes` mapping): base64, standard or web-safe, padding optional.
    public mutating func bytes(_ key: String) throws(WireDecodingError) -> Data? {
        guard let text = try string(key) else { return nil }
        guard let data = Self.base64(text) else { throw .wrongType(path: path + "/" + key, expected: "base64 bytes") }
        return data
    }

    /// Decodes base64 in either alphabet, padded or not (Google's `bytes` mapping; JWT segments).
    public static func base64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    /// Marks fields as known without reading them (accepted and ignored, as Firebase ignores captcha fields
    /// that only matter when reCAPTCHA enforcement is on).
    public mutating func ignore(_ keys: String...) { read.formUnion(keys) }

    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        var result = ""
        var upper = false
        for ch in key {
            if ch == "_" { upper = !result.isEmpty; continue }
            result.append(upper ? Character(ch.uppercased()) : ch)
            upper = false
        }
        return result
    }

    static func format(_ n: Double) -> String {
        n.rounded() == n && abs(n) < 9e15 ? String(Int64(n)) : String(n)
    }
}

/// A request body that cannot be read. Rendered as Google's `INVALID_ARGUMENT` ("Invalid JSON payload received. …").
public enum WireDecodingError: Error, Equatable, Sendable {
    case malformed(String)
    case wrongType(path: String, expected: String, got: String? = nil)
    case unknownField(String)
    case unknownNestedField(String, at: String)

    /// Google's message for it.
    public var message: String {
        switch self {
        case .malformed(let detail): "Invalid JSON payload received. \(detail)"
        case .wrongType(let path, let expected, _): "Invalid JSON payload received. \(path) must be \(expected)"
        case .unknownField(let name): "Invalid JSON payload received. Unknown name \"\(name)\": Cannot find field."
        case .unknownNestedField(let name, let at):
            "Invalid JSON payload received. Unknown name \"\(name)\" at '\(at)': Cannot find field."
        }
    }

    /// The `reason` Google puts in `errors[0]`.
    public var reason: String {
        if case .malformed = self { return "parseError" }
        return "invalid"
    }
}

/// A request type the server reads from a ``WireObject``.
public protocol WireDecodable: Sendable {
    init(wire body: inout WireObject) throws(WireDecodingError)
}

extension WireDecodable {
    /// Reads a request; with `strict`, a field the type does not know is an error (production), otherwise it is
    /// ignored (emulator mode, as Firebase's emulator does).
    public static func decode(from body: WireObject, strict: Bool) throws(WireDecodingError) -> Self {
        var body = body
        let value = try Self(wire: &body)
        if strict, let unknown = body.firstUnknown { throw unknown }
        return value
    }
}
