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
    /// A host: the pool's configuration, and the single connection that asks its role (nil: never asked).
    struct Candidate: Sendable {
        var pool: PostgresClient.Configuration
        var probe: PostgresConnection.Configuration?
    }

    /// In the connection string's order.
    private let candidates: [Candidate]
    private let seeksPrimary: Bool
    private let state: Mutex<State>
    let logger: Logger
    public var dialect: SQLDialect { .postgres }

    /// Calls use `chosen`; a reconnect's selection runs beside it and replaces it when done, so no call waits on the
    /// hosts being asked (only the very first calls wait for the first answer).
    private struct State {
        var chosen: Chosen?
        var selection: Task<Chosen, Never>?
        var target: StoreTarget?
    }

    /// A running pool and the host it is on; no pool when no host answered.
    private struct Chosen: Sendable {
        let client: PostgresClient?
        let runner: Task<Void, Never>?
        let target: StoreTarget?
        /// When the pool last lent a connection (uptime nanoseconds): a pool that lends is alive.
        let lent = Lent()

        final class Lent: Sendable {
            let at = Atomic<UInt64>(0)
            func now() { at.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
            var recently: Bool { DispatchTime.now().uptimeNanoseconds &- at.load(ordering: .relaxed) < 1_000_000_000 }
        }
    }

    /// Every host was asked and none answered: calls fail at once (503) and the circuit asks again at its next probe,
    /// instead of waiting on a pool that retries a dead host with growing pauses.
    public struct NoHostAnswered: Error, CustomStringConvertible {
        public let hosts: [String]
        public var description: String { "no PostgreSQL host answered (\(hosts.joined(separator: ", ")))" }
    }

    /// - Parameters:
    ///   - candidates: the hosts, tried in this order.
    ///   - seeksPrimary: keep only a host that takes writes (`target_session_attrs=read-write`); otherwise the first
    ///     that answers.
    init(candidates: [Candidate], seeksPrimary: Bool, logger: Logger) {
        precondition(!candidates.isEmpty, "a driver needs at least one host")
        self.candidates = candidates.map { candidate in
            var candidate = candidate
            // A host that does not answer is given up on quickly; the circuit answers 503 meanwhile.
            candidate.pool.options.connectTimeout = min(candidate.pool.options.connectTimeout, .seconds(3))
            candidate.probe?.options.connectTimeout = .seconds(3)
            return candidate
        }
        self.seeksPrimary = seeksPrimary
        self.logger = logger
        let (candidates, logger) = (self.candidates, logger)
        // At start a database may still be starting: the first choice is asked again while no host answers, for up
        // to a minute, and the first calls wait for it. Later choices (after a failure) are asked once, so calls fail
        // fast while the circuit probes.
        state = Mutex(State(selection: Task {
            let deadline = ContinuousClock.now + .seconds(60)
            var chosen = await Self.choose(among: candidates, seeksPrimary: seeksPrimary, logger: logger)
            while chosen.client == nil, ContinuousClock.now < deadline, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                chosen = await Self.choose(among: candidates, seeksPrimary: seeksPrimary, logger: logger)
            }
            return chosen
        }))
    }

    /// One host, whose role is not asked.
    public convenience init(configuration: PostgresClient.Configuration, logger: Logger = Logger(label: "hearth.postgres")) {
        self.init(candidates: [Candidate(pool: configuration, probe: nil)], seeksPrimary: false, logger: logger)
    }

    private func chosen() async -> Chosen {
        let (chosen, selection) = state.withLock { ($0.chosen, $0.selection) }
        if let chosen { return chosen }
        guard let selection else { preconditionFailure("a driver has a pool or is choosing one") }
        return await install(selection)
    }

    /// The selection's pool, unless another caller installed it first; the pool it replaces is shut down. A pool on
    /// the same host, in the same role, that lent a connection within the last second is kept instead: replacing a
    /// working pool would fail the calls waiting on it, and their failures would ask for yet another pool. One that
    /// stopped lending (postgres-nio backing off from a host that was down) is replaced.
    @discardableResult
    private func install(_ selection: Task<Chosen, Never>) async -> Chosen {
        let fresh = await selection.value
        let (installed, dropped): (Chosen, Chosen?) = state.withLock { state in
            guard state.selection == selection else { return (state.chosen ?? fresh, nil) }
            state.selection = nil
            state.target = fresh.target
            if let current = state.chosen, current.client != nil, current.target == fresh.target, current.lent.recently {
                return (current, fresh)
            }
            let replaced = state.chosen
            state.chosen = fresh
            return (fresh, replaced)
        }
        dropped?.runner?.cancel()
        return installed
    }

    public var target: StoreTarget? { state.withLock { $0.target } }

    public func close() async throws {
        let (chosen, selection) = state.withLock { ($0.chosen, $0.selection) }
        for runner in [chosen?.runner, await selection?.value.runner].compactMap({ $0 }) {
            runner.cancel()
            _ = await runner.value
        }
    }

    /// Asks the hosts again and moves to the one chosen. A reconnect asked for while one is under way joins it.
    public func reconnect() async {
        let (candidates, seeksPrimary, logger) = (candidates, seeksPrimary, logger)
        let selection = state.withLock { state in
            if let running = state.selection { return running }
            let started = Task { await Self.choose(among: candidates, seeksPrimary: seeksPrimary, logger: logger) }
            state.selection = started
            return started
        }
        await install(selection)
    }

    /// A fresh pool on the host calls go to now, without asking the hosts again; the old pool's connections close.
    /// For tests that need every connection ended (PostgreSQL reports a session's counts when it ends).
    public func replacePool() async {
        let (logger, candidates) = (logger, candidates)
        let replaced: Chosen? = state.withLock { state in
            let address = state.chosen?.target?.address
            let candidate = candidates.first { Self.address(of: $0.pool) == address } ?? candidates[0]
            let client = PostgresClient(configuration: candidate.pool, backgroundLogger: Self.quiet(logger))
            let replaced = state.chosen
            state.chosen = Chosen(client: client, runner: Task { await client.run() }, target: replaced?.target)
            return replaced
        }
        replaced?.runner?.cancel()
    }

    /// Asks the current host its role again (a connection of its own): gone, or no longer taking writes when that is
    /// what is sought. A host that answers as before is only slow, and keeps its pool.
    public func targetIsLost() async -> Bool {
        guard let address = target?.address,
              let candidate = candidates.first(where: { Self.address(of: $0.pool) == address }), let probe = candidate.probe
        else { return false }
        let role = await Self.role(probing: probe, logger: logger)
        return role == .unreachable || (seeksPrimary && role != .primary)
    }

    /// Asks every candidate its role at once (one connection each, closed after), keeps the first that fits and
    /// starts a pool on it. No primary (all down, or mid-failover before one is promoted): with `seeksPrimary`, the
    /// first standby that answers, so reads go on while writes answer 503 and reconnect again.
    private static func choose(among candidates: [Candidate], seeksPrimary: Bool, logger: Logger) async -> Chosen {
        let roles = await withTaskGroup(of: (Int, StoreTarget.Role?).self) { group in
            for (index, candidate) in candidates.enumerated() {
                guard let probe = candidate.probe else { continue }
                group.addTask { (index, await role(probing: probe, logger: logger)) }
            }
            var roles = [StoreTarget.Role?](repeating: nil, count: candidates.count)
            for await (index, role) in group { roles[index] = role }
            return roles
        }
        let answering = roles.firstIndex { role in
            guard let role, role != .unreachable else { return false }
            return !seeksPrimary || role == .standby
        }
        if roles.allSatisfy({ $0 == .unreachable }) {
            return Chosen(client: nil, runner: nil, target: StoreTarget(address: address(of: candidates[0].pool), role: .unreachable))
        }
        let index = roles.firstIndex(of: .primary) ?? answering ?? 0
        let client = PostgresClient(configuration: candidates[index].pool, backgroundLogger: Self.quiet(logger))
        return Chosen(client: client, runner: Task { await client.run() },
                      target: roles[index].map { StoreTarget(address: address(of: candidates[index].pool), role: $0) })
    }

    /// postgres-nio's own log at `warning` and above: at `info` it logs every failed connection attempt, a line per
    /// retry for as long as a database is down, which buried Hearth's one clear line about the outage.
    static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        return quiet
    }

    private static func address(of configuration: PostgresClient.Configuration) -> String {
        PostgresConnectionString.Host(name: configuration.host ?? configuration.unixSocketPath ?? "?",
                                      port: configuration.port ?? 5432).description
    }

    /// What the server is: libpq's `read-write` test, in one query on a connection of its own.
    private static func role(probing configuration: PostgresConnection.Configuration, logger: Logger) async -> StoreTarget.Role {
        do {
            // Beyond the 3 s connect timeout, time for a loaded server to authenticate and answer.
            return try await withDeadline(.seconds(10)) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet(logger))
                do {
                    var role = StoreTarget.Role.unreachable
                    let rows = try await connection.query(
                        "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'", logger: logger)
                    for try await (recovering, readOnly) in rows.decode((Bool, Bool).self) {
                        role = recovering ? .standby : readOnly ? .readOnly : .primary
                    }
                    try? await connection.close()
                    return role
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        } catch {
            return .unreachable
        }
    }

    public func read(_ statement: SQL) async throws -> [SQLRow] {
        let (query, logger) = (Self.query(statement), logger)
        return try await withConnection { try await Self.rows($0.query(query, logger: logger)) }
    }

    /// `body` on a connection of the pool. While the pool has not lent one for a second, the driver asks whether its
    /// host is lost: postgres-nio's pool waits for a connection to a dead host without end (retrying with growing
    /// pauses), so after a primary is killed the call would otherwise hang to the store's deadline. A lost host fails
    /// the call at once as unavailable, and the circuit reconnects. A host that answers is only busy: the call waits.
    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let chosen = await chosen()
        guard let client = chosen.client else { throw NoHostAnswered(hosts: candidates.map { Self.address(of: $0.pool) }) }
        let leased = Flag()
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>.self) { group in
            group.addTask {
                .done(try await client.withConnection { connection in
                    leased.value.store(true, ordering: .relaxed)
                    chosen.lent.now()
                    return try await body(connection)
                })
            }
            group.addTask { [self] in
                try await Task.sleep(for: .seconds(1))
                while !leased.value.load(ordering: .relaxed) {
                    let replaced = state.withLock { $0.chosen?.client !== client }  // its pool was shut down
                    if replaced { throw HostLost(address: chosen.target?.address ?? "?") }
                    if await targetIsLost() { throw HostLost(address: chosen.target?.address ?? "?") }
                    try await Task.sleep(for: .seconds(1))
                }
                return .watching
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if case .done(let value) = outcome { return value }
            }
            throw CancellationError()
        }
    }

    private enum LeaseOutcome<T: Sendable>: Sendable {
        case done(T)
        case watching
    }

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// The host calls went to stopped answering, or stopped taking writes, while a call waited for a connection.
    public struct HostLost: Error, CustomStringConvertible {
        public let address: String
        public var description: String { "PostgreSQL at \(address) was lost (no connection, or no longer the primary)" }
    }

    public func execute(_ statement: SQL) async throws -> [SQLRow] {
        let rows = try await read(statement)  // outside a transaction, a statement is a transaction of its own
        wrote()
        return rows
    }

    /// A write went through: the host takes writes now, whatever it was when last asked (a standby kept because no
    /// host was primary mid-failover, then promoted).
    private func wrote() {
        state.withLock { state in
            if state.target != nil, state.target?.role != .primary { state.target?.role = .primary }
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        let logger = logger
        do {
            let value = try await withConnection { connection in
                try await connection.withTransaction(logger: logger) { try await body(Connection(db: $0, logger: logger)) }
            }
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
        if String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") || error is NoHostAnswered || error is HostLost { return true }
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
        let tls: (pool: PostgresClient.Configuration.TLS, probe: PostgresConnection.Configuration.TLS)
        switch parsed.sslmode {
        case "require", "verify-full", "verify-ca":
            tls = (.require(.makeClientConfiguration()), .require(try NIOSSLContext(configuration: .makeClientConfiguration())))
        case "prefer":
            tls = (.prefer(.makeClientConfiguration()), .prefer(try NIOSSLContext(configuration: .makeClientConfiguration())))
        default: tls = (.disable, .disable)
        }
        let candidates = parsed.hosts.map { host in
            var pool = PostgresClient.Configuration(
                host: host.name, port: host.port, username: parsed.username, password: parsed.password,
                database: parsed.database, tls: tls.pool)
            var probe = PostgresConnection.Configuration(
                host: host.name, port: host.port, username: parsed.username, password: parsed.password,
                database: parsed.database, tls: tls.probe)
            if let schema = parsed.searchPath {
                pool.options.additionalStartupParameters = [("search_path", schema)]
                probe.options.additionalStartupParameters = [("search_path", schema)]
            }
            return PostgresDriver.Candidate(pool: pool, probe: probe)
        }
        self.init(driver: PostgresDriver(candidates: candidates, seeksPrimary: parsed.target == .readWrite, logger: logger),
                  sealer: sealer)
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
