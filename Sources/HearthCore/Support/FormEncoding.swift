import Foundation

/// `application/x-www-form-urlencoded` bodies for outgoing requests (OAuth token endpoints, SMS APIs): RFC 3986
/// unreserved characters stay, everything else is percent-encoded; keys sorted, so bodies are reproducible.
///
/// ```swift
/// FormEncoding.encode(["To": "+15555550100", "Body": "123 is your code"])   // "Body=123%20is%20your%20code&To=%2B15555550100"
/// ```
public enum FormEncoding {
    static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    public static func encode(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }
            .map { "\(escape($0.key))=\(escape($0.value))" }
            .joined(separator: "&")
    }

    /// The fields of `application/x-www-form-urlencoded` text (`+` is a space); a repeated name keeps its last value.
    public static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            fields[value(parts[0])] = parts.count > 1 ? value(parts[1]) : ""
        }
        return fields
    }

    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
