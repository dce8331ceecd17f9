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

/// A `PostgresClient` pool on the host that should take Hearth's calls, replaced by ``reconnect()``.
///
/// With several hosts (``PostgresConnectionString``), each reconnect asks every host at once which role it has
/// (`pg_is_in_recovery()`, `transaction_read_only`) and keeps the first writable one in the order given: after a
/// failover that is the promoted standby, and a restarted old primary, now a standby, is passed over. The circuit
/// reconnects on a refused or cut connection, `admin_shutdown` and `read_only_sql_transaction`; reconnects asked for
/// while one is under way join it, so a burst of failures asks each host once. A fresh pool also matters with one
/// host: after an outage postgres-nio's pool backs off up to a minute between attempts, which would keep Hearth
/// away long after the database is back.
public final class PostgresDriver: SQLDriver, @unchecked Sendable {
    /// One configuration per host, in the connection string's order.
    private let candidates: [PostgresClient.Configuration]
    private let seeksPrimary: Bool
    private let pool: Mutex<Pool>
    let logger: Logger
    public var dialect: SQLDialect { .postgres }

    private struct Pool {
        var current: Task<Chosen, Never>
        var selecting = false
    }

    /// The host of the newest pool, set when its selection ends.
    private final class LastTarget: Sendable {
        let value = Mutex<StoreTarget?>(nil)
    }
    private let lastTarget = LastTarget()

    /// A running pool and the host it is on.
    private struct Chosen: Sendable {
        let client: PostgresClient
        let runner: Task<Void, Never>
        let target: StoreTarget
    }

    /// - Parameters:
    ///   - configurations: one per host, tried in this order.
    ///   - seeksPrimary: keep only a host that takes writes (`target_session_attrs=read-write`); otherwise the first
    ///     that answers.
    public init(configurations: [PostgresClient.Configuration], seeksPrimary: Bool = false,
                logger: Logger = Logger(label: "hearth.postgres")) {
        precondition(!configurations.isEmpty, "a driver needs at least one host")
        candidates = configurations.map { configuration in
            var configuration = configuration
            // A host that does not answer is given up on quickly; the circuit answers 503 meanwhile.
            configuration.options.connectTimeout = min(configuration.options.connectTimeout, .seconds(3))
            return configuration
        }
        self.seeksPrimary = seeksPrimary
        self.logger = logger
        let (candidates, logger, lastTarget) = (candidates, logger, lastTarget)
        pool = Mutex(Pool(current: Task {
            let chosen = await Self.choose(among: candidates, seeksPrimary: seeksPrimary, logger: logger)
            lastTarget.value.withLock { $0 = $0 ?? chosen.target }  // a reconnect may have set a newer one
            return chosen
        }))
    }

    public convenience init(configuration: PostgresClient.Configuration, logger: Logger = Logger(label: "hearth.postgres")) {
        self.init(configurations: [configuration], logger: logger)
    }

    var client: PostgresClient {
        get async { await pool.withLock { $0.current }.value.client }
    }

    public var target: StoreTarget? { lastTarget.value.withLock { $0 } }

    public func close() async throws {
        let runner = await pool.withLock { $0.current }.value.runner
        runner.cancel()
        _ = await runner.value
    }

    /// Asks the hosts again and moves to the one chosen; the old pool is shut down in the background.
    public func reconnect() async {
        let (candidates, seeksPrimary, logger) = (candidates, seeksPrimary, logger)
        let (selection, previous): (Task<Chosen, Never>, Task<Chosen, Never>?) = pool.withLock { pool in
            if pool.selecting { return (pool.current, nil) }  // one under way: its answer is as fresh as ours
            let previous = pool.current
            pool.current = Task { await Self.choose(among: candidates, seeksPrimary: seeksPrimary, logger: logger) }
            pool.selecting = true
            return (pool.current, previous)
        }
        let chosen = await selection.value
        guard let previous else { return }
        pool.withLock { $0.selecting = false }
        lastTarget.value.withLock { $0 = chosen.target }
        await previous.value.runner.cancel()
    }

    /// Starts a pool on every candidate at once, asks each its role, keeps the first that fits and stops the others.
    /// None fits (all down, or no primary yet mid-failover): the first host, whose calls fail and reconnect again.
    private static func choose(among candidates: [PostgresClient.Configuration], seeksPrimary: Bool,
                               logger: Logger) async -> Chosen {
        let started = candidates.map { configuration in
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            return (client, Task { await client.run() }, configuration)
        }
        let roles = await withTaskGroup(of: (Int, StoreTarget.Role).self) { group in
            for (index, (client, _, configuration)) in started.enumerated() {
                group.addTask { (index, await role(of: client, within: configuration.options.connectTimeout + .seconds(1))) }
            }
            return await group.reduce(into: Array(repeating: StoreTarget.Role.unreachable, count: started.count)) { $0[$1.0] = $1.1 }
        }
        let index = roles.firstIndex(of: .primary)
            ?? (seeksPrimary ? nil : roles.firstIndex { $0 != .unreachable }) ?? 0
        for (other, (_, runner, _)) in started.enumerated() where other != index { runner.cancel() }
        let (client, runner, configuration) = started[index]
        let address = PostgresConnectionString.Host(name: configuration.host ?? configuration.unixSocketPath ?? "?",
                                                    port: configuration.port ?? 5432).description
        return Chosen(client: client, runner: runner, target: StoreTarget(address: address, role: roles[index]))
    }

    /// What the server at the other end of `client` is: libpq's `read-write` test, in one query.
    private static func role(of client: PostgresClient, within timeout: Duration) async -> StoreTarget.Role {
        do {
            return try await withDeadline(timeout) {
                let rows = try await client.query(
                    "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'")
                for try await (recovering, readOnly) in rows.decode((Bool, Bool).self) {
                    return recovering ? .standby : readOnly ? .readOnly : .primary
                }
                return .unreachable
            }
        } catch {
            return .unreachable
        }
    }

    public func read(_ statement: SQL) async throws -> [SQLRow] {
        try await Self.rows(client.query(Self.query(statement), logger: logger))
    }

    public func execute(_ statement: SQL) async throws -> [SQLRow] {
        let rows = try await read(statement)  // outside a transaction, a statement is a transaction of its own
        wrote()
        return rows
    }

    /// A write went through: the host takes writes now, whatever it was when last asked (a standby kept because no
    /// host was primary mid-failover, then promoted).
    private func wrote() {
        lastTarget.value.withLock { target in
            if target != nil, target?.role != .primary { target?.role = .primary }
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        let logger = logger
        do {
            let value = try await client.withTransaction(logger: logger) { try await body(Connection(db: $0, logger: logger)) }
            wrote()
            return value
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
                // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections,
                // 25006 read_only_sql_transaction (the host was demoted to a standby: the reconnect finds the new
                // primary).
                let state = error.serverInfo?[.sqlState] ?? ""
                return ["57P01", "57P02", "57P03", "53300", "25006"].contains(state) || state.hasPrefix("08")
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
    /// Connects with a `postgres://user:password@host:port/database[?sslmode=require][&search_path=schema]` URL, with
    /// several hosts where PostgreSQL fails over (`host1:5432,host2:5432/db?target_session_attrs=read-write`, see
    /// ``PostgresConnectionString``). With `sealer`, private keys and TOTP secrets are sealed at rest (``RecordCodec``).
    public convenience init(url: String, sealer: SecretSealer? = nil, logger: Logger = Logger(label: "hearth.postgres")) throws {
        let parsed = try PostgresConnectionString(url)
        let tls: PostgresClient.Configuration.TLS
        switch parsed.sslmode {
        case "require", "verify-full", "verify-ca": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        let configurations = parsed.hosts.map { host in
            var configuration = PostgresClient.Configuration(
                host: host.name, port: host.port, username: parsed.username, password: parsed.password,
                database: parsed.database, tls: tls)
            if let schema = parsed.searchPath {
                configuration.options.additionalStartupParameters = [("search_path", schema)]
            }
            return configuration
        }
        self.init(driver: PostgresDriver(configurations: configurations, seeksPrimary: parsed.target == .readWrite,
                                         logger: logger), sealer: sealer)
    }

    public convenience init(configuration: PostgresClient.Configuration, sealer: SecretSealer? = nil,
                            logger: Logger = Logger(label: "hearth.postgres")) {
        self.init(driver: PostgresDriver(configuration: configuration, logger: logger), sealer: sealer)
    }
}

public enum PostgresStoreError: Error, CustomStringConvertible {
    case invalidURL
    case unsupported(String)

    public var description: String {
        switch self {
        case .invalidURL:
            "expected a URL like postgres://user:password@host:5432/database (or host1:5432,host2:5432 for several hosts)"
        case .unsupported(let reason): "in the PostgreSQL URL: \(reason)"
        }
    }
}
