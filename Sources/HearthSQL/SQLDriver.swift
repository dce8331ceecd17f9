import HearthCore
import HearthSchema

/// What a database lends ``SQLStore``: reads, single statements and transactions, in its dialect. Everything else
/// (the statements, the records, the rules) is the store's, written once for every driver.
///
/// A driver is thin: it binds ``SQLValue``s, turns rows into ``SQLRow``s and says which of its errors mean what.
public protocol SQLDriver: StoreConnection {
    var dialect: SQLDialect { get }
    /// One statement that only reads, outside any transaction (a reader connection where there are several).
    func read(_ statement: SQL) async throws -> [SQLRow]
    /// One statement that writes, as a transaction of its own.
    func execute(_ statement: SQL) async throws -> [SQLRow]
    /// `body` in one write transaction: committed when it returns, rolled back when it throws (and what it threw
    /// is rethrown as it was).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T
    /// The constraint a uniqueness failure names (SQLite's message, PostgreSQL's constraint name); nil for any
    /// other error.
    func uniqueViolation(in error: any Error) -> String?
    /// The database's own words for an error (for housekeeping's report).
    func message(of error: any Error) -> String
    /// Called after a row that held a delivered secret was deleted: SQLite empties its write-ahead log.
    func scrubDeletedRows() async
    func close() async throws
}

/// Statements inside one of ``SQLDriver/transaction(_:)``'s transactions.
public protocol SQLTransaction: Sendable {
    @discardableResult
    func query(_ statement: SQL) async throws -> [SQLRow]
}

extension SQLDriver {
    public func scrubDeletedRows() async {}
    public var dbSystem: String { dialect == .postgres ? "postgresql" : "sqlite" }
}
