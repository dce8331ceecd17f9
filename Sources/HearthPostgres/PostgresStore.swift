import Foundation
import HearthCore
import HearthSchema
import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// ``IdentityStore`` on PostgreSQL: for when one machine is not enough. Any number of `hearth` processes can share
/// one database; uniqueness (one account per email, ids) is enforced by the database itself.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://hearth:secret@db.internal:5432/hearth")
/// try await store.migrate()
/// ```
public final class PostgresStore: IdentityStore, StoreConnection, @unchecked Sendable {
    /// The pool and the task running it. Replaced by ``reconnect()``: after an outage the pool backs off up to a
    /// minute between attempts, which would keep Hearth away long after the database is back.
    private let pool: Mutex<(client: PostgresClient, runner: Task<Void, Never>)>
    private let configuration: PostgresClient.Configuration
    let logger: Logger
    /// Records in and out of the JSON columns, their secrets sealed with the store's key when it has one.
    let codec: RecordCodec
    /// Whether any webhook endpoint exists (see ``EndpointPresence``).
    let endpoints = EndpointPresence()

    var client: PostgresClient { pool.withLock { $0.client } }
    /// Reads and write transactions, for the store contract's budgets.
    let statements = StatementCounter()
    public var statementCounter: StatementCounter? { statements }

    /// A statement outside a transaction, counted: a `SELECT` as a read, anything else as a write transaction of
    /// its own.
    /// Every database call of the store passes it (see ``StoreCircuit``).
    let breaker = StoreCircuit()
    public var circuit: StoreCircuit? { breaker }

    /// Every statement outside a transaction passes here (`function` names the method for metrics), through the
    /// circuit.
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger, function: String = #function) async throws -> PostgresRowSequence {
        let isRead = query.sql.hasPrefix("SELECT")
        if isRead { statements.read() } else { statements.write() }
        let client = client
        return try await breaker.call(function, isRead: isRead, on: self) { try await client.query(query, logger: logger) }
    }

    /// Connects with a `postgres://user:password@host:port/database[?sslmode=require][&search_path=schema]` URL.
    /// With `sealer`, private keys and TOTP secrets are sealed at rest (``RecordCodec``).
    public convenience init(url: String, sealer: SecretSealer? = nil, logger: Logger = Logger(label: "hearth.postgres")) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
              let host = components.host, !host.isEmpty
        else { throw PostgresStoreError.invalidURL }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                               uniquingKeysWith: { _, last in last })
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] {
        case "require", "verify-full", "verify-ca": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()).nilIfEmpty, tls: tls)
        if let schema = query["search_path"] {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        self.init(configuration: configuration, sealer: sealer, logger: logger)
    }

    public init(configuration: PostgresClient.Configuration, sealer: SecretSealer? = nil,
                logger: Logger = Logger(label: "hearth.postgres")) {
        codec = RecordCodec(sealer: sealer)
        var configuration = configuration
        // A host that does not answer is given up on quickly; the circuit answers 503 meanwhile.
        configuration.options.connectTimeout = min(configuration.options.connectTimeout, .seconds(3))
        self.configuration = configuration
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        pool = Mutex((client, Task { await client.run() }))
    }

    public func close() async throws {
        let runner = pool.withLock { $0.runner }
        runner.cancel()
        _ = await runner.value
    }

    /// A fresh pool; the old one is shut down in the background.
    public func reconnect() async {
        let fresh = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let old = pool.withLock { current in
            let old = current.runner
            current = (fresh, Task { await fresh.run() })
            return old
        }
        old.cancel()
    }

    public func migrate() async throws {
        try await MigrationRunner(dialect: .postgres).migrate(PostgresMigrations(store: self))
        endpoints.update(try await anyWebhookEndpoint())  // known before the first sign-in (see EndpointPresence)
    }

    /// Ids of the migrations recorded in the database.
    public func appliedMigrations() async throws -> [String] {
        var ids: [String] = []
        for try await id in try await run("SELECT id FROM hearth_migrations ORDER BY applied_at, id",
                                                   logger: logger).decode(String.self) {
            ids.append(id)
        }
        return ids
    }

    /// Runs `body` in a transaction and rethrows what `body` threw (postgres-nio wraps it).
    func transaction<T: Sendable>(function: String = #function,
                                  _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        statements.write()
        let (client, logger) = (client, logger)
        return try await breaker.call(function, isRead: false, on: self) {
            do {
                return try await client.withTransaction(logger: logger) { try await body($0) }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.beginError ?? error.commitError ?? error
            }
        }
    }

    func first(_ query: PostgresQuery, function: String = #function) async throws -> String? {
        for try await data in try await run(query, logger: logger, function: function).decode(String.self) { return data }
        return nil
    }

    // MARK: Projects

    public func project(id: String) async throws -> ProjectRecord? {
        try await first("SELECT data FROM projects WHERE id = \(id)")
            .map { try codec.decode(ProjectRecord.self, from: $0) }
    }

    public func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord {
        let data = try codec.encode(project)
        try await run(
            "INSERT INTO projects (id, data) VALUES (\(project.id), \(data)) ON CONFLICT (id) DO NOTHING",
            logger: logger)
        return try await self.project(id: project.id) ?? project
    }

    public func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord {
        var next = project
        next.version += 1
        let data = try codec.encode(next)
        // The version lives in the JSON (records from before it read as 0): one statement compares and sets.
        let updated = try await first("""
            UPDATE projects SET data = \(data)
            WHERE id = \(project.id) AND coalesce((data::jsonb ->> 'version')::bigint, 0) = \(project.version)
            RETURNING id
            """)
        if updated == nil {
            guard try await first("SELECT id FROM projects WHERE id = \(project.id)") != nil else { throw StoreError.notFound }
            throw StoreError.conflict
        }
        return next
    }

    // MARK: Users

    public func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        let tenant = RecordCoding.tenantColumn(tenantID)
        return try await first(
            "SELECT data FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = \(localID)"
        ).map { try codec.decode(UserRecord.self, from: $0) }
    }

    public func users(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [UserRecord] {
        guard !localIDs.isEmpty else { return [] }
        let tenant = RecordCoding.tenantColumn(tenantID)
        var found: [UserRecord] = []
        let rows = try await run("""
            SELECT data FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = ANY(\(localIDs))
            """, logger: logger)
        for try await data in rows.decode(String.self) { found.append(try codec.decode(UserRecord.self, from: data)) }
        return found
    }

    public func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord] {
        let after = localID ?? ""
        let tenant = RecordCoding.tenantColumn(tenantID)
        var page: [UserRecord] = []
        // COLLATE "C": byte order, the same as SQLite's and the in-memory store's, whatever the database locale.
        let rows = try await run("""
            SELECT data FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id COLLATE "C" > \(after)
            ORDER BY local_id COLLATE "C" LIMIT \(limit)
            """, logger: logger)
        for try await data in rows.decode(String.self) { page.append(try codec.decode(UserRecord.self, from: data)) }
        return page
    }

    public func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        let tenant = RecordCoding.tenantColumn(tenantID)
        let normalized = EmailAddress.normalized(email)
        return try await first("""
            SELECT data FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND email = \(normalized)
            ORDER BY created_at, local_id LIMIT 1
            """).map { try codec.decode(UserRecord.self, from: $0) }
    }

    public func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        let tenant = RecordCoding.tenantColumn(tenantID)
        return try await first("""
            SELECT data FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND phone_number = \(phoneNumber)
            ORDER BY created_at, local_id LIMIT 1
            """).map { try codec.decode(UserRecord.self, from: $0) }
    }

    public func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        let tenant = RecordCoding.tenantColumn(tenantID)
        return try await first("""
            SELECT u.data FROM user_identities AS i JOIN users AS u
              ON u.project_id = i.project_id AND u.tenant_id = i.tenant_id AND u.local_id = i.local_id
            WHERE i.project_id = \(projectID) AND i.tenant_id = \(tenant) AND i.provider_id = \(providerID)
              AND i.raw_id = \(rawID)
            """).map { try codec.decode(UserRecord.self, from: $0) }
    }

    public func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord] {
        let tenant = RecordCoding.tenantColumn(tenantID)
        let email = EmailAddress.normalized(identityEmail)
        var users: [UserRecord] = []
        let rows = try await run("""
            SELECT u.data FROM users AS u WHERE u.project_id = \(projectID) AND u.tenant_id = \(tenant) AND u.local_id IN (
              SELECT local_id FROM user_identities WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND email = \(email))
            ORDER BY u.created_at, u.local_id LIMIT \(limit)
            """, logger: logger).decode(String.self)
        for try await data in rows { users.append(try codec.decode(UserRecord.self, from: data)) }
        return users
    }

    /// Replaces the user's rows in `user_identities` inside the caller's transaction; an identity another account
    /// holds is ``StoreError/identityLinked`` (and the caller's transaction rolls back).
    private static func writeIdentities(_ user: UserRecord, _ db: PostgresConnection, logger: Logger) async throws {
        let tenant = RecordCoding.tenantColumn(user.tenantID)
        try await db.query("""
            DELETE FROM user_identities
            WHERE project_id = \(user.projectID) AND tenant_id = \(tenant) AND local_id = \(user.localID)
            """, logger: logger)
        for identity in user.indexedIdentities {
            let inserted = try await db.query("""
                INSERT INTO user_identities (project_id, tenant_id, provider_id, raw_id, local_id, email)
                VALUES (\(user.projectID), \(tenant), \(identity.providerID), \(identity.rawID), \(user.localID),
                        \(identity.email.map(EmailAddress.normalized)))
                ON CONFLICT DO NOTHING RETURNING local_id
                """, logger: logger).collect()
            if inserted.isEmpty { throw StoreError.identityLinked }
        }
    }

    public func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        var binds = PostgresBindings()
        binds.append(projectID)
        binds.append(RecordCoding.tenantColumn(query.tenantID))
        var condition = "project_id = $1 AND tenant_id = $2"
        switch query.filter {
        case nil: break
        case .email(let email): condition += " AND email = $3"; binds.append(EmailAddress.normalized(email))
        case .localID(let id): condition += " AND local_id = $3"; binds.append(id)
        case .phoneNumber(let phone): condition += " AND phone_number = $3"; binds.append(phone)
        }
        let key: String = switch query.sortBy {
        case .lastLoginAt: "(data::jsonb ->> 'lastLoginAt')::double precision"
        case .createdAt: "created_at"
        default: query.sortBy.sqlExpression { "(data::jsonb ->> '\($0)')" } + " COLLATE \"C\""
        }
        let direction = query.descending ? "DESC NULLS LAST" : "ASC NULLS FIRST"
        var count = 0
        for try await n in try await run(
            PostgresQuery(unsafeSQL: "SELECT count(*) FROM users WHERE \(condition)", binds: binds), logger: logger
        ).decode(Int.self) { count = n }
        let sql = """
            SELECT data FROM users WHERE \(condition)
            ORDER BY \(key) \(direction), local_id COLLATE "C" \(query.descending ? "DESC" : "ASC")
            LIMIT \(query.limit) OFFSET \(query.offset)
            """
        var users: [UserRecord] = []
        for try await data in try await run(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            .decode(String.self) {
            users.append(try codec.decode(UserRecord.self, from: data))
        }
        return UserQueryResult(count: count, users: users)
    }

    public func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        let (expiry, cutoff) = (expiresAt.epochSeconds, now.epochSeconds)
        let logger = logger
        return try await transaction { [self] db in
            try await db.query("DELETE FROM used_assertions WHERE expires_at < \(cutoff)", logger: logger)
            return try await !db.query("""
                INSERT INTO used_assertions (digest, expires_at) VALUES (\(digest), \(expiry))
                ON CONFLICT (digest) DO NOTHING RETURNING digest
                """, logger: logger).collect().isEmpty
        }
    }

    /// One transaction for the whole unit; a refused change rolls it all back.
    public func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
        let logger = logger
        let fanOut = try await webhooksListening(for: work)
        do {
            return try await transaction { [self] db in
                var outcome = UnitOfWork.Outcome()
                for change in work.changes {
                    switch change {
                    case .insertUser(let user, let uniqueEmail):
                        let row = try Row(user, uniqueEmail: uniqueEmail, codec: codec)
                        try await db.query("""
                            INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, data)
                            VALUES (\(row.project), \(row.tenant), \(row.localID), \(row.email), \(row.emailUnique), \(row.phone),
                                    \(row.createdAt), \(row.data))
                            """, logger: logger)
                        try await Self.writeIdentities(user, db, logger: logger)
                    case .stampSignIn(let stamp):
                        // Read with `FOR UPDATE`: a concurrent writer of the account waits for this unit.
                        let tenant = RecordCoding.tenantColumn(stamp.tenantID)
                        var found: String?
                        for try await data in try await db.query("""
                            SELECT data FROM users
                            WHERE project_id = \(stamp.projectID) AND tenant_id = \(tenant) AND local_id = \(stamp.localID)
                            FOR UPDATE
                            """, logger: logger).decode(String.self) { found = data }
                        guard let found else { throw StoreError.stale }
                        var user = try codec.decode(UserRecord.self, from: found)
                        guard stamp.apply(to: &user) else { throw StoreError.stale }
                        let data = try codec.encode(user)
                        try await db.query("""
                            UPDATE users SET data = \(data)
                            WHERE project_id = \(stamp.projectID) AND tenant_id = \(tenant) AND local_id = \(stamp.localID)
                            """, logger: logger)
                        outcome.stamped = user
                    case .insertRefreshToken(let token, let keep):
                        let data = try codec.encode(token)
                        let tenant = RecordCoding.tenantColumn(token.tenantID)
                        try await db.query("""
                            INSERT INTO refresh_tokens (token_digest, project_id, tenant_id, local_id, data)
                            VALUES (\(token.tokenDigest), \(token.projectID), \(tenant), \(token.localID), \(data))
                            """, logger: logger)
                        if let keep {
                            // Oldest first by the record's creation time (milliseconds), the digest breaking ties.
                            try await db.query("""
                                DELETE FROM refresh_tokens WHERE token_digest IN (
                                    SELECT token_digest FROM refresh_tokens
                                    WHERE project_id = \(token.projectID) AND tenant_id = \(tenant) AND local_id = \(token.localID)
                                    ORDER BY (data::jsonb->>'createdAt')::double precision DESC, token_digest DESC
                                    OFFSET \(max(keep, 1)))
                                """, logger: logger)
                        }
                    case .insertAuditEvent(let event):
                        let (data, micros) = (try codec.encode(event), event.at.epochMicros)
                        try await db.query("""
                            INSERT INTO audit_events (id, project_id, at_micros, kind, local_id, data)
                            VALUES (\(event.id), \(event.projectID), \(micros), \(event.kind), \(event.localID), \(data))
                            """, logger: logger)
                        if fanOut, WebhookEventType(auditKind: event.kind) != nil {
                            try await Self.queueWebhooks(for: event, now: event.at, db, logger: logger)
                        }
                    case .incrementRateCounter(let key, let windowStart, let expiresAt, let delta):
                        let (start, expiry) = (windowStart.epochSeconds, expiresAt.epochSeconds)
                        var count = delta
                        for try await value in try await db.query("""
                            INSERT INTO rate_counters (counter_key, window_start, expires_at, count)
                            VALUES (\(key), \(start), \(expiry), \(delta))
                            ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + \(delta)
                            RETURNING count
                            """, logger: logger).decode(Int.self) { count = value }
                        outcome.counts.append(count)
                    }
                }
                return outcome
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505"
            && error.serverInfo?[.constraintName]?.hasPrefix("users_") == true {
            throw error.serverInfo?[.constraintName] == "users_email_unique"
                ? StoreError.emailExists : StoreError.duplicateLocalID
        }
    }

    /// One transaction for the whole batch; `ON CONFLICT DO NOTHING` keeps a refused row from aborting it.
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        let rows = try users.map { try Row($0, uniqueEmail: uniqueEmail, codec: codec) }
        return try await transaction { [self] db in
            var refused: [Int: StoreError] = [:]
            for (index, row) in rows.enumerated() {
                let inserted = try await db.query("""
                    INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, data)
                    VALUES (\(row.project), \(row.tenant), \(row.localID), \(row.email), \(row.emailUnique), \(row.phone),
                            \(row.createdAt), \(row.data))
                    ON CONFLICT DO NOTHING RETURNING local_id
                    """, logger: logger)
                var stored = false
                for try await _ in inserted.decode(String.self) { stored = true }
                if stored {
                    do {
                        try await Self.writeIdentities(users[index], db, logger: logger)
                    } catch StoreError.identityLinked {
                        try await db.query("""
                            DELETE FROM user_identities
                            WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                            """, logger: logger)
                        try await db.query("""
                            DELETE FROM users
                            WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                            """, logger: logger)
                        refused[index] = .identityLinked
                    }
                    continue
                }
                let taken = try await db.query("""
                    SELECT 1 FROM users WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                    """, logger: logger)
                var idTaken = false
                for try await _ in taken.decode(Int.self) { idTaken = true }
                refused[index] = idTaken ? .duplicateLocalID : .emailExists
            }
            return refused
        }
    }

    public func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord {
        var written = user
        written.version = (user.version ?? 0) + 1
        let row = try Row(written, uniqueEmail: uniqueEmail, codec: codec)
        let expected = user.version ?? 0
        let logger = logger
        do {
            try await transaction { [self] db in
                let updated = try await db.query("""
                    UPDATE users SET email = \(row.email), email_unique = \(row.emailUnique), phone_number = \(row.phone),
                        created_at = \(row.createdAt), data = \(row.data)
                    WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                      AND coalesce((data::jsonb ->> 'version')::bigint, 0) = \(expected)
                    RETURNING local_id
                    """, logger: logger).collect()
                guard !updated.isEmpty else {
                    let exists = try await db.query("""
                        SELECT 1 FROM users
                        WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                        """, logger: logger).collect()
                    throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
                }
                try await Self.writeIdentities(user, db, logger: logger)
                if revokeRefreshTokens {
                    try await db.query("""
                        DELETE FROM refresh_tokens
                        WHERE project_id = \(row.project) AND tenant_id = \(row.tenant) AND local_id = \(row.localID)
                        """, logger: logger)
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw StoreError.emailExists
        }
        return written
    }


    public func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        let tenant = RecordCoding.tenantColumn(tenantID)
        let logger = logger
        return try await transaction { [self] db in
            try await db.query("""
                DELETE FROM refresh_tokens
                WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = \(localID)
                """, logger: logger)
            try await db.query("""
                DELETE FROM user_identities
                WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = \(localID)
                """, logger: logger)
            return try await !db.query("""
                DELETE FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = \(localID)
                RETURNING local_id
                """, logger: logger).collect().isEmpty
        }
    }

    public func deleteUsers(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [String] {
        guard !localIDs.isEmpty else { return [] }
        let tenant = RecordCoding.tenantColumn(tenantID)
        let logger = logger
        return try await transaction { db in
            for table in ["refresh_tokens", "user_identities"] {
                try await db.query(PostgresQuery(unsafeSQL: """
                    DELETE FROM \(table) WHERE project_id = $1 AND tenant_id = $2 AND local_id = ANY($3)
                    """, binds: try Self.binds(projectID, tenant, localIDs)), logger: logger)
            }
            var deleted: [String] = []
            for try await id in try await db.query("""
                DELETE FROM users WHERE project_id = \(projectID) AND tenant_id = \(tenant) AND local_id = ANY(\(localIDs))
                RETURNING local_id
                """, logger: logger).decode(String.self) { deleted.append(id) }
            return deleted
        }
    }

    private static func binds(_ projectID: String, _ tenant: String, _ localIDs: [String]) throws -> PostgresBindings {
        var binds = PostgresBindings()
        try binds.append(projectID)
        try binds.append(tenant)
        try binds.append(localIDs)
        return binds
    }

    public func deleteAllUsers(projectID: String) async throws -> Int {
        let logger = logger
        return try await transaction { [self] db in
            try await db.query("DELETE FROM refresh_tokens WHERE project_id = \(projectID)", logger: logger)
            try await db.query("DELETE FROM user_identities WHERE project_id = \(projectID)", logger: logger)
            return try await db.query("DELETE FROM users WHERE project_id = \(projectID) RETURNING local_id",
                                      logger: logger).collect().count
        }
    }

    // MARK: Refresh tokens


    /// The token and its user in one query.
    public func session(projectID: String, digest: String) async throws -> RefreshSession? {
        let rows = try await run("""
            SELECT r.data, u.data FROM refresh_tokens AS r
            LEFT JOIN users AS u ON u.project_id = r.project_id AND u.tenant_id = r.tenant_id AND u.local_id = r.local_id
            WHERE r.token_digest = \(digest) AND r.project_id = \(projectID)
            """, logger: logger)
        for try await (token, user) in rows.decode((String, String?).self) {
            return RefreshSession(token: try codec.decode(RefreshTokenRecord.self, from: token),
                                  user: try user.map { try codec.decode(UserRecord.self, from: $0) })
        }
        return nil
    }

    // MARK: Action codes and outbox

    // MARK: Pending secrets

    public func insertPending(_ record: PendingRecord, now: Date) async throws {
        let data = try codec.encode(record)
        let (expires, cutoff, attempts) = (record.expiresAt.epochMilliseconds, now.epochMilliseconds, record.attempts)
        let logger = logger
        try await transaction { [self] db in
            try await db.query("DELETE FROM pending_secrets WHERE expires_at <= \(cutoff)", logger: logger)
            let inserted = try await db.query("""
                INSERT INTO pending_secrets (digest, project_id, expires_at, attempts, data)
                VALUES (\(record.digest), \(record.projectID), \(expires), \(attempts), \(data))
                ON CONFLICT DO NOTHING RETURNING digest
                """, logger: logger).collect()
            if inserted.isEmpty { throw StoreError.pendingExists }
        }
    }

    public func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        let cutoff = now.epochMilliseconds
        return try await pendingRow("""
            SELECT attempts, data FROM pending_secrets
            WHERE digest = \(digest) AND project_id = \(projectID) AND expires_at > \(cutoff)
            """)
    }

    public func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await pendingRow("""
            DELETE FROM pending_secrets WHERE digest = \(digest) AND project_id = \(projectID) RETURNING attempts, data
            """)
    }

    public func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        let rows = try await run("""
            UPDATE pending_secrets SET attempts = attempts + 1 WHERE digest = \(digest) AND project_id = \(projectID)
            RETURNING attempts
            """, logger: logger)
        for try await attempts in rows.decode(Int.self) { return attempts }
        return nil
    }

    private func pendingRow(_ query: PostgresQuery) async throws -> PendingRecord? {
        for try await (attempts, data) in try await run(query, logger: logger).decode((Int, String).self) {
            var record = try codec.decode(PendingRecord.self, from: data)
            record.attempts = attempts
            return record
        }
        return nil
    }

    public func insertActionCode(_ code: ActionCodeRecord) async throws {
        let data = try codec.encode(code)
        let expires = code.expiresAt.epochSeconds
        try await run("""
            INSERT INTO action_codes (code_digest, project_id, expires_at, data)
            VALUES (\(code.codeDigest), \(code.projectID), \(expires), \(data))
            """, logger: logger)
    }

    public func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await first("SELECT data FROM action_codes WHERE code_digest = \(digest) AND project_id = \(projectID)")
            .map { try codec.decode(ActionCodeRecord.self, from: $0) }
    }

    public func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await first("""
            DELETE FROM action_codes WHERE code_digest = \(digest) AND project_id = \(projectID) RETURNING data
            """).map { try codec.decode(ActionCodeRecord.self, from: $0) }
    }

    public func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int {
        let tenant = RecordCoding.tenantColumn(tenantID)
        return try await run("""
            DELETE FROM action_codes WHERE project_id = \(projectID) AND data::jsonb ->> 'localID' = \(localID)
              AND coalesce(data::jsonb ->> 'tenantID', '') = \(tenant)
              AND data::jsonb ->> 'type' <> 'RECOVER_EMAIL' RETURNING code_digest
            """, logger: logger).collect().count
    }

    public func enqueueOutboxMessage(_ message: OutboxMessage) async throws {
        let data = try codec.encode(message)
        let created = message.createdAt.epochMilliseconds
        try await run("""
            INSERT INTO outbox (id, project_id, created_at, next_attempt_at, data)
            VALUES (\(message.id), \(message.projectID), \(created), \(created), \(data))
            """, logger: logger)
    }

    public func outboxMessages(projectID: String) async throws -> [OutboxMessage] {
        var messages: [OutboxMessage] = []
        let rows = try await run(
            "SELECT data FROM outbox WHERE project_id = \(projectID) ORDER BY created_at, id", logger: logger)
        for try await data in rows.decode(String.self) {
            messages.append(try codec.decode(OutboxMessage.self, from: data))
        }
        return messages
    }

    public func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        let lease = leaseUntil.epochMilliseconds, due = now.epochMilliseconds
        // SKIP LOCKED: instances claiming at the same moment take different messages instead of waiting.
        let rows = try await run("""
            UPDATE outbox SET next_attempt_at = \(lease) WHERE id IN (
                SELECT id FROM outbox WHERE next_attempt_at <= \(due) ORDER BY next_attempt_at, created_at
                LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING data, attempts
            """, logger: logger)
        var deliveries: [OutboxDelivery] = []
        for try await (data, attempts) in rows.decode((String, Int).self) {
            deliveries.append(OutboxDelivery(message: try codec.decode(OutboxMessage.self, from: data),
                                             attempts: attempts))
        }
        return deliveries.sorted { $0.message.createdAt < $1.message.createdAt }
    }

    public func deleteOutboxMessage(id: String) async throws {
        try await run("DELETE FROM outbox WHERE id = \(id)", logger: logger)
    }

    public func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        let next = nextAttemptAt?.epochMilliseconds
        try await run("""
            UPDATE outbox SET attempts = \(attempts), next_attempt_at = \(next), last_error = \(lastError),
                data = CASE WHEN \(next)::bigint IS NULL
                            THEN jsonb_set(jsonb_set(data::jsonb, '{code}', '""'), '{link}', '""')::text ELSE data END
            WHERE id = \(id)
            """, logger: logger)
    }

    /// The column values of a user row.
    private struct Row: Sendable {
        var project, tenant, localID, data: String
        var email, emailUnique, phone: String?
        var createdAt: Int64

        init(_ user: UserRecord, uniqueEmail: Bool, codec: RecordCodec) throws {
            project = user.projectID
            tenant = RecordCoding.tenantColumn(user.tenantID)
            localID = user.localID
            email = user.normalizedEmail
            emailUnique = RecordCoding.uniqueEmailColumn(user, uniqueEmail: uniqueEmail)
            phone = user.phoneNumber
            createdAt = user.createdAt.epochMilliseconds
            data = try codec.encode(user)
        }
    }
}

public enum PostgresStoreError: Error, CustomStringConvertible {
    case invalidURL

    public var description: String {
        "expected a URL like postgres://user:password@host:5432/database"
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

// MARK: Operations: outbox backlog, shared rate limits, audit log, housekeeping

extension PostgresStore {
    public func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus] {
        let rows = try await run("""
            SELECT data, attempts, next_attempt_at, last_error FROM outbox WHERE project_id = \(projectID)
            ORDER BY created_at, id LIMIT \(max(0, limit))
            """, logger: logger)
        var found: [OutboxStatus] = []
        for try await (data, attempts, next, error) in rows.decode((String, Int, Int64?, String?).self) {
            found.append(OutboxStatus(message: try codec.decode(OutboxMessage.self, from: data), attempts: attempts,
                                      nextAttemptAt: next.map { Date(timeIntervalSince1970: Double($0) / 1000) },
                                      lastError: error.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return found
    }

    public func outboxBacklog() async throws -> (pending: Int, givenUp: Int) {
        let rows = try await run("""
            SELECT COUNT(*) FILTER (WHERE next_attempt_at IS NOT NULL), COUNT(*) FILTER (WHERE next_attempt_at IS NULL)
            FROM outbox
            """, logger: logger)
        for try await (pending, givenUp) in rows.decode((Int, Int).self) { return (pending, givenUp) }
        return (0, 0)
    }

    /// Every window in one query.
    public func rateCounters(_ windows: [RateWindow]) async throws -> [Int] {
        guard !windows.isEmpty else { return [] }
        let keys = windows.map(\.key), starts = windows.map(\.start.epochSeconds)
        var found: [String: Int] = [:]
        for try await (key, start, count) in try await run("""
            SELECT c.counter_key, c.window_start, c.count FROM rate_counters AS c
            JOIN unnest(\(keys)::text[], \(starts)::bigint[]) AS w(k, s) ON c.counter_key = w.k AND c.window_start = w.s
            """, logger: logger).decode((String, Int64, Int).self) {
            found[key + "@" + String(start)] = count
        }
        return windows.map { found[$0.key + "@" + String($0.start.epochSeconds)] ?? 0 }
    }

    public func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] {
        var bindings = PostgresBindings()
        func bind(_ value: some PostgresEncodable & Sendable) throws -> String {
            try bindings.append(value)
            return "$\(bindings.count)"
        }
        var conditions = ["project_id = \(try bind(projectID))"]
        if let localID = query.localID { conditions.append("local_id = \(try bind(localID))") }
        if let kinds = query.kinds, !kinds.isEmpty { conditions.append("kind = ANY(\(try bind(kinds)))") }
        if let from = query.from { conditions.append("at_micros >= \(try bind(from.epochMicros))") }
        if let until = query.until { conditions.append("at_micros < \(try bind(until.epochMicros))") }
        if let after = query.after {
            conditions.append("(at_micros, id) < (\(try bind(after.micros)), \(try bind(after.id)))")
        }
        let sql = "SELECT data FROM audit_events WHERE " + conditions.joined(separator: " AND ")
            + " ORDER BY at_micros DESC, id DESC LIMIT \(try bind(query.limit))"
        var events: [AuditEvent] = []
        for try await data in try await run(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            .decode(String.self) {
            events.append(try codec.decode(AuditEvent.self, from: data))
        }
        return events
    }

    /// Each purge is a statement and a transaction of its own: one that fails is reported with the database's
    /// message (``HousekeepingReport/failures``) and leaves the others done.
    public func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport {
        let (millis, seconds) = (housekeeping.now.epochMilliseconds, housekeeping.now.epochSeconds)
        let outboxCutoff = housekeeping.outboxCreatedBefore.epochMilliseconds
        var report = HousekeepingReport()
        func purge(_ what: String, _ query: PostgresQuery) async -> Int {
            do {
                var rows = 0
                for try await _ in try await run(query, logger: logger) { rows += 1 }
                return rows
            } catch {
                report.failures[what] = Self.databaseMessage(error)
                return 0
            }
        }
        // Refresh tokens their user revoked (created a second or more before validSince), or whose user is gone.
        // `createdAt` is fractional milliseconds: compared as a number, never cast to an integer.
        report.refreshTokens = await purge("refreshTokens", """
            DELETE FROM refresh_tokens AS r WHERE NOT EXISTS (
                SELECT 1 FROM users AS u WHERE u.project_id = r.project_id AND u.tenant_id = r.tenant_id
                  AND u.local_id = r.local_id
                  AND (r.data::jsonb ->> 'createdAt')::double precision
                      >= ((u.data::jsonb ->> 'validSince')::double precision - 1) * 1000)
            RETURNING 1
            """)
        report.pendingSecrets = await purge("pendingSecrets", "DELETE FROM pending_secrets WHERE expires_at <= \(millis) RETURNING 1")
        report.assertions = await purge("assertions", "DELETE FROM used_assertions WHERE expires_at < \(seconds) RETURNING 1")
        report.outboxMessages = await purge("outboxMessages", "DELETE FROM outbox WHERE created_at < \(outboxCutoff) RETURNING 1")
        report.webhookMessages = await purge("webhookMessages", """
            DELETE FROM webhook_messages WHERE created_at < \(outboxCutoff) AND next_attempt_at IS NULL RETURNING 1
            """)
        report.rateCounters = await purge("rateCounters", "DELETE FROM rate_counters WHERE expires_at <= \(seconds) RETURNING 1")
        if let cutoff = housekeeping.auditBefore?.epochMicros {
            report.auditEvents = await purge("auditEvents", "DELETE FROM audit_events WHERE at_micros < \(cutoff) RETURNING 1")
        }
        return report
    }

    /// What PostgreSQL said (its message and SQLSTATE), not postgres-nio's generic description.
    static func databaseMessage(_ error: any Error) -> String {
        if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
            return message + " (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        return String(reflecting: error)
    }
}

// MARK: Faults

extension PostgresStore {
    /// The server cannot be reached, closed the connection, or is shutting down / starting up: not the request's
    /// fault, and the same call succeeds once the server is back.
    public func isUnavailable(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed, .clientClosedConnection:
                return true
            default:
                // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections
                let state = error.serverInfo?[.sqlState] ?? ""
                return ["57P01", "57P02", "57P03", "53300"].contains(state) || state.hasPrefix("08")
            }
        }
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError].contains { $0.map(isUnavailable) ?? false }
        }
        // The pool's own refusals (shut down because the circuit swapped it for a fresh one, a lease cancelled, no
        // connection made in time) mean no database as much as a refused connection does. They come from postgres-nio's
        // underscored pool module, matched by type name rather than imported. Left out, they answered 500 and closed
        // the circuit again mid-outage.
        if String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") { return true }
        if error is CancellationError, !Task.isCancelled { return true }  // the old pool's runner, not the request, was cancelled
        return error is ChannelError || error is IOError
    }

    public var needsDeadline: Bool { true }
}

/// The PostgreSQL store as the schema runner's connection: each step in a transaction of its own.
struct PostgresMigrations: MigrationConnection {
    let store: PostgresStore

    func execute(_ sql: String) async throws {
        try await store.run(PostgresQuery(unsafeSQL: sql), logger: store.logger)
    }

    func texts(_ sql: String) async throws -> [String] {
        var texts: [String] = []
        for try await text in try await store.run(PostgresQuery(unsafeSQL: sql), logger: store.logger).decode(String.self) {
            texts.append(text)
        }
        return texts
    }

    func transaction(_ body: @escaping @Sendable (any MigrationTransaction) async throws -> Void) async throws {
        let logger = store.logger
        try await store.transaction { db in try await body(Statements(db: db, logger: logger)) }
    }

    struct Statements: MigrationTransaction {
        let db: PostgresConnection
        let logger: Logger
        func execute(_ sql: String, _ parameters: [String]) async throws -> Int {
            var binds = PostgresBindings()
            for parameter in parameters { binds.append(parameter) }
            return try await db.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().count
        }
    }
}
