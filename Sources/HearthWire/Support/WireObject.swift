import Foundation

/// A request body, parsed once: what middleware peeks at (the email a limit counts, the `tenantId` that scopes the
/// call) and what ``WireDecoder`` decodes the route's request type from. Keys are kept as sent; lookups accept
/// Google's snake_case aliases (`return_secure_token` for `returnSecureToken`).
///
/// ```swift
/// let body = try WireObject(json: data)
/// let email = body.peek("email")
/// ```
public struct WireObject: Sendable {
    let fields: [String: JSONValue]

    /// Parses a JSON object. Anything else (malformed JSON, an array, an empty body) is ``WireDecodingError``.
    public init(json data: Data) throws(WireDecodingError) {
        let value = try JSONParser.parse(data)
        guard case .object(let object) = value else { throw .wrongType(path: "/", expected: "object") }
        fields = object
    }

    /// Reads an `application/x-www-form-urlencoded` body: every value is a string. A field given twice, under one
    /// name or as a name and its snake_case alias, is refused as in JSON.
    public init(form data: Data) throws(WireDecodingError) {
        var object: [String: JSONValue] = [:]
        let text = String(decoding: data, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in (s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? String(s) }
            let key = decode(parts[0])
            guard object.updateValue(.string(parts.count > 1 ? decode(parts[1]) : ""), forKey: key) == nil else {
                throw .duplicateField(key)
            }
        }
        try Self.refuseAliases(object.keys)
        fields = object
    }

    /// Refuses an object whose keys name one field twice (`request_type` and `requestType`, or `_request_type`):
    /// readers that pick one spelling each would otherwise act on different values of the same body.
    static func refuseAliases(_ keys: some Collection<String>) throws(WireDecodingError) {
        guard keys.count > 1, keys.contains(where: hasUnderscore) else { return }
        var seen = Set<String>()
        for key in keys where !seen.insert(camelCase(key)).inserted { throw .duplicateField(camelCase(key)) }
    }

    public init(_ fields: [String: JSONValue]) { self.fields = fields }

    /// The field under its camelCase name or its snake_case alias; `nil` when absent or null.
    public func value(_ key: String) -> JSONValue? {
        if let value = fields[key] { return value == .null ? nil : value }
        guard fields.count > 0 else { return nil }
        for (name, value) in fields where Self.hasUnderscore(name) && Self.camelCase(name) == key {
            return value == .null ? nil : value
        }
        return nil
    }

    /// A string field for middleware that acts before the handler decodes (a limit's key, the call's tenant):
    /// numbers read as their text, other types as absent (the handler's decoding refuses them).
    public func peek(_ key: String) -> String? { value(key).flatMap(Self.text) }

    /// A value as text: a string, or a number's decimal form; other types have none.
    public static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): format(number)
        default: nil
        }
    }

    /// Whether the body has this field at all (null counts as absent).
    public func has(_ key: String) -> Bool { value(key) != nil }

    /// `/users/0/providerUserInfo/1` → `users[0].providerUserInfo[1]`, as Google names a place in a body.
    static func googlePath(_ path: String) -> String {
        var result = ""
        for part in path.split(separator: "/") {
            if part.allSatisfy(\.isNumber) { result += "[\(part)]" } else { result += (result.isEmpty ? "" : ".") + part }
        }
        return result
    }

    /// Decodes base64 in either alphabet, padded or not (Google's `bytes` mapping; JWT segments).
    public static func base64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    static func camelCase(_ key: String) -> String {
        // A byte scan: `String.contains(_:)` goes through Foundation's string search, which cost a lookup a tenth
        // of its time in a profile.
        guard hasUnderscore(key) else { return key }
        var result = ""
        var upper = false
        for ch in key {
            if ch == "_" { upper = !result.isEmpty; continue }
            result.append(upper ? Character(ch.uppercased()) : ch)
            upper = false
        }
        return result
    }

    static func hasUnderscore(_ key: String) -> Bool { key.utf8.contains(UInt8(ascii: "_")) }

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
    /// The object gives one field twice (the same name, or a name and its snake_case alias).
    case duplicateField(String)

    /// Google's message for it.
    public var message: String {
        switch self {
        case .malformed(let detail): "Invalid JSON payload received. \(detail)"
        case .wrongType(let path, let expected, _): "Invalid JSON payload received. \(path) must be \(expected)"
        case .unknownField(let name): "Invalid JSON payload received. Unknown name \"\(name)\": Cannot find field."
        case .unknownNestedField(let name, let at):
            "Invalid JSON payload received. Unknown name \"\(name)\" at '\(at)': Cannot find field."
        case .duplicateField(let name): "Invalid JSON payload received. Duplicate field \"\(name)\"."
        }
    }

    /// The `reason` Google puts in `errors[0]`.
    public var reason: String {
        if case .malformed = self { return "parseError" }
        return "invalid"
    }
}
