import Foundation

/// Every key the configuration file may hold, as a tree read off ``ConfigFile``: `hearth serve` refuses any other (a
/// typo must not pass silently) and names it with its path and the closest known key. The environment variables, the
/// secret files and the configuration reference (docs/configuration.md, checked by `ConfigSchemaTests`) follow from it.
///
/// ```swift
/// ConfigSchema.firstUnknownKey(in: ["logLevle": "info"])   // "unknown key logLevle (did you mean logLevel?)"
/// ```
public enum ConfigSchema {
    /// A setting's type, as the environment and the file give it.
    public enum Kind: Sendable { case string, int, double, bool, strings }

    public indirect enum Node: Sendable {
        /// A value of this type; a secret one (a password, a token) is never logged.
        case value(Kind, secret: Bool = false)
        /// An object with these keys.
        case object([String: Node])
        /// An object whose keys are data (provider ids, project ids, locales, phone numbers). From the environment it
        /// comes whole, as JSON (`HEARTH_IDENTITY_PROVIDERS='{"google.com": {…}}'`), and is treated as a secret.
        case map(Node)
    }

    /// The configuration's keys, read off ``ConfigFile``: a setting is declared once, as its property there.
    public static let root: Node = derived(from: ConfigFile.self, secrets: ConfigFile.secrets)

    /// Every setting the environment can give, with its path: the values and the maps (which come as JSON).
    public static func settings(under node: Node = root, path: [String] = []) -> [(path: [String], node: Node)] {
        switch node {
        case .value, .map: return [(path, node)]
        case .object(let keys):
            return keys.keys.sorted().flatMap { settings(under: keys[$0]!, path: path + [$0]) }
        }
    }

    /// The environment variable of a setting: `HEARTH_`, then the path's words in capitals joined by `_`
    /// (`email.smtp.password` → `HEARTH_EMAIL_SMTP_PASSWORD`), as swift-configuration's environment provider names
    /// them (`ConfigSchemaTests` checks that the two agree).
    public static func environmentName(_ path: [String]) -> String {
        (["hearth"] + path).map { component in
            var words = ""
            var previous: Character?
            for character in component {
                if let previous, previous.isLowercase, character.isUppercase { words.append("_") }
                words.append(character.isLetter || character.isNumber ? Character(character.uppercased()) : "_")
                previous = character
            }
            return words
        }.joined(separator: "_")
    }

    /// The file of a setting in a secrets folder (`HEARTH_SECRETS_DIR`): the path joined by `-`
    /// (`email.smtp.password` → `email-smtp-password`), as swift-configuration's directory provider names them.
    public static func secretFileName(_ path: [String]) -> String {
        path.map { String($0.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }) }.joined(separator: "-")
    }

    /// Every setting with its type, variable and secret file: the reference in docs/configuration.md (`ConfigSchemaTests` checks
    /// that it shows exactly this).
    public static func referenceTable() -> String {
        var lines = ["| setting | type | environment variable | secret file |", "|---|---|---|---|"]
        for (path, node) in settings() {
            let type = switch node {
            case .value(.string, let secret): secret ? "string, secret" : "string"
            case .value(.int, _): "whole number"
            case .value(.double, _): "number"
            case .value(.bool, _): "`true` or `false`"
            case .value(.strings, _): "list (`a,b` in a variable)"
            default: "JSON object, secret"
            }
            lines.append("| `\(path.joined(separator: "."))` | \(type) | `\(environmentName(path))` | `\(secretFileName(path))` |")
        }
        return lines.joined(separator: "\n")
    }

    /// The first key of `json` the schema does not know, as a message with its path; `nil` when all are known.
    public static func firstUnknownKey(in json: Any, under node: Node = root, path: String = "") -> String? {
        switch node {
        case .value: return nil
        case .map(let element):
            guard let object = json as? [String: Any] else { return nil }  // a wrong type is the decoder's to report
            for key in object.keys.sorted() {
                if let found = firstUnknownKey(in: object[key]!, under: element, path: join(path, key)) { return found }
            }
            return nil
        case .object(let keys):
            guard let object = json as? [String: Any] else { return nil }
            for key in object.keys.sorted() {
                guard let child = keys[key] else {
                    let hint = closest(to: key, among: keys.keys).map { " (did you mean \(join(path, $0))?)" } ?? ""
                    return "unknown key \(join(path, key))\(hint)"
                }
                if let found = firstUnknownKey(in: object[key]!, under: child, path: join(path, key)) { return found }
            }
            return nil
        }
    }

    public static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The known key nearest to a typo (case-insensitive edit distance of at most 2).
    public static func closest(to key: String, among known: some Collection<String>) -> String? {
        let scored = known.map { ($0, distance(Array(key.lowercased()), Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
