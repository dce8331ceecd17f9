import HearthCore
import HearthSchema

extension SQLStore {
    /// The store as the schema runner's connection: each step in a write transaction of its own.
    package struct Migrations: MigrationConnection {
        let store: SQLStore
        package init(store: SQLStore) { self.store = store }

        package func execute(_ sql: String) async throws {
            try await store.execute(SQL(raw: sql))
        }

        package func texts(_ sql: String) async throws -> [String] {
            try await store.read(SQL(raw: sql)).compactMap { $0[0].string }
        }

        package func transaction(_ body: @escaping @Sendable (any MigrationTransaction) async throws -> Void) async throws {
            try await store.transaction { db in try await body(Statements(db: db)) }
        }
    }

    struct Statements: MigrationTransaction {
        let db: any SQLTransaction
        /// `sql` is the runner's, written with the dialect's placeholders already; the parameters bind to them.
        func execute(_ sql: String, _ parameters: [String]) async throws -> Int {
            try await db.query(SQL(prerendered: sql, binds: parameters.map(SQLValue.text))).count
        }
    }
}
