import Foundation
import HearthCore
import HearthSchema
import HearthSQL
import NIOConcurrencyHelpers
import NIOCore
import SQLiteNIO

/// ``IdentityStore`` on one SQLite file (WAL): the default backend. Its statements are ``SQLStore``'s; this module
/// only connects them to the file.
///
/// ```swift
/// let store = try await SQLiteStore.open(path: "hearth-data/hearth.sqlite")
/// try await store.migrate()
/// ```
public typealias SQLiteStore = SQLStore<SQLiteDriver>

/// One writer connection, serialized by ``WriteLock`` so that multi-statement changes are atomic, plus a small pool
/// of reader connections that WAL lets run beside it.
public final class SQLiteDriver: SQLDriver, @unchecked Sendable {
    let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    /// Empties the write-ahead log after a delivered email's row is deleted. Its own connection, without a busy
    /// timeout: a checkpoint that must wait (a reader or writer at work) gives up at once instead of holding a reader's
    /// queue or, as a TRUNCATE checkpoint waiting on readers does, every writer.
    private let scrubber: SQLiteConnection
    private let writeLock = WriteLock()
    private let nextReader = NIOLockedValueBox(0)
    public let path: String
    public var dialect: SQLDialect { .sqlite }

    init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection], scrubber: SQLiteConnection) {
        self.path = path
        self.writer = writer
        self.readers = readers
        self.scrubber = scrubber
    }

    public func close() async throws {
        for reader in readers { try await reader.close() }
        try await scrubber.close()
        try await writer.close()
    }

    private var reader: SQLiteConnection {
        readers[nextReader.withLockedValue { value in
            value = (value + 1) % readers.count
            return value
        }]
    }

    public func read(_ statement: SQL) async throws -> [SQLRow] {
        try await Self.query(statement, on: reader)
    }

    public func execute(_ statement: SQL) async throws -> [SQLRow] {
        try await transaction { db in try await db.query(statement) }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        try await writeLock.withLock { [writer] in
            _ = try await writer.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(Connection(db: writer))
                _ = try await writer.query("COMMIT")
                return result
            } catch {
                _ = try? await writer.query("ROLLBACK")
                throw error
            }
        }
    }

    struct Connection: SQLTransaction {
        let db: SQLiteConnection
        func query(_ statement: SQL) async throws -> [SQLRow] { try await SQLiteDriver.query(statement, on: db) }
    }

    static func query(_ statement: SQL, on db: SQLiteConnection) async throws -> [SQLRow] {
        let (sql, binds) = statement.rendered(for: .sqlite)
        return try await db.query(sql, binds.map(Self.data)).map { row in
            SQLRow(row.columns.map { column in
                switch column.data {
                case .integer(let value): .integer(Int64(value))
                case .float(let value): .real(value)
                case .text(let value): .text(value)
                case .blob(let buffer): .text(String(buffer: buffer))
                case .null: .null
                }
            })
        }
    }

    private static func data(_ value: SQLValue) -> SQLiteData {
        switch value {
        case .text(let text): .text(text)
        case .integer(let integer): .integer(Int(integer))
        case .real(let real): .float(real)
        case .null: .null
        }
    }

    public func uniqueViolation(in error: any Error) -> String? {
        guard let error = error as? SQLiteError, error.message.contains("UNIQUE constraint failed") else { return nil }
        return error.message
    }

    public func message(of error: any Error) -> String { (error as? SQLiteError)?.message ?? String(reflecting: error) }

    /// The log still holds the page as it was, code and all: copy the zeroed page home and empty the log. When the
    /// database is busy the checkpoint gives up at once (see `scrubber`), and the next delivery tries again.
    public func scrubDeletedRows() async {
        _ = try? await scrubber.query("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: Faults

    /// The disk is full, the file cannot be written or opened, or another writer holds it past `busy_timeout`:
    /// the request is not at fault, and the same call can succeed once that is fixed (space freed, say).
    public func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        switch error.reason {
        case .full, .ioError, .busy, .busyTimeout, .busyInRecovery, .locked, .cantOpen, .cantOpenDirectory,
             .readOnly, .readonlyCantLock, .readonlyDirectory, .ioErrorFailedWrite, .ioErrorFailedSync,
             .ioErrorFailedRead, .ioErrorFailedDirSync, .ioErrorFailedTruncate, .ioErrorFailedSharedMemSize,
             .ioErrorFailedSharedMemMap, .ioErrorFailedMemoryMap:
            return true
        default:
            return error.message.localizedCaseInsensitiveContains("disk is full")
                || error.message.localizedCaseInsensitiveContains("database or disk is full")
        }
    }

    /// A file needs no reconnecting.
    public func reconnect() async {}
    /// A local file answers or fails at once.
    public var needsDeadline: Bool { false }

    public func failureSparesReads(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        switch error.reason {
        case .full, .readOnly, .readonlyCantLock, .readonlyDirectory, .ioErrorFailedWrite, .ioErrorFailedSync,
             .ioErrorFailedTruncate:
            return true
        default:
            return error.message.localizedCaseInsensitiveContains("disk is full")
        }
    }
}

extension SQLStore where Driver == SQLiteDriver {
    /// Opens (creating if needed) the database file and its folder. With `sealer`, private keys and TOTP secrets are
    /// sealed at rest (``RecordCodec``).
    public static func open(path: String, readers readerCount: Int = 4, sealer: SecretSealer? = nil) async throws
        -> SQLiteStore {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        // The file holds signing keys and password hashes: a new folder is its owner's only, and a new database
        // file (SQLite gives its -wal and -shm files the same mode) is readable by its owner only.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let writer = try await SQLiteConnection.open(storage: .file(path: path))
        // secure_delete: deleted rows (delivered emails' codes) are overwritten with zeros, not left in free pages.
        for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA busy_timeout=5000",
                       "PRAGMA secure_delete=ON"] {
            _ = try await writer.query(pragma)
        }
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(readerCount, 1) {
            let reader = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await reader.query("PRAGMA busy_timeout=5000")
            readers.append(reader)
        }
        let scrubber = try await SQLiteConnection.open(storage: .file(path: path))
        return SQLiteStore(driver: SQLiteDriver(path: path, writer: writer, readers: readers, scrubber: scrubber),
                           sealer: sealer)
    }

    /// A store on a new file in a temporary folder; for tests.
    public static func temporary(sealer: SecretSealer? = nil) async throws -> SQLiteStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID().uuidString)")
        return try await open(path: folder.appendingPathComponent("hearth.sqlite").path, sealer: sealer)
    }

    public var path: String { driver.path }

    /// Whether users other than the owner can read the database file (an older file, or one copied in): the
    /// server warns, since it holds signing keys.
    public static func readableByOthers(path: String) -> Bool {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
            return false
        }
        return mode & 0o044 != 0
    }

    /// A consistent copy of the whole database at `path` (`VACUUM INTO`), taken from one read snapshot: safe while
    /// servers write to it. The copy is a complete store (`hearth serve --store sqlite:COPY` opens it).
    public func backup(to path: String) async throws {
        _ = try await read("VACUUM INTO \(path)")
    }

    /// Rewrites the file without its free pages (`VACUUM`): after secrets were sealed, their old plaintext must not
    /// linger in pages SQLite merely marked free.
    public func compact() async throws {
        let writer = driver.writer
        try await driver.transactionless { _ = try await writer.query("VACUUM") }
    }

    /// Caps the database at `pages` pages (`PRAGMA max_page_count`): past it every write fails as on a full disk.
    /// For fault tests; `nil` lifts the cap.
    public func limitPages(_ pages: Int?) async throws {
        _ = try await driver.writer.query("PRAGMA max_page_count = \(pages ?? 1_073_741_823)")
    }
}

extension SQLiteDriver {
    /// `body` on the writer, under the write lock but outside a transaction (`VACUUM` cannot run in one).
    func transactionless(_ body: @Sendable () async throws -> Void) async throws {
        try await writeLock.withLock { try await body() }
    }
}

/// Serializes write transactions on the single writer connection: an actor for exactly that job.
actor WriteLock {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiters.append($0) }
        }
        busy = true
        defer {
            if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
        }
        return try await body()
    }
}
