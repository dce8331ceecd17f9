import Foundation

/// Every key the configuration file may hold, as a tree: `hearth serve` refuses any other (a typo must not pass
/// silently) and names it with its path and the closest known key. The README's configuration reference is checked
/// against it (`ConfigSchemaTests`).
///
/// ```swift
/// ConfigSchema.firstUnknownKey(in: ["logLevle": "info"])   // "unknown key logLevle (did you mean logLevel?)"
/// ```
public enum ConfigSchema {
    public indirect enum Node: Sendable {
        /// A value: its type is checked by the decoder.
        case value
        /// An object with these keys.
        case object([String: Node])
        /// An object whose keys are data (provider ids, project ids, locales, phone numbers).
        case map(Node)
    }

    static let email: Node = .object([
        "smtp": .object(["host": .value, "port": .value, "security": .value, "username": .value, "password": .value,
                         "caFile": .value, "heloName": .value, "timeout": .value]),
        "from": .value, "fromName": .value, "appName": .value, "defaultLocale": .value,
        "templates": .map(.map(.object(["subject": .value, "text": .value, "html": .value]))),
    ])

    static let identityProvider: Node = .object(Dictionary(uniqueKeysWithValues: [
        "enabled", "clientId", "clientSecret", "scopes", "issuer", "jwksUri", "userInfoUri", "emailsUri",
        "authorizationUri", "tokenUri", "requestTokenUri", "verifyCredentialsUri", "revokeUri", "teamId", "keyId",
        "privateKey",
    ].map { ($0, Node.value) }))

    public static let root: Node = .object([
        "host": .value, "port": .value, "store": .value, "projectId": .value, "emulator": .value,
        "issuerPrefix": .value, "recentLoginWindowSeconds": .value, "authorizedDomains": .value,
        "emailEnumerationProtection": .value, "maxBodyBytes": .value, "logLevel": .value, "logFormat": .value,
        "metrics": .object(["expose": .value, "token": .value, "host": .value, "port": .value]),
        "connections": .object(["headerTimeoutSeconds": .value, "bodyTimeoutSeconds": .value,
                                "idleTimeoutSeconds": .value, "maxConnections": .value]),
        "storeTimeoutSeconds": .value, "hashQueueLimit": .value, "housekeepingIntervalSeconds": .value,
        "auditRetentionDays": .value, "apiKey": .value, "rateLimits": .value, "publicURL": .value,
        "trustForwardedFor": .value, "email": email,
        "sms": .object(["webhook": .object(["url": .value, "secret": .value]),
                        "twilio": .object(["accountSid": .value, "authToken": .value, "from": .value, "baseURL": .value])]),
        "mfa": .object(["state": .value, "providers": .value, "totpAdjacentIntervals": .value]),
        "identityProviders": .map(identityProvider), "testPhoneNumbers": .map(.value),
        "projects": .map(.object(["email": email])),
    ])

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
    static func closest(to key: String, among known: some Collection<String>) -> String? {
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
