import Foundation

/// The Firebase CLI's user files (`firebase auth:import` / `auth:export`), JSON and CSV, read and written a user at
/// a time so that a million users never sit in memory at once (reference §3.3).
///
/// ```swift
/// for try await user in FirebaseUserFile.read(path: "users.json") { … }
/// ```
public enum FirebaseUserFile {
    public enum Format: String, Sendable, CaseIterable {
        case json, csv

        /// By file extension; JSON unless the name ends in `.csv`.
        public init(path: String) { self = path.lowercased().hasSuffix(".csv") ? .csv : .json }
    }

    /// A user line that cannot be read: the 1-based line (CSV) or user number (JSON), and why.
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public var position: Int
        public var message: String
        public var description: String { "user \(position): \(message)" }
    }

    /// The CSV's provider column groups: rawId, email, displayName, photoUrl, from column 7 and from column 28.
    static let csvProviders: [(column: Int, id: String)] = [
        (7, "google.com"), (11, "facebook.com"), (15, "twitter.com"), (19, "github.com"),
        (28, "apple.com"), (32, "microsoft.com"), (36, "gc.apple.com"), (40, "playgames.google.com"),
        (44, "linkedin.com"), (48, "yahoo.com"),
    ]

    static let jsonKeys: Set<String> = [
        "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "createdAt",
        "lastSignedInAt", "providerUserInfo", "phoneNumber", "disabled", "customAttributes", "mfaInfo",
    ]

    /// Reads a file a user at a time: only the current chunk and entry are in memory.
    ///
    /// ```swift
    /// let reader = try FirebaseUserFile.Reader(path: "users.csv")
    /// while let batch = try reader.next(1000), !batch.isEmpty { … }
    /// ```
    ///
    /// Not for concurrent use; it may move between tasks (one at a time), so a caller can read the next batch while
    /// it stores the last.
    public final class Reader: @unchecked Sendable {
        public let format: Format
        private let handle: FileHandle
        private var buffer = Data()
        private var offset = 0
        private var finished = false
        /// Entries read so far (CSV: lines, blank ones included; JSON: users).
        public private(set) var position = 0
        // Scanner state.
        private var depth = 0, inString = false, escaped = false, inQuotes = false

        public init(path: String, format: Format? = nil) throws {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ReadError(position: 0, message: "cannot open \(path)")
            }
            self.handle = handle
            self.format = format ?? Format(path: path)
        }

        deinit { try? handle.close() }

        /// Up to `count` users; an empty array at the end of the file.
        public func next(_ count: Int) throws -> [ImportUser] {
            var users: [ImportUser] = []
            while users.count < count, let entry = try nextEntry() {
                position += 1
                switch format {
                case .csv:
                    var line = String(decoding: entry, as: UTF8.self)
                    if line.utf8.last == UInt8(ascii: "\r") { line.removeLast() }
                    if line.allSatisfy(\.isWhitespace) { continue }
                    users.append(try csvUser(csvFields(line), position: position))
                case .json:
                    users.append(try jsonUser(entry, position: position))
                }
            }
            return users
        }

        /// The bytes of the next CSV line or JSON user object.
        private func nextEntry() throws -> Data? {
            var start: Int? = format == .csv ? offset : nil
            while true {
                while offset < buffer.count {
                    let byte = buffer[buffer.startIndex + offset]
                    offset += 1
                    if let entry = scan(byte, start: &start) { return entry }
                }
                if let kept = start {
                    buffer = Data(buffer[(buffer.startIndex + kept)...])
                    offset -= kept
                    start = 0
                } else {
                    buffer = Data()
                    offset = 0
                }
                guard !finished else { break }
                if let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    buffer.append(chunk)
                } else {
                    finished = true
                }
            }
            if format == .csv, let start, start < buffer.count {
                let rest = Data(buffer[(buffer.startIndex + start)...])
                buffer = Data()
                offset = 0
                return rest
            }
            if format == .json, depth != 0 || inString {
                throw ReadError(position: position + 1, message: "the JSON file ends in the middle of a value")
            }
            return nil
        }

        /// Feeds one byte to the scanner; returns a finished entry.
        private func scan(_ byte: UInt8, start: inout Int?) -> Data? {
            switch format {
            case .csv:
                if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
                guard byte == UInt8(ascii: "\n"), !inQuotes, let begin = start else { return nil }
                let entry = Data(buffer[(buffer.startIndex + begin)..<(buffer.startIndex + offset - 1)])
                start = offset
                return entry
            case .json:
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                    else if byte == UInt8(ascii: "\"") { inString = false }
                    return nil
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if depth == 3 && byte == UInt8(ascii: "{") { start = offset - 1 }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 2, let begin = start {
                        start = nil
                        return Data(buffer[(buffer.startIndex + begin)..<(buffer.startIndex + offset)])
                    }
                default: break
                }
                return nil
            }
        }
    }

    // MARK: Reading CSV

    /// RFC 4180 fields: commas separate, quotes enclose, doubled quotes escape.
    static func csvFields(_ line: String) -> [String] {
        if !line.utf8.contains(UInt8(ascii: "\"")) {  // no quoting: a plain split
            // Over bytes (a comma is never part of a longer UTF-8 sequence): split by Character, it was 13 % of an
            // import's time in perf (scripts/scale-test.sh).
            return line.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        }
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = Array(line).makeIterator()
        while let ch = iterator.next() {
            if quoted {
                if ch == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { current.append("\"") } else {
                            quoted = false
                            if next == "," { fields.append(current); current = "" } else { current.append(next) }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(ch)
                }
            } else if ch == "\"" {
                quoted = true
            } else if ch == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        fields.append(current)
        return fields
    }

    static func csvUser(_ fields: [String], position: Int) throws -> ImportUser {
        func field(_ index: Int) -> String? {
            guard index < fields.count, !fields[index].isEmpty else { return nil }
            let value = fields[index]
            // Only a first or last byte that is a space, a control character or beyond ASCII can be whitespace.
            let (first, last) = (value.utf8.first!, value.utf8.last!)
            guard first <= 0x20 || first >= 0x7F || last <= 0x20 || last >= 0x7F else { return value }
            guard value.first!.isWhitespace || value.last!.isWhitespace else { return value }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        func bytes(_ index: Int, _ name: String) throws -> Data? {
            guard let text = field(index) else { return nil }
            guard let data = base64(text) else { throw ReadError(position: position, message: "\(name) is not base64") }
            return data
        }
        func date(_ index: Int, _ name: String) throws -> Date? {
            guard let text = field(index) else { return nil }
            guard let ms = Double(text) else { throw ReadError(position: position, message: "\(name) is not a number") }
            return Date(timeIntervalSince1970: ms / 1000)
        }
        var user = ImportUser(localID: field(0), email: field(1))
        user.emailVerified = field(2)?.lowercased() == "true"
        user.passwordHash = try bytes(3, "passwordHash")
        user.salt = try bytes(4, "salt")
        user.displayName = field(5)
        user.photoURL = field(6)
        user.createdAt = try date(23, "createdAt")
        user.lastLoginAt = try date(24, "lastSignedInAt")
        user.phoneNumber = field(25)
        user.disabled = field(26)?.lowercased() == "true"
        user.customAttributes = field(27)
        for (column, id) in csvProviders {
            guard let rawID = field(column) else { continue }
            user.providers.append(ProviderUserInfo(providerID: id, rawID: rawID, email: field(column + 1),
                                                   displayName: field(column + 2), photoURL: field(column + 3)))
        }
        return user
    }

    // MARK: Reading JSON

    static func jsonUser(_ entry: Data, position: Int) throws -> ImportUser {
        guard let object = try? JSONSerialization.jsonObject(with: entry) as? [String: Any] else {
            throw ReadError(position: position, message: "not a JSON object")
        }
        if let unknown = object.keys.first(where: { !jsonKeys.contains($0) }) {
            throw ReadError(position: position, message: "unknown key \"\(unknown)\"")
        }
        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, is NSNull: return nil
            case let value as String: return value
            case let value as NSNumber where !(key == "emailVerified" || key == "disabled"): return value.stringValue
            default: throw ReadError(position: position, message: "\(key) must be a string")
            }
        }
        func bytes(_ key: String) throws -> Data? {
            guard let text = try string(key) else { return nil }
            guard let data = base64(text) else { throw ReadError(position: position, message: "\(key) is not base64") }
            return data
        }
        func date(_ key: String) throws -> Date? {
            guard let text = try string(key) else { return nil }
            guard let ms = Double(text) else { throw ReadError(position: position, message: "\(key) is not a number") }
            return Date(timeIntervalSince1970: ms / 1000)
        }
        var user = ImportUser(localID: try string("localId"), email: try string("email"))
        user.emailVerified = object["emailVerified"] as? Bool ?? false
        user.passwordHash = try bytes("passwordHash")
        user.salt = try bytes("salt")
        user.displayName = try string("displayName")
        user.photoURL = try string("photoUrl")
        user.createdAt = try date("createdAt")
        user.lastLoginAt = try date("lastSignedInAt")
        user.phoneNumber = try string("phoneNumber")
        user.disabled = object["disabled"] as? Bool ?? false
        user.customAttributes = try string("customAttributes")
        for provider in object["providerUserInfo"] as? [[String: Any]] ?? [] {
            guard let id = provider["providerId"] as? String, let rawID = provider["rawId"] as? String else {
                throw ReadError(position: position, message: "providerUserInfo needs providerId and rawId")
            }
            user.providers.append(ProviderUserInfo(providerID: id, rawID: rawID, email: provider["email"] as? String,
                                                   displayName: provider["displayName"] as? String,
                                                   photoURL: provider["photoUrl"] as? String))
        }
        for factor in object["mfaInfo"] as? [[String: Any]] ?? [] {
            user.mfa.append(MFAEnrollmentInput(
                id: factor["mfaEnrollmentId"] as? String, displayName: factor["displayName"] as? String,
                phoneNumber: factor["phoneInfo"] as? String,
                enrolledAt: (factor["enrolledAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) }))
        }
        return user
    }

    /// Standard or web-safe base64, padding optional.
    public static func base64(_ text: String) -> Data? {
        if let data = Data(base64Encoded: text) { return data }  // the usual case, and the fast one
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    // MARK: Writing

    /// One user as the export writes it. Only Firebase-scrypt hashes made with `parameters` are written (the file's
    /// users import into Firebase with those parameters); other hashes are left out, as Firebase's export does.
    public static func exportFields(_ user: UserRecord, parameters: FirebaseScryptParameters)
        -> (hash: String?, salt: String?)
    {
        if let stored = user.passwordHash, let fake = EmulatorFakeHash(stored) { return (stored, fake.salt) }
        guard let stored = user.passwordHash, let parsed = FirebaseScryptHash(stored), parsed.parameters == parameters
        else { return (nil, nil) }
        return (parsed.hash.base64EncodedString(), parsed.salt.base64EncodedString())
    }

    public static func jsonLine(_ user: UserRecord, parameters: FirebaseScryptParameters) -> String {
        var object: [String: Any] = ["localId": user.localID, "emailVerified": user.emailVerified,
                                     "disabled": user.disabled,
                                     "createdAt": String(user.createdAt.epochMilliseconds)]
        if let email = user.email { object["email"] = email }
        let (hash, salt) = exportFields(user, parameters: parameters)
        if let hash, let salt { object["passwordHash"] = hash; object["salt"] = salt }
        if let name = user.displayName { object["displayName"] = name }
        if let photo = user.photoURL { object["photoUrl"] = photo }
        if let last = user.lastLoginAt { object["lastSignedInAt"] = String(last.epochMilliseconds) }
        if let phone = user.phoneNumber { object["phoneNumber"] = phone }
        if let claims = user.customAttributes { object["customAttributes"] = claims }
        let providers = user.providers.filter { $0.providerID != "password" && $0.providerID != "phone" }
        if !providers.isEmpty {
            object["providerUserInfo"] = providers.map { provider -> [String: Any] in
                var entry: [String: Any] = ["providerId": provider.providerID, "rawId": provider.rawID]
                if let email = provider.email { entry["email"] = email }
                if let name = provider.displayName { entry["displayName"] = name }
                if let photo = provider.photoURL { entry["photoUrl"] = photo }
                return entry
            }
        }
        // Phone second factors travel (TOTP secrets do not: Firebase's format has no place for them).
        let phoneFactors = user.enrollments.filter { $0.phoneNumber != nil }
        if !phoneFactors.isEmpty {
            object["mfaInfo"] = phoneFactors.map { factor -> [String: Any] in
                var entry: [String: Any] = ["mfaEnrollmentId": factor.id, "phoneInfo": factor.phoneNumber!,
                                            "enrolledAt": factor.enrolledAt.formatted(.iso8601)]
                if let name = factor.displayName { entry["displayName"] = name }
                return entry
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    public static func csvLine(_ user: UserRecord, parameters: FirebaseScryptParameters) -> String {
        var fields = [String](repeating: "", count: 52)
        let (hash, salt) = exportFields(user, parameters: parameters)
        fields[0] = user.localID
        fields[1] = user.email ?? ""
        fields[2] = user.emailVerified ? "true" : "false"
        fields[3] = hash ?? ""
        fields[4] = salt ?? ""
        fields[5] = user.displayName ?? ""
        fields[6] = user.photoURL ?? ""
        for (column, id) in csvProviders {
            guard let provider = user.providers.first(where: { $0.providerID == id }) else { continue }
            fields[column] = provider.rawID
            fields[column + 1] = provider.email ?? ""
            fields[column + 2] = provider.displayName ?? ""
            fields[column + 3] = provider.photoURL ?? ""
        }
        fields[23] = String(user.createdAt.epochMilliseconds)
        fields[24] = user.lastLoginAt.map { String($0.epochMilliseconds) } ?? ""
        fields[25] = user.phoneNumber ?? ""
        fields[26] = user.disabled ? "true" : "false"
        fields[27] = user.customAttributes ?? ""
        return fields.map { field in
            field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",") + ","
    }
}
