import Foundation

/// The persistent home of projects, users and refresh tokens, by concern: ``UserStore``, ``SecretStore``,
/// ``ConfigStore``, ``OutboxStore``, ``WebhookStore`` and ``OperationsStore``; a use case that needs one concern takes that one.
///
/// Narrow and domain-shaped: every method is one atomic change or one lookup, returns domain types and never
/// driver rows; several writes that belong together go in one ``UnitOfWork``. Implementations: ``InMemoryStore`` (tests, `memory:`), `SQLiteStore`, `PostgresStore`. All three
/// pass the same contract suite (`HearthStoreContract`).
///
/// ```swift
/// let store: any IdentityStore = InMemoryStore()
/// try await store.migrate()
/// try await store.insertUser(user)          // throws StoreError.emailExists on a taken email
/// let found = try await store.user(projectID: "demo", tenantID: nil, email: "a@b.c")
/// ```
public protocol IdentityStore: UserStore, SecretStore, ConfigStore, OutboxStore, OperationsStore, WebhookStore,
    UnitOfWorkStore {
    /// Brings the schema up to date; forward-only, each step recorded in the database.
    func migrate() async throws
    /// Releases connections. The store cannot be used afterwards.
    func close() async throws
    /// Counts reads and write transactions, where the store keeps count (SQL stores).
    var statementCounter: StatementCounter? { get }
    /// The circuit every call of the store passes (SQL stores): an outage answers at once instead of queueing.
    var circuit: StoreCircuit? { get }
}

extension IdentityStore {
    /// The project's own users (no tenant's), in `localId` order.
    public func users(projectID: String, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await users(projectID: projectID, tenantID: nil, after: localID, limit: limit)
    }
    public var statementCounter: StatementCounter? { nil }
    public var circuit: StoreCircuit? { nil }

    /// One insert per user: correct everywhere, for stores without a faster path.
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        var refused: [Int: StoreError] = [:]
        for (index, user) in users.enumerated() {
            do { try await insertUser(user, uniqueEmail: uniqueEmail) } catch let error as StoreError {
                refused[index] = error
            }
        }
        return refused
    }
}

extension UnitOfWorkStore {
    /// Counts one event: ``incrementRateCounter(key:windowStart:expiresAt:by:)`` by one.
    @discardableResult
    public func incrementRateCounter(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        try await incrementRateCounter(key: key, windowStart: windowStart, expiresAt: expiresAt, by: 1)
    }
}

extension ConfigStore {
    /// Applies `change` to the project as stored now and writes it compare-and-set; a write that lost a race reads
    /// again and applies `change` again, so racing changes (requests, instances, `hearth` commands) all land. Returns
    /// what is stored; a `change` that leaves the record as it was writes nothing.
    @discardableResult
    public func modifyProject(_ id: String, _ change: (inout ProjectRecord) throws -> Void) async throws -> ProjectRecord {
        for _ in 0..<32 {
            guard var record = try await project(id: id) else { throw StoreError.notFound }
            let before = record
            try change(&record)
            guard record != before else { return record }
            do {
                return try await updateProject(record)
            } catch StoreError.conflict {
                continue
            }
        }
        throw StoreError.conflict
    }
}
