import Foundation
import HearthCore
import HearthPostgres
import HearthSQLite

/// The only place that names a storage backend: `sqlite:PATH`, `postgres://URL` or `memory:`.
enum StoreFactory {
    static let defaultLocation = "sqlite:hearth-data/hearth.sqlite"

    /// Opens the store, sealing secrets with the key from the environment if one is given.
    static func open(_ location: String) async throws -> (store: any IdentityStore, description: String) {
        let sealer = try encryptionKey().map(SecretSealer.init(key:))
        let (store, description) = try await openBackend(location, sealer: sealer)
        return (store, description + (sealer == nil ? "" : ", secrets encrypted"))
    }

    /// The key that seals private keys and TOTP secrets: 32 bytes, base64 in `HEARTH_ENCRYPTION_KEY` or in the file
    /// `HEARTH_ENCRYPTION_KEY_FILE` names (a secrets mount).
    static func encryptionKey() throws -> Data? {
        let environment = ProcessInfo.processInfo.environment
        var text = environment["HEARTH_ENCRYPTION_KEY"]
        if text == nil, let path = environment["HEARTH_ENCRYPTION_KEY_FILE"] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("HEARTH_ENCRYPTION_KEY_FILE: cannot read \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        guard let text else { return nil }
        guard let key = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count == 32 else {
            throw CommandFailure("the encryption key must be 32 bytes in base64 (make one with: openssl rand -base64 32)")
        }
        return key
    }

    private static func openBackend(_ location: String, sealer: SecretSealer?) async throws
        -> (store: any IdentityStore, description: String) {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return (try PostgresStore(url: location, sealer: sealer), "PostgreSQL at \(redacted(location))")
        }
        if location == "memory:" {
            return (InMemoryStore(), "memory (nothing is kept after exit)")
        }
        if location.hasPrefix("sqlite:") {
            let path = String(location.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreLocationError(location: location) }
            let store = try await SQLiteStore.open(path: path, sealer: sealer)
            let warning = SQLiteStore.readableByOthers(path: store.path)
                ? " — other users can read it (it holds signing keys): chmod 600 \(store.path)" : ""
            return (store, "SQLite file \(store.path)\(warning)")
        }
        throw StoreLocationError(location: location)
    }

    /// The file of an `sqlite:PATH` location, or `nil` for other stores.
    static func sqlitePath(_ location: String) -> String? {
        guard location.hasPrefix("sqlite:") else { return nil }
        return String(location.dropFirst("sqlite:".count))
    }

    /// The folder that holds a store's companions (service-account key files, the running server's record): the
    /// SQLite file's folder, else `./hearth-data`.
    static func dataFolder(_ location: String) -> String {
        let folder = sqlitePath(location).map { ($0 as NSString).deletingLastPathComponent } ?? "hearth-data"
        return folder.isEmpty ? "." : folder
    }

    /// The URL without its password, for the start-up banner and logs.
    static func redacted(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"), let scheme = url.range(of: "://"),
              let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
        return url[..<colon] + ":***" + url[at...]
    }
}

struct StoreLocationError: Error, CustomStringConvertible {
    var location: String
    var description: String {
        "unknown store '\(location)': use sqlite:PATH (e.g. sqlite:hearth-data/hearth.sqlite), postgres://user:pass@host/db or memory:"
    }
}

/// A command that cannot go on, said in words (ArgumentParser prints it without the usage text that a
/// `ValidationError` brings, and exits 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
