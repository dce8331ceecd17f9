import Foundation
#if canImport(Security)
import Security
#endif

/// Where the signed-in user is kept between launches.
///
/// ```swift
/// let options = AuthOptions(apiKey: key, projectID: "my-app", endpoints: .hearth(url), persistence: .memory)
/// ```
public enum AuthPersistence: Sendable, Equatable {
    /// The Keychain on Apple platforms; on Linux a file readable by its owner only, under
    /// `$XDG_DATA_HOME/hearth-auth` (or `~/.local/share/hearth-auth`).
    case automatic
    /// A file with owner-only permissions (0600, in a 0700 directory).
    case file(URL)
    /// Nothing kept: the user is signed out when the process ends. Auth instances of one app share it.
    case memory
}

/// Load, save and remove one opaque record.
protocol UserStorage: Sendable {
    func load() throws -> Data?
    func save(_ data: Data) throws
    func remove() throws
}

enum UserStorages {
    /// The app's own record, or with `accessGroup` the record every app of the group shares for this API key (as
    /// FirebaseAuth keys its shared Keychain item by API key): a Keychain access group on Apple platforms, a
    /// `groups/<name>` folder beside the app's own file elsewhere.
    ///
    /// `synchronizable`: the Keychain item syncs through iCloud Keychain (FirebaseAuth's
    /// `shareAuthStateAcrossDevices`); files and memory have no such thing.
    static func make(_ persistence: AuthPersistence, appName: String, apiKey: String,
                     accessGroup: String? = nil, synchronizable: Bool = false) -> any UserStorage {
        let key = SHA256.hex(apiKey).prefix(12)
        let name = accessGroup == nil ? "\(appName)-\(key)" : "shared-\(key)"
        let folder = accessGroup.map { group in
            group.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) } && !group.hasPrefix(".")
                ? group : SHA256.hex(group)
        }
        switch persistence {
        case .memory: return MemoryStorage.shared((folder.map { "group:\($0):" } ?? "") + name)
        case .file(let url):
            guard let folder else { return FileStorage(url: url) }
            return FileStorage(url: url.deletingLastPathComponent().appendingPathComponent("groups")
                .appendingPathComponent(folder).appendingPathComponent(name + ".json"))
        case .automatic:
            #if canImport(Security) && !os(Linux)
            return KeychainStorage(service: "hearth.auth", account: name, accessGroup: accessGroup,
                                   synchronizable: synchronizable)
            #else
            let environment = ProcessInfo.processInfo.environment
            var base = (environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share"))
                .appendingPathComponent("hearth-auth")
            if let folder { base = base.appendingPathComponent("groups").appendingPathComponent(folder) }
            return FileStorage(url: base.appendingPathComponent(name + ".json"))
            #endif
        }
    }
}

final class MemoryStorage: UserStorage, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var all: [String: MemoryStorage] = [:]
    private let lock = NSLock()
    private var data: Data?

    static func shared(_ name: String) -> MemoryStorage {
        lock.locked {
            if let existing = all[name] { return existing }
            let created = MemoryStorage()
            all[name] = created
            return created
        }
    }

    func load() throws -> Data? { lock.locked { data } }
    func save(_ data: Data) throws { lock.locked { self.data = data } }
    func remove() throws { lock.locked { data = nil } }
}

/// A file created 0600 from its first byte (a temporary file opened with that mode, then renamed over the old one),
/// in a directory created 0700.
struct FileStorage: UserStorage {
    let url: URL

    func load() throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    func save(_ data: Data) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(randomToken(bytes: 6))")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw AuthErrorFactory.make(.keychainError, detail: "Cannot create \(temporary.path).") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count else {
            try? FileManager.default.removeItem(at: temporary)
            throw AuthErrorFactory.make(.keychainError, detail: "Cannot write \(temporary.path).")
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw AuthErrorFactory.make(.keychainError, detail: "Cannot replace \(url.path).")
        }
    }

    func remove() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}

#if canImport(Security) && !os(Linux)
/// A generic-password Keychain item, readable after the first unlock; this device only unless synchronizable.
struct KeychainStorage: UserStorage {
    let service: String
    let account: String
    /// A Keychain sharing group the app is entitled to, or nil for the app's own items.
    var accessGroup: String? = nil
    /// Synced through iCloud Keychain to the user's other devices.
    var synchronizable = false

    private var query: [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecAttrAccount as String: account]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        query[kSecAttrSynchronizable as String] = synchronizable ? kCFBooleanTrue : kCFBooleanFalse
        return query
    }

    func load() throws -> Data? {
        var lookup = query
        lookup[kSecReturnData as String] = true
        lookup[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(lookup as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw AuthErrorFactory.make(.keychainError, detail: "SecItemCopyMatching: \(status)") }
        return item as? Data
    }

    func save(_ data: Data) throws {
        let update = [kSecValueData as String: data] as CFDictionary
        var status = SecItemUpdate(query as CFDictionary, update)
        if status == errSecItemNotFound {
            var add = query
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = synchronizable
                ? kSecAttrAccessibleAfterFirstUnlock : kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw AuthErrorFactory.make(.keychainError, detail: "SecItem: \(status)") }
    }

    func remove() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw AuthErrorFactory.make(.keychainError, detail: "SecItemDelete: \(status)")
        }
    }
}
#endif
