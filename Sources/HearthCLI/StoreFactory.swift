import HearthCore
import HearthPostgres
import HearthSQLite

/// The only place that names a storage backend: `sqlite:PATH`, `postgres://URL` or `memory:`.
enum StoreFactory {
    static let defaultLocation = "sqlite:hearth-data/hearth.sqlite"

    static func open(_ location: String) async throws -> (store: any IdentityStore, description: String) {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return (try PostgresStore(url: location), "PostgreSQL at \(redacted(location))")
        }
        if location == "memory:" {
            return (InMemoryStore(), "memory (nothing is kept after exit)")
        }
        if location.hasPrefix("sqlite:") {
            let path = String(location.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreLocationError(location: location) }
            let store = try await SQLiteStore.open(path: path)
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
