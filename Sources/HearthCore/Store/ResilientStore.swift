import Foundation
import Synchronization

/// Wraps a store so that an outage gets a fast, clear answer and recovery is immediate:
///
/// - a call that the database cannot serve (``IdentityStore/isUnavailable(_:)``), or that a network store has not
///   answered within `timeout`, throws ``StoreError/unavailable(_:)`` (the server answers 503 `UNAVAILABLE`);
/// - then the circuit opens: for `probeInterval` every call fails at once instead of queueing behind a dead
///   connection, and the store is asked to ``IdentityStore/reconnect()``;
/// - after that one call at a time goes through as a probe; the first that succeeds closes the circuit.
///
/// ```swift
/// let store = ResilientStore(try PostgresStore(url: url), timeout: .seconds(5)) { event in print(event) }
/// ```
public final class ResilientStore: IdentityStore, Sendable {
    /// A change of the circuit, for the server's log and metrics.
    public enum Event: Sendable, Equatable {
        case unavailable(reason: String)
        case recovered(after: Duration)
    }

    public let base: any IdentityStore
    private let timeout: Duration?
    private let probeInterval: Duration
    private let onEvent: @Sendable (Event) -> Void
    /// Per-call latency, for metrics: operation, duration, whether it failed.
    private let onCall: (@Sendable (String, Duration, Bool) -> Void)?
    private let state = Mutex(Circuit())
    /// Whether the circuit is open: read without the lock on every call, so a healthy store costs one atomic load.
    private let open = Atomic<Bool>(false)

    private struct Circuit {
        /// While set, calls fail at once until this instant; then one probe goes through.
        var openUntil: ContinuousClock.Instant?
        var openedAt: ContinuousClock.Instant?
        var reason = ""
        /// The store cannot write but can read (a full disk): reads go through while the circuit is open.
        var readsServed = false
    }

    /// The calls that only read: served through an outage that spares reads.
    private static let reads: Set<String> = [
        "project", "userByID", "userByEmail", "tenant", "tenants", "users", "userByPhone", "userByIdentity",
        "usersByIdentityEmail", "queryUsers", "pending", "refreshToken", "actionCode", "outboxMessages",
        "outboxStatus", "outboxBacklog", "rateCounters", "auditEvents",
    ]

    /// `timeout` applies only to stores whose calls can hang (``IdentityStore/needsDeadline``).
    public init(_ base: any IdentityStore, timeout: Duration, probeInterval: Duration = .milliseconds(500),
                onCall: (@Sendable (String, Duration, Bool) -> Void)? = nil,
                onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.base = base
        self.timeout = base.needsDeadline ? timeout : nil
        self.probeInterval = probeInterval
        self.onCall = onCall
        self.onEvent = onEvent
    }

    /// Runs one store call through the circuit.
    private func call<T: Sendable>(_ operation: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let now = onCall == nil ? nil : ContinuousClock.now
        let isRead = Self.reads.contains(operation)
        if open.load(ordering: .relaxed) {
            let instant = ContinuousClock.now
            let refused: String? = state.withLock { circuit in
                guard let until = circuit.openUntil else { return nil }
                if isRead, circuit.readsServed { return nil }  // a full disk still reads
                if instant < until { return circuit.reason }
                circuit.openUntil = instant + probeInterval  // this call probes; others keep failing fast meanwhile
                return nil
            }
            if let refused { throw StoreError.unavailable(refused) }
        }
        do {
            let value: T
            if let timeout { value = try await withDeadline(timeout, body) } else { value = try await body() }
            if let now { onCall?(operation, ContinuousClock.now - now, false) }
            if open.load(ordering: .relaxed) { closeCircuit(byRead: isRead) }
            return value
        } catch let error as StoreError {
            if let now { onCall?(operation, ContinuousClock.now - now, true) }
            if case .unavailable(let reason) = error { await openCircuit(reason, sparesReads: false) }
            throw error
        } catch is DeadlineExceeded {
            if let now { onCall?(operation, ContinuousClock.now - now, true) }
            let reason = "no answer within \(timeout ?? .zero)"
            await openCircuit(reason, sparesReads: false)
            throw StoreError.unavailable(reason)
        } catch where base.isUnavailable(error) {
            if let now { onCall?(operation, ContinuousClock.now - now, true) }
            let reason = String(describing: error)
            await openCircuit(reason, sparesReads: !isRead && base.failureSparesReads(error))
            throw StoreError.unavailable(reason)
        } catch {
            if let now { onCall?(operation, ContinuousClock.now - now, true) }
            if open.load(ordering: .relaxed) { closeCircuit(byRead: isRead) }  // the database answered, with an error of the request's own
            throw error
        }
    }

    private func openCircuit(_ reason: String, sparesReads: Bool) async {
        let now = ContinuousClock.now
        let opened = state.withLock { circuit in
            let first = circuit.openedAt == nil
            circuit.readsServed = first ? sparesReads : circuit.readsServed && sparesReads
            circuit.openedAt = circuit.openedAt ?? now
            circuit.openUntil = now + probeInterval
            circuit.reason = reason
            return first
        }
        open.store(true, ordering: .relaxed)
        if opened { onEvent(.unavailable(reason: reason)) }
        await base.reconnect()
    }

    /// A read that succeeded proves nothing while only writes fail: then only a write closes the circuit.
    private func closeCircuit(byRead: Bool) {
        let since: ContinuousClock.Instant? = state.withLock { circuit in
            guard let opened = circuit.openedAt, !(byRead && circuit.readsServed) else { return nil }
            circuit = Circuit()
            open.store(false, ordering: .relaxed)
            return opened
        }
        if let since { onEvent(.recovered(after: ContinuousClock.now - since)) }
    }

    // MARK: Forwarding

    public func migrate() async throws { try await base.migrate() }
    public func close() async throws { try await base.close() }
    public func isUnavailable(_ error: any Error) -> Bool { base.isUnavailable(error) }
    public func failureSparesReads(_ error: any Error) -> Bool { base.failureSparesReads(error) }
    public func reconnect() async { await base.reconnect() }
    public var needsDeadline: Bool { base.needsDeadline }
    public var statementCounter: StatementCounter? { base.statementCounter }
    public func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
        try await call("commit") { [base] in try await base.commit(work) }
    }
    public func rateCounters(_ windows: [RateWindow]) async throws -> [Int] {
        try await call("rateCounters") { [base] in try await base.rateCounters(windows) }
    }

    public func project(id: String) async throws -> ProjectRecord? {
        try await call("project") { [base] in try await base.project(id: id) }
    }
    public func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord {
        try await call("createProject") { [base] in try await base.createProjectIfAbsent(project) }
    }
    public func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord {
        try await call("updateProject") { [base] in try await base.updateProject(project) }
    }
    public func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        try await call("userByID") { [base] in try await base.user(projectID: projectID, tenantID: tenantID, localID: localID) }
    }
    public func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        try await call("userByEmail") { [base] in try await base.user(projectID: projectID, tenantID: tenantID, email: email) }
    }
    public func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord {
        try await call("updateUser") { [base] in
            try await base.updateUser(user, uniqueEmail: uniqueEmail, revokeRefreshTokens: revokeRefreshTokens)
        }
    }
    public func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        try await call("deleteUser") { [base] in try await base.deleteUser(projectID: projectID, tenantID: tenantID, localID: localID) }
    }
    public func tenant(projectID: String, id: String) async throws -> TenantRecord? {
        try await call("tenant") { [base] in try await base.tenant(projectID: projectID, id: id) }
    }
    public func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord] {
        try await call("tenants") { [base] in try await base.tenants(projectID: projectID, after: id, limit: limit) }
    }
    public func insertTenant(_ tenant: TenantRecord) async throws {
        try await call("insertTenant") { [base] in try await base.insertTenant(tenant) }
    }
    public func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord {
        try await call("updateTenant") { [base] in try await base.updateTenant(tenant) }
    }
    public func deleteTenant(projectID: String, id: String) async throws -> Bool {
        try await call("deleteTenant") { [base] in try await base.deleteTenant(projectID: projectID, id: id) }
    }
    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await call("deleteAllUsers") { [base] in try await base.deleteAllUsers(projectID: projectID) }
    }
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        try await call("insertUsers") { [base] in try await base.insertUsers(users, uniqueEmail: uniqueEmail) }
    }
    public func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await call("users") { [base] in
            try await base.users(projectID: projectID, tenantID: tenantID, after: localID, limit: limit)
        }
    }
    public func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        try await call("userByPhone") { [base] in
            try await base.user(projectID: projectID, tenantID: tenantID, phoneNumber: phoneNumber)
        }
    }
    public func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        try await call("userByIdentity") { [base] in
            try await base.user(projectID: projectID, tenantID: tenantID, providerID: providerID, rawID: rawID)
        }
    }
    public func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord] {
        try await call("usersByIdentityEmail") { [base] in
            try await base.users(projectID: projectID, tenantID: tenantID, identityEmail: identityEmail, limit: limit)
        }
    }
    public func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        try await call("queryUsers") { [base] in try await base.queryUsers(projectID: projectID, query) }
    }
    public func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await call("useAssertionOnce") { [base] in try await base.useAssertionOnce(digest: digest, expiresAt: expiresAt, now: now) }
    }
    public func insertPending(_ record: PendingRecord, now: Date) async throws {
        try await call("insertPending") { [base] in try await base.insertPending(record, now: now) }
    }
    public func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        try await call("pending") { [base] in try await base.pending(projectID: projectID, digest: digest, now: now) }
    }
    public func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await call("consumePending") { [base] in try await base.consumePending(projectID: projectID, digest: digest) }
    }
    public func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        try await call("recordPendingAttempt") { [base] in try await base.recordPendingAttempt(projectID: projectID, digest: digest) }
    }
    public func refreshToken(projectID: String, digest: String) async throws -> RefreshTokenRecord? {
        try await call("refreshToken") { [base] in try await base.refreshToken(projectID: projectID, digest: digest) }
    }
    public func insertActionCode(_ code: ActionCodeRecord) async throws {
        try await call("insertActionCode") { [base] in try await base.insertActionCode(code) }
    }
    public func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await call("actionCode") { [base] in try await base.actionCode(projectID: projectID, digest: digest) }
    }
    public func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await call("consumeActionCode") { [base] in try await base.consumeActionCode(projectID: projectID, digest: digest) }
    }
    public func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int {
        try await call("deleteActionCodes") { [base] in
            try await base.deleteActionCodes(projectID: projectID, tenantID: tenantID, localID: localID)
        }
    }
    public func enqueueOutboxMessage(_ message: OutboxMessage) async throws {
        try await call("enqueueOutbox") { [base] in try await base.enqueueOutboxMessage(message) }
    }
    public func outboxMessages(projectID: String) async throws -> [OutboxMessage] {
        try await call("outboxMessages") { [base] in try await base.outboxMessages(projectID: projectID) }
    }
    public func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await call("claimOutbox") { [base] in try await base.claimOutboxMessages(dueAt: now, leaseUntil: leaseUntil, limit: limit) }
    }
    public func deleteOutboxMessage(id: String) async throws {
        try await call("deleteOutbox") { [base] in try await base.deleteOutboxMessage(id: id) }
    }
    public func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        try await call("rescheduleOutbox") { [base] in
            try await base.rescheduleOutboxMessage(id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
        }
    }
    public func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus] {
        try await call("outboxStatus") { [base] in try await base.outboxStatus(projectID: projectID, limit: limit) }
    }

    public func outboxBacklog() async throws -> (pending: Int, givenUp: Int) {
        let counts = try await call("outboxBacklog") { [base] in
            let backlog = try await base.outboxBacklog()
            return [backlog.pending, backlog.givenUp]
        }
        return (counts[0], counts[1])
    }
    public func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] {
        try await call("auditEvents") { [base] in try await base.auditEvents(projectID: projectID, query) }
    }
    public func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport {
        try await call("purge") { [base] in try await base.purge(housekeeping) }
    }
}
