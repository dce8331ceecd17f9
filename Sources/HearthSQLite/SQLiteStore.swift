import Foundation
import HearthCore
import HearthSchema
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLiteNIO

/// ``IdentityStore`` on one SQLite file (WAL): the default backend.
///
/// One writer connection, serialized by ``WriteLock`` so that multi-statement changes are atomic, plus a small
/// pool of reader connections that WAL lets run beside it.
///
/// ```swift
/// let store = try await SQLiteStore.open(path: "hearth-data/hearth.sqlite")
/// try await store.migrate()
/// ```
public final class SQLiteStore: IdentityStore, StoreConnection, @unchecked Sendable {
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    /// Empties the write-ahead log after a delivered email's row is deleted. Its own connection, without a busy
    /// timeout: a checkpoint that must wait (a reader or writer at work) gives up at once instead of holding a reader's
    /// queue or, as a TRUNCATE checkpoint waiting on readers does, every writer.
    private let scrubber: SQLiteConnection
    private let writeLock = WriteLock()
    private let nextReader = NIOLockedValueBox(0)
    public let path: String
    /// Reads and write transactions, for the store contract's budgets.
    let statements = StatementCounter()
    public var statementCounter: StatementCounter? { statements }
    /// Every database call of the store passes it (see ``StoreCircuit``).
    let breaker = StoreCircuit()
    public var circuit: StoreCircuit? { breaker }

    /// Records in and out of the JSON columns, their secrets sealed with the store's key when it has one.
    let codec: RecordCodec
    /// Whether any webhook endpoint exists (see ``EndpointPresence``).
    let endpoints = EndpointPresence()

    private init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection], scrubber: SQLiteConnection,
                 codec: RecordCodec) {
        self.codec = codec
        self.path = path
        self.writer = writer
        self.readers = readers
        self.scrubber = scrubber
    }

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
        for _ in 0..<readerCount {
            let reader = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await reader.query("PRAGMA busy_timeout=5000")
            readers.append(reader)
        }
        let scrubber = try await SQLiteConnection.open(storage: .file(path: path))
        return SQLiteStore(path: path, writer: writer, readers: readers, scrubber: scrubber,
                           codec: RecordCodec(sealer: sealer))
    }

    /// Whether users other than the owner can read the database file (an older file, or one copied in): the
    /// server warns, since it holds signing keys.
    public static func readableByOthers(path: String) -> Bool {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
            return false
        }
        return mode & 0o044 != 0
    }

    /// A store on a new file in a temporary folder, removed by `close()`; for tests.
    public static func temporary(sealer: SecretSealer? = nil) async throws -> SQLiteStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID().uuidString)")
        return try await open(path: folder.appendingPathComponent("hearth.sqlite").path, sealer: sealer)
    }

    public func close() async throws {
        for reader in readers { try await reader.close() }
        try await scrubber.close()
        try await writer.close()
    }

    /// A consistent copy of the whole database at `path` (`VACUUM INTO`), taken from one read snapshot: safe while
    /// servers write to it. The copy is a complete store (`hearth serve --store sqlite:COPY` opens it).
    public func backup(to path: String) async throws {
        _ = try await read("VACUUM INTO ?", [.text(path)])
    }

    /// Rewrites the file without its free pages (`VACUUM`): after secrets were sealed, their old plaintext must not
    /// linger in pages SQLite merely marked free.
    public func compact() async throws {
        try await writeLock.withLock { _ = try await writer.query("VACUUM") }
    }

    // MARK: Plumbing

    /// Every read of every store method passes here (`function` names the method for metrics), through the circuit.
    func read(_ sql: String, _ binds: [SQLiteData] = [], function: String = #function) async throws -> [SQLiteRow] {
        let index = nextReader.withLockedValue { value in
            value = (value + 1) % readers.count
            return value
        }
        statements.read()
        let reader = readers[index]
        return try await breaker.call(function, isRead: true, on: self) { try await reader.query(sql, binds) }
    }

    /// Runs `body` in one write transaction on the writer connection.
    func write<T: Sendable>(function: String = #function, _ body: @escaping @Sendable (SQLiteConnection) async throws -> T)
        async throws -> T {
        statements.write()
        return try await breaker.call(function, isRead: false, on: self) { [writer, writeLock] in
            try await Self.transaction(on: writer, lock: writeLock, body)
        }
    }

    private static func transaction<T: Sendable>(on writer: SQLiteConnection, lock writeLock: WriteLock,
                                                 _ body: @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        try await writeLock.withLock {
            _ = try await writer.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(writer)
                _ = try await writer.query("COMMIT")
                return result
            } catch {
                _ = try? await writer.query("ROLLBACK")
                throw error
            }
        }
    }

    public func migrate() async throws {
        try await MigrationRunner(dialect: .sqlite).migrate(SQLiteMigrations(store: self))
        endpoints.update(try await anyWebhookEndpoint())  // known before the first sign-in (see EndpointPresence)
    }

    /// Ids of the migrations recorded in the database, in order applied.
    public func appliedMigrations() async throws -> [String] {
        try await read("SELECT id FROM hearth_migrations ORDER BY applied_at, id").compactMap { $0.column("id")?.string }
    }

    // MARK: Projects

    public func project(id: String) async throws -> ProjectRecord? {
        try await read("SELECT data FROM projects WHERE id = ?", [.text(id)]).first
            .map { try codec.decode(ProjectRecord.self, from: $0.column("data")?.string ?? "") }
    }

    public func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord {
        let data = try codec.encode(project)
        let stored = try await write { [self] db in
            _ = try await db.query("INSERT INTO projects (id, data) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                                   [.text(project.id), .text(data)])
            return try await db.query("SELECT data FROM projects WHERE id = ?", [.text(project.id)])
                .first?.column("data")?.string
        }
        return try codec.decode(ProjectRecord.self, from: stored ?? data)
    }

    public func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord {
        var next = project
        next.version += 1
        let binds: [SQLiteData] = [.text(try codec.encode(next)), .text(project.id), .integer(Int(project.version))]
        try await write { [self] db in
            // The version lives in the JSON (records from before it read as 0): one statement compares and sets.
            let rows = try await db.query("""
                UPDATE projects SET data = ? WHERE id = ? AND coalesce(json_extract(data, '$.version'), 0) = ? RETURNING id
                """, binds)
            guard rows.isEmpty else { return }
            let exists = try await db.query("SELECT 1 FROM projects WHERE id = ?", [binds[1]])
            throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
        }
        return next
    }

    // MARK: Users

    public func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        try await read(
            "SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?",
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(localID)]
        ).first.map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [UserRecord] {
        guard !localIDs.isEmpty else { return [] }
        return try await read(
            "SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND local_id IN ("
                + Array(repeating: "?", count: localIDs.count).joined(separator: ", ") + ")",
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID))] + localIDs.map { .text($0) }
        ).map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await read(
            "SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND local_id > ? ORDER BY local_id LIMIT ?",
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(localID ?? ""), .integer(limit)]
        ).map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        try await read(
            """
            SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND email = ?
            ORDER BY created_at, local_id LIMIT 1
            """,
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(EmailAddress.normalized(email))]
        ).first.map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        try await read(
            """
            SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND phone_number = ?
            ORDER BY created_at, local_id LIMIT 1
            """,
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(phoneNumber)]
        ).first.map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        try await read(
            """
            SELECT u.data FROM user_identities AS i JOIN users AS u
              ON u.project_id = i.project_id AND u.tenant_id = i.tenant_id AND u.local_id = i.local_id
            WHERE i.project_id = ? AND i.tenant_id = ? AND i.provider_id = ? AND i.raw_id = ?
            """,
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(providerID), .text(rawID)]
        ).first.map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord] {
        try await read(
            """
            SELECT u.data FROM users AS u WHERE u.project_id = ? AND u.tenant_id = ? AND u.local_id IN (
              SELECT local_id FROM user_identities WHERE project_id = u.project_id AND tenant_id = u.tenant_id AND email = ?)
            ORDER BY u.created_at, u.local_id LIMIT ?
            """,
            [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(EmailAddress.normalized(identityEmail)),
             .integer(limit)]
        ).map(decodeUser)
    }

    /// Replaces the user's rows in `user_identities` (inside the caller's write transaction); an identity another
    /// account holds is ``StoreError/identityLinked``.
    private static func writeIdentities(_ user: UserRecord, _ db: SQLiteConnection) async throws {
        let key: [SQLiteData] = [.text(user.projectID), .text(RecordCoding.tenantColumn(user.tenantID)), .text(user.localID)]
        _ = try await db.query("DELETE FROM user_identities WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key)
        for identity in user.indexedIdentities {
            do {
                _ = try await db.query(
                    "INSERT INTO user_identities (project_id, tenant_id, provider_id, raw_id, local_id, email) VALUES (?, ?, ?, ?, ?, ?)",
                    [key[0], key[1], .text(identity.providerID), .text(identity.rawID), key[2],
                     identity.email.map { .text(EmailAddress.normalized($0)) } ?? .null])
            } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed") {
                throw StoreError.identityLinked
            }
        }
    }

    public func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        var condition = "project_id = ? AND tenant_id = ?"
        var binds: [SQLiteData] = [.text(projectID), .text(RecordCoding.tenantColumn(query.tenantID))]
        switch query.filter {
        case nil: break
        case .email(let email): condition += " AND email = ?"; binds.append(.text(EmailAddress.normalized(email)))
        case .localID(let id): condition += " AND local_id = ?"; binds.append(.text(id))
        case .phoneNumber(let phone): condition += " AND phone_number = ?"; binds.append(.text(phone))
        }
        let key = query.sortBy.sqlExpression { "json_extract(data, '$.\($0)')" }
        let direction = query.descending ? "DESC" : "ASC"
        let count = try await read("SELECT count(*) AS n FROM users WHERE \(condition)", binds)
            .first?.column("n")?.integer ?? 0
        let users = try await read(
            "SELECT data FROM users WHERE \(condition) ORDER BY \(key) \(direction), local_id \(direction) LIMIT ? OFFSET ?",
            binds + [.integer(query.limit), .integer(query.offset)]
        ).map(decodeUser)
        return UserQueryResult(count: count, users: users)
    }

    public func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await write { [self] db in
            _ = try await db.query("DELETE FROM used_assertions WHERE expires_at < ?", [.integer(Int(now.epochSeconds))])
            return try await !db.query(
                "INSERT INTO used_assertions (digest, expires_at) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING RETURNING digest",
                [.text(digest), .integer(Int(expiresAt.epochSeconds))]
            ).isEmpty
        }
    }

    /// One `BEGIN IMMEDIATE` for the whole unit; a refused change rolls it all back.
    public func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
        let fanOut = try await webhooksListening(for: work)
        return try await write { [self] db in
            var outcome = UnitOfWork.Outcome()
            for change in work.changes {
                switch change {
                case .insertUser(let user, let uniqueEmail):
                    do {
                        _ = try await db.query(
                            """
                            INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, data)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            """, try userColumns(user, uniqueEmail: uniqueEmail))
                    } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed") {
                        throw error.message.contains("email_unique") ? StoreError.emailExists : StoreError.duplicateLocalID
                    }
                    try await Self.writeIdentities(user, db)
                case .stampSignIn(let stamp):
                    let key: [SQLiteData] = [.text(stamp.projectID), .text(RecordCoding.tenantColumn(stamp.tenantID)),
                                             .text(stamp.localID)]
                    guard let data = try await db.query(
                        "SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key
                    ).first?.column("data")?.string else { throw StoreError.stale }
                    var user = try codec.decode(UserRecord.self, from: data)
                    guard stamp.apply(to: &user) else { throw StoreError.stale }
                    _ = try await db.query("UPDATE users SET data = ? WHERE project_id = ? AND tenant_id = ? AND local_id = ?",
                                           [.text(try codec.encode(user))] + key)
                    outcome.stamped = user
                case .insertRefreshToken(let token, let keep):
                    let key: [SQLiteData] = [.text(token.projectID), .text(RecordCoding.tenantColumn(token.tenantID)),
                                             .text(token.localID)]
                    _ = try await db.query(
                        "INSERT INTO refresh_tokens (token_digest, project_id, tenant_id, local_id, data) VALUES (?, ?, ?, ?, ?)",
                        [.text(token.tokenDigest)] + key + [.text(try codec.encode(token))])
                    if let keep {
                        // Insertion order is rowid order: the oldest sessions beyond `keep` go.
                        _ = try await db.query("""
                            DELETE FROM refresh_tokens WHERE rowid IN (
                                SELECT rowid FROM refresh_tokens WHERE project_id = ? AND tenant_id = ? AND local_id = ?
                                ORDER BY rowid DESC LIMIT -1 OFFSET ?)
                            """, key + [.integer(max(keep, 1))])
                    }
                case .insertAuditEvent(let event):
                    _ = try await db.query(
                        "INSERT INTO audit_events (id, project_id, at_micros, kind, local_id, data) VALUES (?, ?, ?, ?, ?, ?)",
                        [.text(event.id), .text(event.projectID), .integer(Int(event.at.epochMicros)), .text(event.kind),
                         event.localID.map { .text($0) } ?? .null, .text(try codec.encode(event))])
                    if fanOut, WebhookEventType(auditKind: event.kind) != nil {
                        try await Self.queueWebhooks(for: event, now: event.at, db)
                    }
                case .incrementRateCounter(let key, let start, let expiresAt, let delta):
                    let count = try await db.query("""
                        INSERT INTO rate_counters (counter_key, window_start, expires_at, count) VALUES (?, ?, ?, ?)
                        ON CONFLICT (counter_key, window_start) DO UPDATE SET count = count + ? RETURNING count
                        """, [.text(key), .integer(Int(start.epochSeconds)), .integer(Int(expiresAt.epochSeconds)),
                              .integer(delta), .integer(delta)]).first?.column("count")?.integer ?? delta
                    outcome.counts.append(count)
                }
            }
            return outcome
        }
    }

    /// One transaction for the whole batch, 100 rows per statement; a chunk with a refused row is retried row by
    /// row (a failed statement in SQLite undoes only itself), so only the refused rows are left out.
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        let rows = try users.map { try userColumns($0, uniqueEmail: uniqueEmail) }
        let insert = "INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, data) VALUES "
        let placeholder = "(?, ?, ?, ?, ?, ?, ?, ?)"
        return try await write { [self] db in
            var refused: [Int: StoreError] = [:]
            for start in stride(from: 0, to: rows.count, by: 100) {
                let chunk = start..<min(start + 100, rows.count)
                // Users without linked identities go in one statement per 100; the others one by one, so that an
                // identity another account holds refuses just that user.
                if chunk.allSatisfy({ users[$0].providers.isEmpty }) {
                    do {
                        let sql = insert + Array(repeating: placeholder, count: chunk.count).joined(separator: ", ")
                        _ = try await db.query(sql, Array(rows[chunk].joined()))
                        continue
                    } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed") {}
                }
                for index in chunk {
                    do {
                        _ = try await db.query(insert + placeholder, rows[index])
                    } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed") {
                        refused[index] = error.message.contains("email_unique") ? .emailExists : .duplicateLocalID
                        continue
                    }
                    do {
                        try await Self.writeIdentities(users[index], db)
                    } catch StoreError.identityLinked {
                        let key = Array(rows[index].prefix(3))
                        _ = try await db.query("DELETE FROM user_identities WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key)
                        _ = try await db.query("DELETE FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key)
                        refused[index] = .identityLinked
                    }
                }
            }
            return refused
        }
    }

    public func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord {
        var written = user
        written.version = (user.version ?? 0) + 1
        let binds = try userColumns(written, uniqueEmail: uniqueEmail) + [.integer(Int(user.version ?? 0))]
        try await write { [self] db in
            let updated: [SQLiteRow]
            do {
                updated = try await db.query(
                    """
                    UPDATE users SET email = ?4, email_unique = ?5, phone_number = ?6, created_at = ?7, data = ?8
                    WHERE project_id = ?1 AND tenant_id = ?2 AND local_id = ?3
                      AND coalesce(json_extract(data, '$.version'), 0) = ?9
                    RETURNING local_id
                    """, binds)
            } catch let error as SQLiteError where error.message.contains("email_unique") {
                throw StoreError.emailExists
            }
            guard !updated.isEmpty else {
                let exists = try await db.query(
                    "SELECT 1 FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?", Array(binds.prefix(3)))
                throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
            }
            try await Self.writeIdentities(user, db)
            if revokeRefreshTokens {
                _ = try await db.query(
                    "DELETE FROM refresh_tokens WHERE project_id = ? AND tenant_id = ? AND local_id = ?",
                    Array(binds.prefix(3)))
            }
        }
        return written
    }


    public func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        let key: [SQLiteData] = [.text(projectID), .text(RecordCoding.tenantColumn(tenantID)), .text(localID)]
        return try await write { [self] db in
            _ = try await db.query(
                "DELETE FROM refresh_tokens WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key)
            _ = try await db.query(
                "DELETE FROM user_identities WHERE project_id = ? AND tenant_id = ? AND local_id = ?", key)
            return try await !db.query(
                "DELETE FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ? RETURNING local_id", key
            ).isEmpty
        }
    }

    public func deleteUsers(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [String] {
        guard !localIDs.isEmpty else { return [] }
        let key: [SQLiteData] = [.text(projectID), .text(RecordCoding.tenantColumn(tenantID))] + localIDs.map { .text($0) }
        let list = Array(repeating: "?", count: localIDs.count).joined(separator: ",")
        return try await write { db in
            for table in ["refresh_tokens", "user_identities"] {
                _ = try await db.query("DELETE FROM \(table) WHERE project_id = ? AND tenant_id = ? AND local_id IN (\(list))", key)
            }
            return try await db.query(
                "DELETE FROM users WHERE project_id = ? AND tenant_id = ? AND local_id IN (\(list)) RETURNING local_id", key
            ).compactMap { $0.column("local_id")?.string }
        }
    }

    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await write { [self] db in
            _ = try await db.query("DELETE FROM refresh_tokens WHERE project_id = ?", [.text(projectID)])
            _ = try await db.query("DELETE FROM user_identities WHERE project_id = ?", [.text(projectID)])
            return try await db.query("DELETE FROM users WHERE project_id = ? RETURNING local_id", [.text(projectID)])
                .count
        }
    }

    // MARK: Refresh tokens


    /// The token and its user in one query.
    public func session(projectID: String, digest: String) async throws -> RefreshSession? {
        try await read("""
            SELECT r.data AS token, u.data AS user FROM refresh_tokens AS r
            LEFT JOIN users AS u ON u.project_id = r.project_id AND u.tenant_id = r.tenant_id AND u.local_id = r.local_id
            WHERE r.token_digest = ? AND r.project_id = ?
            """, [.text(digest), .text(projectID)]).first.map { row in
            RefreshSession(token: try codec.decode(RefreshTokenRecord.self, from: row.column("token")?.string ?? ""),
                           user: try row.column("user")?.string.map { try codec.decode(UserRecord.self, from: $0) })
        }
    }

    // MARK: Action codes and outbox

    // MARK: Pending secrets

    public func insertPending(_ record: PendingRecord, now: Date) async throws {
        let binds: [SQLiteData] = [.text(record.digest), .text(record.projectID),
                                   .integer(Int(record.expiresAt.epochMilliseconds)), .integer(record.attempts),
                                   .text(try codec.encode(record))]
        try await write { [self] db in
            _ = try await db.query("DELETE FROM pending_secrets WHERE expires_at <= ?", [.integer(Int(now.epochMilliseconds))])
            let inserted = try await db.query("""
                INSERT INTO pending_secrets (digest, project_id, expires_at, attempts, data) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING RETURNING digest
                """, binds)
            if inserted.isEmpty { throw StoreError.pendingExists }
        }
    }

    public func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        try await read(
            "SELECT attempts, data FROM pending_secrets WHERE digest = ? AND project_id = ? AND expires_at > ?",
            [.text(digest), .text(projectID), .integer(Int(now.epochMilliseconds))]
        ).first.map(pendingRecord)
    }

    public func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await write { [self] db in
            try await db.query("DELETE FROM pending_secrets WHERE digest = ? AND project_id = ? RETURNING attempts, data",
                               [.text(digest), .text(projectID)]).first.map(pendingRecord)
        }
    }

    public func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        try await write { [self] db in
            try await db.query(
                "UPDATE pending_secrets SET attempts = attempts + 1 WHERE digest = ? AND project_id = ? RETURNING attempts",
                [.text(digest), .text(projectID)]).first?.column("attempts")?.integer
        }
    }

    private func pendingRecord(_ row: SQLiteRow) throws -> PendingRecord {
        var record = try codec.decode(PendingRecord.self, from: row.column("data")?.string ?? "")
        record.attempts = row.column("attempts")?.integer ?? record.attempts
        return record
    }

    public func insertActionCode(_ code: ActionCodeRecord) async throws {
        let binds: [SQLiteData] = [.text(code.codeDigest), .text(code.projectID),
                                   .integer(Int(code.expiresAt.epochSeconds)), .text(try codec.encode(code))]
        try await write { [self] db in
            _ = try await db.query(
                "INSERT INTO action_codes (code_digest, project_id, expires_at, data) VALUES (?, ?, ?, ?)", binds)
        }
    }

    public func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await read("SELECT data FROM action_codes WHERE code_digest = ? AND project_id = ?",
                       [.text(digest), .text(projectID)]).first
            .map { try codec.decode(ActionCodeRecord.self, from: $0.column("data")?.string ?? "") }
    }

    public func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        let row = try await write { [self] db in
            try await db.query("DELETE FROM action_codes WHERE code_digest = ? AND project_id = ? RETURNING data",
                               [.text(digest), .text(projectID)]).first?.column("data")?.string
        }
        return try row.map { try codec.decode(ActionCodeRecord.self, from: $0) }
    }

    public func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int {
        try await write { [self] db in
            try await db.query(
                """
                DELETE FROM action_codes WHERE project_id = ? AND json_extract(data, '$.localID') = ?
                  AND coalesce(json_extract(data, '$.tenantID'), '') = ?
                  AND json_extract(data, '$.type') <> 'RECOVER_EMAIL' RETURNING code_digest
                """, [.text(projectID), .text(localID), .text(RecordCoding.tenantColumn(tenantID))]).count
        }
    }

    public func enqueueOutboxMessage(_ message: OutboxMessage) async throws {
        let created = SQLiteData.integer(Int(message.createdAt.epochMilliseconds))
        let binds: [SQLiteData] = [.text(message.id), .text(message.projectID), created, created,
                                   .text(try codec.encode(message))]
        try await write { [self] db in
            _ = try await db.query(
                "INSERT INTO outbox (id, project_id, created_at, next_attempt_at, data) VALUES (?, ?, ?, ?, ?)", binds)
        }
    }

    public func outboxMessages(projectID: String) async throws -> [OutboxMessage] {
        try await read("SELECT data FROM outbox WHERE project_id = ? ORDER BY created_at, rowid", [.text(projectID)])
            .map { try codec.decode(OutboxMessage.self, from: $0.column("data")?.string ?? "") }
    }

    public func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        let binds: [SQLiteData] = [.integer(Int(leaseUntil.epochMilliseconds)), .integer(Int(now.epochMilliseconds)),
                                   .integer(limit)]
        let rows = try await write { [self] db in
            try await db.query("""
                UPDATE outbox SET next_attempt_at = ? WHERE id IN (
                    SELECT id FROM outbox WHERE next_attempt_at <= ? ORDER BY next_attempt_at, rowid LIMIT ?)
                RETURNING data, attempts, created_at
                """, binds)
        }
        return try rows.map { row in
            OutboxDelivery(message: try codec.decode(OutboxMessage.self, from: row.column("data")?.string ?? ""),
                           attempts: row.column("attempts")?.integer ?? 0)
        }.sorted { $0.message.createdAt < $1.message.createdAt }
    }

    public func deleteOutboxMessage(id: String) async throws {
        try await write { [self] db in
            _ = try await db.query("DELETE FROM outbox WHERE id = ?", [.text(id)])  // secure_delete zeroes the row
        }
        // The log still holds the page as it was, code and all: copy the zeroed page home and empty the log. When the
        // database is busy the checkpoint gives up at once (see `scrubber`), and the next delivery tries again.
        _ = try? await scrubber.query("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    public func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        let next: SQLiteData = nextAttemptAt.map { .integer(Int($0.epochMilliseconds)) } ?? .null
        let binds: [SQLiteData] = [.integer(attempts), next, .text(lastError), next, .text(id)]
        try await write { [self] db in
            _ = try await db.query("""
                UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ?,
                    data = CASE WHEN ? IS NULL THEN json_set(data, '$.code', '', '$.link', '') ELSE data END
                WHERE id = ?
                """, binds)
        }
    }

    // MARK: Rows

    private func decodeUser(_ row: SQLiteRow) throws -> UserRecord {
        try codec.decode(UserRecord.self, from: row.column("data")?.string ?? "")
    }

    private func userColumns(_ user: UserRecord, uniqueEmail: Bool) throws -> [SQLiteData] {
        [
            .text(user.projectID), .text(RecordCoding.tenantColumn(user.tenantID)), .text(user.localID),
            user.normalizedEmail.map(SQLiteData.text) ?? .null,
            RecordCoding.uniqueEmailColumn(user, uniqueEmail: uniqueEmail).map(SQLiteData.text) ?? .null,
            user.phoneNumber.map(SQLiteData.text) ?? .null,
            .integer(Int(user.createdAt.epochMilliseconds)), .text(try codec.encode(user)),
        ]
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

// MARK: Operations: outbox backlog, shared rate limits, audit log, housekeeping

extension SQLiteStore {
    public func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus] {
        try await read("""
            SELECT data, attempts, next_attempt_at, last_error FROM outbox WHERE project_id = ?
            ORDER BY created_at, rowid LIMIT ?
            """, [.text(projectID), .integer(max(0, limit))]).map { row in
            OutboxStatus(message: try codec.decode(OutboxMessage.self, from: row.column("data")?.string ?? ""),
                         attempts: row.column("attempts")?.integer ?? 0,
                         nextAttemptAt: row.column("next_attempt_at")?.integer.map { Date(timeIntervalSince1970: Double($0) / 1000) },
                         lastError: row.column("last_error")?.string.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    public func outboxBacklog() async throws -> (pending: Int, givenUp: Int) {
        let row = try await read("""
            SELECT COUNT(*) FILTER (WHERE next_attempt_at IS NOT NULL) AS pending,
                   COUNT(*) FILTER (WHERE next_attempt_at IS NULL) AS given_up FROM outbox
            """).first
        return (row?.column("pending")?.integer ?? 0, row?.column("given_up")?.integer ?? 0)
    }

    /// Every window in one query.
    public func rateCounters(_ windows: [RateWindow]) async throws -> [Int] {
        guard !windows.isEmpty else { return [] }
        let pairs = Array(repeating: "(counter_key = ? AND window_start = ?)", count: windows.count).joined(separator: " OR ")
        let rows = try await read("SELECT counter_key, window_start, count FROM rate_counters WHERE " + pairs,
                                  windows.flatMap { [.text($0.key), .integer(Int($0.start.epochSeconds))] })
        var found: [String: Int] = [:]
        for row in rows {
            guard let key = row.column("counter_key")?.string, let start = row.column("window_start")?.integer else { continue }
            found[key + "@" + String(start)] = row.column("count")?.integer
        }
        return windows.map { found[$0.key + "@" + String($0.start.epochSeconds)] ?? 0 }
    }

    public func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] {
        var conditions = ["project_id = ?"]
        var binds: [SQLiteData] = [.text(projectID)]
        if let localID = query.localID {
            conditions.append("local_id = ?")
            binds.append(.text(localID))
        }
        if let kinds = query.kinds, !kinds.isEmpty {
            conditions.append("kind IN (" + kinds.map { _ in "?" }.joined(separator: ", ") + ")")
            binds += kinds.map { .text($0) }
        }
        if let from = query.from {
            conditions.append("at_micros >= ?")
            binds.append(.integer(Int(from.epochMicros)))
        }
        if let until = query.until {
            conditions.append("at_micros < ?")
            binds.append(.integer(Int(until.epochMicros)))
        }
        if let after = query.after {
            conditions.append("(at_micros < ? OR (at_micros = ? AND id < ?))")
            binds += [.integer(Int(after.micros)), .integer(Int(after.micros)), .text(after.id)]
        }
        binds.append(.integer(query.limit))
        return try await read("SELECT data FROM audit_events WHERE " + conditions.joined(separator: " AND ")
                              + " ORDER BY at_micros DESC, id DESC LIMIT ?", binds)
            .map { try codec.decode(AuditEvent.self, from: $0.column("data")?.string ?? "") }
    }

    /// Each purge is a statement and a transaction of its own: one that fails is reported with SQLite's message
    /// (``HousekeepingReport/failures``) and leaves the others done.
    public func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport {
        let now = housekeeping.now
        let outboxCutoff = SQLiteData.integer(Int(housekeeping.outboxCreatedBefore.epochMilliseconds))
        var report = HousekeepingReport()
        func purge(_ what: String, _ sql: String, _ bindings: [SQLiteData] = []) async -> Int {
            do {
                return try await write { db in try await db.query(sql, bindings).count }
            } catch {
                report.failures[what] = (error as? SQLiteError)?.message ?? String(reflecting: error)
                return 0
            }
        }
        // Refresh tokens their user revoked (created a second or more before validSince), or whose user is gone.
        report.refreshTokens = await purge("refreshTokens", """
            DELETE FROM refresh_tokens WHERE rowid IN (
                SELECT r.rowid FROM refresh_tokens AS r LEFT JOIN users AS u
                  ON u.project_id = r.project_id AND u.tenant_id = r.tenant_id AND u.local_id = r.local_id
                WHERE u.local_id IS NULL
                   OR json_extract(r.data, '$.createdAt') < (json_extract(u.data, '$.validSince') - 1) * 1000)
            RETURNING 1
            """)
        report.pendingSecrets = await purge("pendingSecrets", "DELETE FROM pending_secrets WHERE expires_at <= ? RETURNING 1",
                                            [.integer(Int(now.epochMilliseconds))])
        report.assertions = await purge("assertions", "DELETE FROM used_assertions WHERE expires_at < ? RETURNING 1",
                                        [.integer(Int(now.epochSeconds))])
        report.outboxMessages = await purge("outboxMessages", "DELETE FROM outbox WHERE created_at < ? RETURNING 1", [outboxCutoff])
        report.webhookMessages = await purge("webhookMessages",
            "DELETE FROM webhook_messages WHERE created_at < ? AND next_attempt_at IS NULL RETURNING 1", [outboxCutoff])
        report.rateCounters = await purge("rateCounters", "DELETE FROM rate_counters WHERE expires_at <= ? RETURNING 1",
                                          [.integer(Int(now.epochSeconds))])
        if let cutoff = housekeeping.auditBefore {
            report.auditEvents = await purge("auditEvents", "DELETE FROM audit_events WHERE at_micros < ? RETURNING 1",
                                             [.integer(Int(cutoff.epochMicros))])
        }
        return report
    }
}

// MARK: Faults

extension SQLiteStore {
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

    /// Caps the database at `pages` pages (`PRAGMA max_page_count`): past it every write fails as on a full disk.
    /// For fault tests; `nil` lifts the cap.
    public func limitPages(_ pages: Int?) async throws {
        _ = try await writer.query("PRAGMA max_page_count = \(pages ?? 1_073_741_823)")
    }
}

/// The SQLite store as the schema runner's connection: statements on the writer, steps in its write transactions.
struct SQLiteMigrations: MigrationConnection {
    let store: SQLiteStore

    func execute(_ sql: String) async throws {
        _ = try await store.write { db in try await db.query(sql) }
    }

    func texts(_ sql: String) async throws -> [String] {
        try await store.read(sql).compactMap { $0.columns.first?.data.string }
    }

    func transaction(_ body: @escaping @Sendable (any MigrationTransaction) async throws -> Void) async throws {
        try await store.write { db in try await body(Statements(db: db)) }
    }

    struct Statements: MigrationTransaction {
        let db: SQLiteConnection
        func execute(_ sql: String, _ parameters: [String]) async throws -> Int {
            try await db.query(sql, parameters.map { .text($0) }).count
        }
    }
}
