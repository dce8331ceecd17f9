import Foundation
import HearthCore
import HearthSchema
import HearthSQL
import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// ``IdentityStore`` on PostgreSQL: for when one machine is not enough. Any number of `hearth` processes can share
/// one database; uniqueness (one account per email, ids) is enforced by the database itself. Its statements are
/// ``SQLStore``'s; this module only connects them to the server.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://hearth:secret@db.internal:5432/hearth")
/// try await store.migrate()
/// ```
public typealias PostgresStore = SQLStore<PostgresDriver>

/// A `PostgresClient` pool, replaced by ``reconnect()``: after an outage the pool backs off up to a minute between
/// attempts, which would keep Hearth away long after the database is back.
public final class PostgresDriver: SQLDriver, @unchecked Sendable {
    private let pool: Mutex<(client: PostgresClient, runner: Task<Void, Never>)>
    private let configuration: PostgresClient.Configuration
    let logger: Logger
    public var dialect: SQLDialect { .postgres }
    var client: PostgresClient { pool.withLock { $0.client } }

    public init(configuration: PostgresClient.Configuration, logger: Logger = Logger(label: "hearth.postgres")) {
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

    public func read(_ statement: SQL) async throws -> [SQLRow] {
        try await Self.rows(client.query(Self.query(statement), logger: logger))
    }

    public func execute(_ statement: SQL) async throws -> [SQLRow] {
        try await read(statement)  // outside a transaction, a statement is a transaction of its own
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        let logger = logger
        do {
            return try await client.withTransaction(logger: logger) { try await body(Connection(db: $0, logger: logger)) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    struct Connection: SQLTransaction {
        let db: PostgresConnection
        let logger: Logger
        func query(_ statement: SQL) async throws -> [SQLRow] {
            try await PostgresDriver.rows(db.query(PostgresDriver.query(statement), logger: logger))
        }
    }

    static func query(_ statement: SQL) -> PostgresQuery {
        let (sql, values) = statement.rendered(for: .postgres)
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .null: binds.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    static func rows(_ sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in sequence {
            var values: [SQLValue] = []
            for cell in row {
                guard cell.bytes != nil else {
                    values.append(.null)
                    continue
                }
                switch cell.dataType {
                case .int8: values.append(.integer(try cell.decode(Int64.self)))
                case .int4: values.append(.integer(Int64(try cell.decode(Int32.self))))
                case .int2: values.append(.integer(Int64(try cell.decode(Int16.self))))
                case .float8, .float4: values.append(.real(try cell.decode(Double.self)))
                case .bool: values.append(.integer(try cell.decode(Bool.self) ? 1 : 0))
                case .numeric:
                    let text = try cell.decode(String.self)
                    values.append(Int64(text).map(SQLValue.integer) ?? .real(Double(text) ?? 0))
                default: values.append(.text(try cell.decode(String.self)))
                }
            }
            rows.append(SQLRow(values))
        }
        return rows
    }

    public func uniqueViolation(in error: any Error) -> String? {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" else { return nil }
        return error.serverInfo?[.constraintName] ?? "unique"
    }

    /// What PostgreSQL said (its message and SQLSTATE), not postgres-nio's generic description.
    public func message(of error: any Error) -> String {
        if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
            return message + " (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        return String(reflecting: error)
    }

    // MARK: Faults

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

extension SQLStore where Driver == PostgresDriver {
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
        let database = String(components.path.dropFirst())
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database.isEmpty ? nil : database, tls: tls)
        if let schema = query["search_path"] {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        self.init(configuration: configuration, sealer: sealer, logger: logger)
    }

    public convenience init(configuration: PostgresClient.Configuration, sealer: SecretSealer? = nil,
                            logger: Logger = Logger(label: "hearth.postgres")) {
        self.init(driver: PostgresDriver(configuration: configuration, logger: logger), sealer: sealer)
    }
}

public enum PostgresStoreError: Error, CustomStringConvertible {
    case invalidURL

    public var description: String {
        "expected a URL like postgres://user:password@host:5432/database"
    }
}
