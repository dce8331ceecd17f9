import Foundation
import HearthCore
import HearthSchema

/// ``IdentityStore`` on a SQL database: every statement written once, here and in its extensions, for every
/// ``SQLDriver`` (`SQLiteStore` and `PostgresStore` are this store on their drivers).
///
/// Records live as JSON in a `data` column; what a statement looks up, orders by or compares (ids, emails,
/// instants, versions) lives in columns of its own, so no statement reads a number out of JSON.
///
/// ```swift
/// let store = try await SQLiteStore.open(path: "hearth-data/hearth.sqlite")
/// try await store.migrate()
/// let user = try await store.user(projectID: "demo", tenantID: nil, localID: "ada")
/// ```
public final class SQLStore<Driver: SQLDriver>: IdentityStore, StoreConnection, @unchecked Sendable {
    public let driver: Driver
    /// Records in and out of the JSON columns, their secrets sealed with the store's key when it has one.
    package let codec: RecordCodec
    /// Whether any webhook endpoint exists (see ``EndpointPresence``).
    let endpoints = EndpointPresence()
    /// Reads and write transactions, for the store contract's budgets.
    let statements = StatementCounter()
    public var statementCounter: StatementCounter? { statements }
    /// Every database call of the store passes it (see ``StoreCircuit``).
    let breaker = StoreCircuit()
    /// Users decoded from the exact text read, so that the same account read again is not decoded again.
    package let decodedUsers = DecodedRecords<UserRecord>(capacity: 1024)
    public var circuit: StoreCircuit? { breaker }

    public init(driver: Driver, sealer: SecretSealer? = nil) {
        self.driver = driver
        codec = RecordCodec(sealer: sealer)
    }

    public func close() async throws { try await driver.close() }

    public func migrate() async throws {
        try await MigrationRunner(dialect: driver.dialect).migrate(Migrations(store: self))
        endpoints.update(try await anyWebhookEndpoint())  // known before the first sign-in (see EndpointPresence)
    }

    /// Ids of the migrations recorded in the database, in the order applied.
    public func appliedMigrations() async throws -> [String] {
        try await read("SELECT id FROM hearth_migrations ORDER BY applied_at, id").compactMap { $0[0].string }
    }

    // MARK: Plumbing: every call passes the counter and the circuit (`function` names the method for metrics).

    package func read(_ statement: SQL, function: String = #function) async throws -> [SQLRow] {
        statements.read()
        let driver = driver
        return try await breaker.call(function, isRead: true, on: driver) { try await driver.read(statement) }
    }

    @discardableResult
    package func execute(_ statement: SQL, function: String = #function) async throws -> [SQLRow] {
        statements.write()
        let driver = driver
        return try await breaker.call(function, isRead: false, on: driver) { try await driver.execute(statement) }
    }

    package func transaction<T: Sendable>(function: String = #function,
                                  _ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        statements.write()
        let driver = driver
        return try await breaker.call(function, isRead: false, on: driver) { try await driver.transaction(body) }
    }

    func decode<T: Decodable>(_ type: T.Type, _ value: SQLValue) throws -> T {
        try codec.decode(type, from: value.string ?? "")
    }

    // MARK: StoreConnection, from the driver

    public func isUnavailable(_ error: any Error) -> Bool { driver.isUnavailable(error) }
    public func failureSparesReads(_ error: any Error) -> Bool { driver.failureSparesReads(error) }
    public func reconnect() async { await driver.reconnect() }
    public var needsDeadline: Bool { driver.needsDeadline }
    public var target: StoreTarget? { driver.target }
    public func targetIsLost() async -> Bool { await driver.targetIsLost() }

    // MARK: Projects

    public func project(id: String) async throws -> ProjectRecord? {
        try await read("SELECT data FROM projects WHERE id = \(id)").first.map { try decode(ProjectRecord.self, $0[0]) }
    }

    public func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord {
        let data = try codec.encode(project)
        let stored = try await transaction { db in
            try await db.query("""
                INSERT INTO projects (id, version, data) VALUES (\(project.id), \(project.version), \(data))
                ON CONFLICT (id) DO NOTHING
                """)
            return try await db.query("SELECT data FROM projects WHERE id = \(project.id)").first?[0]
        }
        return try stored.map { try decode(ProjectRecord.self, $0) } ?? project
    }

    /// Compare-and-set on the `version` column.
    public func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord {
        var next = project
        next.version += 1
        let (data, version) = (try codec.encode(next), next.version)
        try await transaction { db in
            let updated = try await db.query("""
                UPDATE projects SET data = \(data), version = \(version)
                WHERE id = \(project.id) AND version = \(project.version) RETURNING id
                """)
            guard updated.isEmpty else { return }
            let exists = try await db.query("SELECT 1 FROM projects WHERE id = \(project.id)")
            throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
        }
        return next
    }

    // MARK: Users

    static func userKey(_ projectID: String, _ tenantID: String?, _ localID: String) -> SQL {
        "project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID)) AND local_id = \(localID)"
    }

    public func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        try await read("SELECT data FROM users WHERE \(Self.userKey(projectID, tenantID, localID))").first.map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [UserRecord] {
        guard !localIDs.isEmpty else { return [] }
        return try await read("""
            SELECT data FROM users
            WHERE project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID)) AND local_id IN \(list: localIDs)
            """).map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await read("""
            SELECT data FROM users
            WHERE project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID))
              AND local_id\(SQLFragment.byteOrder) > \(localID ?? "")
            ORDER BY local_id\(SQLFragment.byteOrder) LIMIT \(limit)
            """).map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        try await read("""
            SELECT data FROM users
            WHERE project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID))
              AND email = \(EmailAddress.normalized(email))
            ORDER BY created_at, local_id LIMIT 1
            """).first.map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        try await read("""
            SELECT data FROM users
            WHERE project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID)) AND phone_number = \(phoneNumber)
            ORDER BY created_at, local_id LIMIT 1
            """).first.map(decodeUser)
    }

    public func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        try await read("""
            SELECT u.data FROM user_identities AS i JOIN users AS u
              ON u.project_id = i.project_id AND u.tenant_id = i.tenant_id AND u.local_id = i.local_id
            WHERE i.project_id = \(projectID) AND i.tenant_id = \(RecordCoding.tenantColumn(tenantID))
              AND i.provider_id = \(providerID) AND i.raw_id = \(rawID)
            """).first.map(decodeUser)
    }

    public func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord] {
        try await read("""
            SELECT u.data FROM users AS u
            WHERE u.project_id = \(projectID) AND u.tenant_id = \(RecordCoding.tenantColumn(tenantID)) AND u.local_id IN (
              SELECT local_id FROM user_identities
              WHERE project_id = u.project_id AND tenant_id = u.tenant_id AND email = \(EmailAddress.normalized(identityEmail)))
            ORDER BY u.created_at, u.local_id LIMIT \(limit)
            """).map(decodeUser)
    }

    public func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        var condition: SQL = "project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(query.tenantID))"
        switch query.filter {
        case nil: break
        case .email(let email): condition = condition + " AND email = \(EmailAddress.normalized(email))"
        case .localID(let id): condition = condition + " AND local_id = \(id)"
        case .phoneNumber(let phone): condition = condition + " AND phone_number = \(phone)"
        }
        let key: SQL = switch query.sortBy {
        case .userID: "local_id\(SQLFragment.byteOrder)"
        case .name: "\(SQLFragment.jsonText(column: "data", field: "displayName"))\(SQLFragment.byteOrder)"
        case .createdAt: "created_at"
        case .lastLoginAt: "last_login_at"
        case .email: "email\(SQLFragment.byteOrder)"
        }
        let direction = query.descending ? "DESC" : "ASC"
        let nulls = query.descending ? "NULLS LAST" : "NULLS FIRST"
        let count = try await read("SELECT count(*) FROM users WHERE \(condition)").first?[0].int ?? 0
        let users = try await read("""
            SELECT data FROM users WHERE \(condition)
            ORDER BY \(key) \(raw: direction) \(raw: nulls), local_id\(SQLFragment.byteOrder) \(raw: direction)
            LIMIT \(query.limit) OFFSET \(query.offset)
            """).map(decodeUser)
        return UserQueryResult(count: count, users: users)
    }

    func decodeUser(_ row: SQLRow) throws -> UserRecord { try decodeUser(data: row[0]) }

    func decodeUser(data: SQLValue) throws -> UserRecord {
        try codec.decode(UserRecord.self, from: data.string ?? "", kept: decodedUsers)
    }
}

/// The columns of a user row, in the order of ``UserRow/columns``.
struct UserRow: Sendable {
    static let columns = "project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, version, valid_since, last_login_at, data"
    var project, tenant, localID, data: String
    var email, emailUnique, phone: String?
    var createdAt, version, validSince: Int64
    var lastLoginAt: Int64?

    init(_ user: UserRecord, uniqueEmail: Bool, codec: RecordCodec) throws {
        project = user.projectID
        tenant = RecordCoding.tenantColumn(user.tenantID)
        localID = user.localID
        email = user.normalizedEmail
        emailUnique = RecordCoding.uniqueEmailColumn(user, uniqueEmail: uniqueEmail)
        phone = user.phoneNumber
        createdAt = user.createdAt.epochMilliseconds
        version = user.version ?? 0
        validSince = user.validSince
        lastLoginAt = user.lastLoginAt?.epochMilliseconds
        data = try codec.encode(user)
    }

    var values: SQL {
        """
        (\(project), \(tenant), \(localID), \(email), \(emailUnique), \(phone), \(createdAt), \(version), \(validSince), \
        \(lastLoginAt), \(data))
        """
    }
}
