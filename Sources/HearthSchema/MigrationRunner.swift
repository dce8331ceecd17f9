import Foundation

/// What a SQL store lends the runner: statements, and transactions to run them in.
public protocol MigrationConnection: Sendable {
    /// Runs one statement outside a transaction.
    func execute(_ sql: String) async throws
    /// The first column of each row `sql` returns, as text.
    func texts(_ sql: String) async throws -> [String]
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction(_ body: @escaping @Sendable (any MigrationTransaction) async throws -> Void) async throws
}

/// Statements inside one of ``MigrationConnection/transaction(_:)``'s transactions.
public protocol MigrationTransaction: Sendable {
    /// Runs `sql` with text `parameters` bound to the dialect's placeholders; returns how many rows it produced.
    func execute(_ sql: String, _ parameters: [String]) async throws -> Int
}

/// Brings a database to the current ``Schema``: each step not yet recorded in `hearth_migrations` runs, in order,
/// in its own transaction with its record, so a step is applied whole or not at all and never twice, also when
/// several instances start at once.
///
/// ```swift
/// try await MigrationRunner(dialect: .sqlite).migrate(connection)
/// ```
public struct MigrationRunner: Sendable {
    public let dialect: SQLDialect
    public let migrations: [Migration]

    public init(dialect: SQLDialect, migrations: [Migration] = Schema.migrations) {
        self.dialect = dialect
        self.migrations = migrations
    }

    /// Applies the steps not yet applied, up to and including `last` (every step when `nil`).
    public func migrate(_ connection: some MigrationConnection, through last: String? = nil) async throws {
        try await connection.execute(
            "CREATE TABLE IF NOT EXISTS hearth_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        // One read at every start; a transaction only for a step not applied yet (checked again inside it, since
        // another instance may be applying it at the same moment).
        let applied = Set(try await connection.texts("SELECT id FROM hearth_migrations"))
        // Steps this binary does not know were applied by a newer Hearth: its schema may mean things this one would
        // misread or overwrite, so it stops before touching anything.
        let unknown = applied.subtracting(migrations.map(\.id)).sorted()
        guard unknown.isEmpty else { throw NewerSchema(unknownSteps: unknown) }
        for migration in migrations {
            if applied.contains(migration.id) {
                if migration.id == last { return }
                continue
            }
            let (dialect, statements) = (dialect, migration.statements(for: dialect))
            try await connection.transaction { tx in
                if let lock = dialect.stepLock { _ = try await tx.execute(lock, []) }
                let done = try await tx.execute("SELECT id FROM hearth_migrations WHERE id = \(dialect.placeholder(1))",
                                                [migration.id])
                guard done == 0 else { return }
                for statement in statements { _ = try await tx.execute(statement, []) }
                _ = try await tx.execute(
                    "INSERT INTO hearth_migrations (id, applied_at) VALUES (\(dialect.placeholder(1)), CAST(\(dialect.placeholder(2)) AS BIGINT))",
                    [migration.id, String(Int64(Date().timeIntervalSince1970))])
            }
            if migration.id == last { return }
        }
    }
}

/// The store was migrated by a newer Hearth than this binary: migrations only go forward.
public struct NewerSchema: Error, CustomStringConvertible {
    public let unknownSteps: [String]

    public var description: String {
        "this store was migrated by a newer Hearth (schema steps \(unknownSteps.joined(separator: ", ")) are unknown to this "
            + "version): run that version or a later one, or restore the backup taken before the upgrade"
    }
}
