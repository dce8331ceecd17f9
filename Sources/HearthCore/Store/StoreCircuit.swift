import Foundation
import Synchronization

/// What a ``StoreCircuit`` needs to know of the database behind a store.
public protocol StoreConnection: Sendable {
    /// Whether `error` (thrown by the store) means the database cannot be reached or written (down, disk full), as
    /// opposed to a fault in the request: the circuit answers those with ``StoreError/unavailable(_:)``.
    func isUnavailable(_ error: any Error) -> Bool
    /// Whether an unavailability leaves reads working (a full or read-only disk: the data is there, it cannot
    /// grow), so the circuit keeps serving reads (lookups, token checks) while it refuses writes.
    func failureSparesReads(_ error: any Error) -> Bool
    /// Drops connections and starts afresh (a pool that backs off after an outage would otherwise stay away long
    /// after the database is back).
    func reconnect() async
    /// Whether calls can hang (a network database) and need a deadline; a local file answers or fails at once.
    var needsDeadline: Bool { get }
    /// Where calls go since the last ``reconnect()``, for the log and metrics; nil for a local file.
    var target: StoreTarget? { get }
    /// OpenTelemetry's name for the database (`db.system.name`): `postgresql`, `sqlite`.
    var dbSystem: String { get }
    /// Whether the server calls go to is gone or no longer fit (a primary demoted): asked after a call ran out of time,
    /// so that a lost host is left at once rather than after the spacing meant for a slow one.
    func targetIsLost() async -> Bool
}

extension StoreConnection {
    /// What a store call's span says of the database: its system and, for a network database, its address.
    var spanAttributes: [String: String] {
        var attributes = ["db.system.name": dbSystem]
        if let target { attributes["server.address"] = target.address }
        return attributes
    }

    public var dbSystem: String { "other_sql" }

    /// A database that is down is down for reads too.
    public func failureSparesReads(_ error: any Error) -> Bool { false }
    public var target: StoreTarget? { nil }
    public func targetIsLost() async -> Bool { false }
}

/// The database server a networked store's calls go to, and what it said it is when asked.
public struct StoreTarget: Sendable, Equatable, CustomStringConvertible {
    public enum Role: String, Sendable {
        /// Takes writes.
        case primary
        /// A replica in recovery: reads only, until it is promoted.
        case standby
        /// Up, but writes are refused (`default_transaction_read_only`).
        case readOnly = "read-only"
        /// Did not answer; calls go there until a reconnect finds better.
        case unreachable
    }

    public var address: String
    public var role: Role

    public init(address: String, role: Role) {
        self.address = address
        self.role = role
    }

    public var description: String { "\(address) (\(role.rawValue))" }
}

/// Every call a SQL store makes to its database passes here, so an outage gets a fast, clear answer and recovery
/// is immediate, for every store method alike (no method is wrapped one by one):
///
/// - a call that the database cannot serve (``StoreConnection/isUnavailable(_:)``), or that a network database
///   has not answered within the configured timeout, throws ``StoreError/unavailable(_:)`` (the server answers
///   503 `UNAVAILABLE`);
/// - then the circuit opens: for `probeInterval` every call fails at once instead of queueing behind a dead
///   connection, and the store is asked to ``StoreConnection/reconnect()``. After a refused connection that is
///   every time; after a call that only ran out of time, at most once per `timeoutReconnectSpacing`: a database
///   that is merely slow would otherwise lose each fresh pool, with the connections it was still opening, to the
///   next slow call, and never come back while the load lasts;
/// - after that one call at a time goes through as a probe; the first that succeeds closes the circuit.
///
/// ```swift
/// store.circuit?.configure(timeout: .seconds(5), onEvent: { event in print(event) })
/// ```
public final class StoreCircuit: Sendable {
    /// A change of the circuit, for the server's log and metrics.
    public enum Event: Sendable, Equatable {
        case unavailable(reason: String)
        case recovered(after: Duration)
        /// The connections were replaced and now go to `target` (after a failover, the new primary).
        case reconnected(StoreTarget)
    }

    /// Set by the server once; read by every call.
    public struct Settings: Sendable {
        /// Applies only to connections whose calls can hang (``StoreConnection/needsDeadline``).
        public var timeout: Duration?
        public var probeInterval: Duration = .milliseconds(500)
        /// The least time between two reconnects caused by timeouts; by default three timeouts.
        public var timeoutReconnectSpacing: Duration?
        /// Per-call latency, for metrics: operation, duration, whether it failed.
        public var onCall: (@Sendable (String, Duration, Bool) -> Void)?
        public var onEvent: @Sendable (Event) -> Void = { _ in }
    }

    private let settings = Mutex(Settings())
    private let state = Mutex(Circuit())
    /// Whether the circuit is open: read without the lock on every call, so a healthy store costs one atomic load.
    private let open = Atomic<Bool>(false)
    private let refusals = Atomic<Int>(0)

    /// How many calls the open circuit has answered at once, without waiting on the database: what shows that an
    /// outage is answered fast, by count rather than by a clock.
    public var answeredWithoutDatabase: Int { refusals.load(ordering: .relaxed) }

    private struct Circuit {
        /// While set, calls fail at once until this instant; then one probe goes through.
        var openUntil: ContinuousClock.Instant?
        var openedAt: ContinuousClock.Instant?
        var reason = ""
        /// The store cannot write but can read (a full disk): reads go through while the circuit is open.
        var readsServed = false
        /// When a timeout last replaced the connections.
        var reconnectedAfterTimeout: ContinuousClock.Instant?
    }

    public init() {}

    public func configure(timeout: Duration?, probeInterval: Duration = .milliseconds(500),
                          timeoutReconnectSpacing: Duration? = nil,
                          onCall: (@Sendable (String, Duration, Bool) -> Void)? = nil,
                          onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        settings.withLock {
            $0 = Settings(timeout: timeout, probeInterval: probeInterval,
                          timeoutReconnectSpacing: timeoutReconnectSpacing ?? timeout.map { $0 * 3 },
                          onCall: onCall, onEvent: onEvent)
        }
    }

    /// A metric label for a store method: its name, and for the user lookups the key it looks up by
    /// (`user(projectID:tenantID:email:)` reads `user.email`).
    static func label(_ function: String) -> String {
        guard let open = function.firstIndex(of: "(") else { return function }
        let name = String(function[..<open])
        guard name == "user" || name == "users" else { return name }
        let labels = function[function.index(after: open)...].split(separator: ":").map(String.init)
        let key = labels.last(where: { !["projectID", "tenantID", "limit", ")"].contains($0) }) ?? ""
        return key.isEmpty ? name : name + "." + key
    }

    /// Runs one database call through the circuit.
    public func call<T: Sendable>(_ function: String, isRead: Bool, on connection: some StoreConnection,
                                  _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let settings = settings.withLock { $0 }
        let now = settings.onCall == nil ? nil : ContinuousClock.now
        func report(_ failed: Bool) {
            if let now { settings.onCall?(Self.label(function), ContinuousClock.now - now, failed) }
        }
        if open.load(ordering: .relaxed) {
            let instant = ContinuousClock.now
            let refused: String? = state.withLock { circuit in
                guard let until = circuit.openUntil else { return nil }
                if isRead, circuit.readsServed { return nil }  // a full disk still reads
                if instant < until { return circuit.reason }
                circuit.openUntil = instant + settings.probeInterval  // this call probes; others keep failing fast
                return nil
            }
            if let refused {
                refusals.add(1, ordering: .relaxed)
                throw StoreError.unavailable(refused)
            }
        }
        let timeout = connection.needsDeadline ? settings.timeout : nil
        do {
            let value: T = try await Traced.client("store " + Self.label(function), connection.spanAttributes) {
                if let timeout { return try await withDeadline(timeout, body) }
                return try await body()
            }
            report(false)
            if open.load(ordering: .relaxed) { closeCircuit(byRead: isRead, settings) }
            return value
        } catch let error as StoreError {
            report(true)
            if case .unavailable(let reason) = error { await openCircuit(reason, sparesReads: false, connection, settings) }
            throw error
        } catch is DeadlineExceeded {
            report(true)
            let reason = "no answer within \(timeout ?? .zero)"
            await openCircuit(reason, sparesReads: false, timedOut: true, connection, settings)
            throw StoreError.unavailable(reason)
        } catch where connection.isUnavailable(error) {
            report(true)
            let reason = String(describing: error)
            await openCircuit(reason, sparesReads: !isRead && connection.failureSparesReads(error), connection, settings)
            throw StoreError.unavailable(reason)
        } catch {
            report(true)
            // The database answered, with an error of the request's own.
            if open.load(ordering: .relaxed) { closeCircuit(byRead: isRead, settings) }
            throw error
        }
    }

    private func openCircuit(_ reason: String, sparesReads: Bool, timedOut: Bool = false,
                             _ connection: some StoreConnection, _ settings: Settings) async {
        let now = ContinuousClock.now
        let (opened, spaced) = state.withLock { circuit in
            let first = circuit.openedAt == nil
            circuit.readsServed = first ? sparesReads : circuit.readsServed && sparesReads
            circuit.openedAt = circuit.openedAt ?? now
            circuit.openUntil = now + settings.probeInterval
            circuit.reason = reason
            guard timedOut else { return (first, true) }
            if let last = circuit.reconnectedAfterTimeout, now - last < settings.timeoutReconnectSpacing ?? .zero {
                return (first, false)  // the fresh connections may still be opening: let them finish
            }
            circuit.reconnectedAfterTimeout = now
            return (first, true)
        }
        open.store(true, ordering: .relaxed)
        if opened { settings.onEvent(.unavailable(reason: reason)) }
        var reconnects = spaced
        if !reconnects, await connection.targetIsLost() {
            reconnects = true
            state.withLock { $0.reconnectedAfterTimeout = now }
        }
        if reconnects {
            await connection.reconnect()
            // The next probe goes a probe interval after the new connections are ready, not after the failure: a
            // reconnect that asks several hosts takes time of its own.
            let ready = ContinuousClock.now
            state.withLock { circuit in
                if let until = circuit.openUntil, until < ready + settings.probeInterval { circuit.openUntil = ready + settings.probeInterval }
            }
            if let target = connection.target { settings.onEvent(.reconnected(target)) }
        }
    }

    /// A read that succeeded proves nothing while only writes fail: then only a write closes the circuit.
    private func closeCircuit(byRead: Bool, _ settings: Settings) {
        let since: ContinuousClock.Instant? = state.withLock { circuit in
            guard let opened = circuit.openedAt, !(byRead && circuit.readsServed) else { return nil }
            circuit = Circuit(reconnectedAfterTimeout: circuit.reconnectedAfterTimeout)  // spacing outlives one outage
            open.store(false, ordering: .relaxed)
            return opened
        }
        if let since { settings.onEvent(.recovered(after: ContinuousClock.now - since)) }
    }
}
