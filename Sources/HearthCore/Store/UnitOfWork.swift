import Foundation
import Synchronization

/// Writes that commit together or not at all: what one sign-in records (the account it creates or stamps, its
/// refresh token, its audit event) is one write transaction, not three.
///
/// Built synchronously with ``IdentityStore/write(_:)`` (as GRDB's `write { db in }`), then handed to the store
/// whole, so no connection or lock is held while the caller works:
///
/// ```swift
/// let done = try await store.write { tx in
///     tx.stampSignIn(SignInStamp(projectID: "demo", tenantID: nil, localID: id, at: now, signedIn: true))
///     tx.insertRefreshToken(token, keepingLatest: 100)
///     tx.insertAuditEvent(event)
/// }
/// let stamped = done.stamped   // the account as the stamp left it
/// ```
public struct UnitOfWork: Sendable {
    public enum Change: Sendable {
        /// As ``IdentityStore/insertUser(_:uniqueEmail:)``.
        case insertUser(UserRecord, uniqueEmail: Bool)
        /// As ``IdentityStore/stampSignIn(_:)``, but a stamp that finds the account gone or its password changed
        /// undoes the whole unit (``StoreError/stale``).
        case stampSignIn(SignInStamp)
        /// A new session; with `keepingLatest`, the user's oldest refresh tokens beyond that many are revoked.
        case insertRefreshToken(RefreshTokenRecord, keepingLatest: Int?)
        case insertAuditEvent(AuditEvent)
        /// As ``IdentityStore/incrementRateCounter(key:windowStart:expiresAt:by:)``.
        case incrementRateCounter(key: String, windowStart: Date, expiresAt: Date, by: Int)
        /// Reads rate counters inside the unit (into ``Outcome/read``), as ``IdentityStore/rateCounters(_:)``.
        case readRateCounters([RateWindow])
        /// A condition on what the unit did so far: throwing undoes the whole unit and is rethrown as it was.
        case require(@Sendable (Outcome) throws -> Void)
    }

    public private(set) var changes: [Change] = []

    public init() {}

    public mutating func insertUser(_ user: UserRecord, uniqueEmail: Bool) {
        changes.append(.insertUser(user, uniqueEmail: uniqueEmail))
    }
    public mutating func stampSignIn(_ stamp: SignInStamp) { changes.append(.stampSignIn(stamp)) }
    public mutating func insertRefreshToken(_ token: RefreshTokenRecord, keepingLatest: Int? = nil) {
        changes.append(.insertRefreshToken(token, keepingLatest: keepingLatest))
    }
    public mutating func insertAuditEvent(_ event: AuditEvent) { changes.append(.insertAuditEvent(event)) }
    public mutating func incrementRateCounter(key: String, windowStart: Date, expiresAt: Date, by delta: Int = 1) {
        changes.append(.incrementRateCounter(key: key, windowStart: windowStart, expiresAt: expiresAt, by: delta))
    }
    public mutating func readRateCounters(_ windows: [RateWindow]) { changes.append(.readRateCounters(windows)) }
    /// Undoes the unit when `condition` throws on what it did so far (the counts it read and wrote, the stamp).
    public mutating func require(_ condition: @escaping @Sendable (Outcome) throws -> Void) {
        changes.append(.require(condition))
    }

    /// Whether the unit stores an audit event webhooks take: only then may a SQL store need its endpoints.
    public var storesWebhookEvent: Bool {
        changes.contains { if case .insertAuditEvent(let event) = $0 { WebhookEventType(auditKind: event.kind) != nil } else { false } }
    }

    /// What a committed unit reports back.
    public struct Outcome: Sendable, Equatable {
        /// The account as the unit's last stamp left it.
        public var stamped: UserRecord?
        /// The counts of the unit's rate counters after it, in order.
        public var counts: [Int] = []
        /// The counts its ``Change/readRateCounters(_:)`` read, in order.
        public var read: [Int] = []
        public init(stamped: UserRecord? = nil, counts: [Int] = [], read: [Int] = []) {
            self.stamped = stamped
            self.counts = counts
            self.read = read
        }
    }
}

extension UnitOfWorkStore {
    /// Builds a ``UnitOfWork`` and commits it in one write transaction.
    @discardableResult
    public func write(_ build: (inout UnitOfWork) throws -> Void) async throws -> UnitOfWork.Outcome {
        var work = UnitOfWork()
        try build(&work)
        guard !work.changes.isEmpty else { return UnitOfWork.Outcome() }
        return try await commit(work)
    }

    /// Inserts a new account (see ``UnitOfWork/Change/insertUser(_:uniqueEmail:)``).
    public func insertUser(_ user: UserRecord, uniqueEmail: Bool) async throws {
        try await write { $0.insertUser(user, uniqueEmail: uniqueEmail) }
    }

    /// Records a sign-in or a token refresh in place (``SignInStamp``): only its own fields are written, so it
    /// cannot undo a concurrent change. Returns the updated account, or `nil` when it is gone or its password hash
    /// is no longer the one the sign-in verified (the password changed meanwhile: the sign-in must fail).
    public func stampSignIn(_ stamp: SignInStamp) async throws -> UserRecord? {
        do {
            return try await write { $0.stampSignIn(stamp) }.stamped
        } catch StoreError.stale {
            return nil
        }
    }

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws {
        try await write { $0.insertRefreshToken(token) }
    }

    public func insertAuditEvent(_ event: AuditEvent) async throws {
        try await write { $0.insertAuditEvent(event) }
    }

    /// Counts one event under `key` in the fixed window that starts at `windowStart` (kept until `expiresAt`) and
    /// returns the window's count including it. Atomic: instances sharing the store share the counter.
    public func incrementRateCounter(key: String, windowStart: Date, expiresAt: Date, by delta: Int) async throws -> Int {
        try await write { $0.incrementRateCounter(key: key, windowStart: windowStart, expiresAt: expiresAt, by: delta) }
            .counts.first ?? delta
    }

}

extension OperationsStore {
    /// The count under `key` in the window that starts at `windowStart` (0 if none).
    public func rateCounter(key: String, windowStart: Date) async throws -> Int {
        try await rateCounters([RateWindow(key: key, start: windowStart)]).first ?? 0
    }
}
