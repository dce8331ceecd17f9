import Foundation

/// The persistent home of projects, users and refresh tokens.
///
/// Narrow and domain-shaped: every method is one atomic change or one lookup, returns domain types and never
/// driver rows. Implementations: ``InMemoryStore`` (tests, `memory:`), `SQLiteStore`, `PostgresStore`. All three
/// pass the same contract suite (`HearthStoreContract`).
///
/// ```swift
/// let store: any IdentityStore = InMemoryStore()
/// try await store.migrate()
/// try await store.insertUser(user)          // throws StoreError.emailExists on a taken email
/// let found = try await store.user(projectID: "demo", tenantID: nil, email: "a@b.c")
/// ```
public protocol IdentityStore: Sendable {
    /// Brings the schema up to date; forward-only, each step recorded in the database.
    func migrate() async throws
    /// Releases connections. The store cannot be used afterwards.
    func close() async throws

    func project(id: String) async throws -> ProjectRecord?
    /// Creates the project unless one with that id exists; returns the stored one either way.
    func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord
    /// Replaces the project if nobody wrote it since `project` was read: the stored ``ProjectRecord/version`` must
    /// equal `project.version`, and the write moves it on by one. Returns what is now stored. Throws
    /// ``StoreError/conflict`` when another write came first (nothing is written), ``StoreError/notFound`` when
    /// there is no such project. Changes go through `ProjectDirectory.modify`, which reads again and retries.
    @discardableResult
    func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord

    func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord?
    /// The first account (by creation) with this email, compared case-insensitively.
    func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord?
    /// Commits a ``UnitOfWork`` in one write transaction: every change or none. `insertUser` throws
    /// ``StoreError/emailExists`` when `uniqueEmail` is set and another account of the project has the email,
    /// ``StoreError/duplicateLocalID`` when the id is taken, ``StoreError/identityLinked`` when one of its linked
    /// identities belongs to another account (each identity has one owner, enforced by the store, so two
    /// simultaneous first sign-ins cannot both create an account for it); a stamp that fails its condition throws
    /// ``StoreError/stale``. A refused change leaves nothing of the unit behind.
    func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome
    /// The counts of several rate-limit windows in one query (0 where there is none), in order.
    func rateCounters(_ windows: [RateWindow]) async throws -> [Int]
    /// Replaces a stored account if nobody wrote it since `user` was read: the stored ``UserRecord/version`` must
    /// equal `user.version`, and the write moves it on by one. Returns what is now stored. With
    /// `revokeRefreshTokens`, drops the user's refresh tokens in the same change. Throws ``StoreError/conflict``
    /// when the versions differ (nothing is written), ``StoreError/notFound`` if the account is gone and
    /// ``StoreError/emailExists`` as `insertUser` does. Use-cases go through `AccountService.modifyUser`, which
    /// reads again and retries.
    @discardableResult
    func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord
    /// Deletes an account and its refresh tokens; `false` if there was none.
    @discardableResult
    func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool
    /// Deletes every account of a project (the emulator's reset); returns how many.
    @discardableResult
    func deleteAllUsers(projectID: String) async throws -> Int
    /// Inserts a batch (imports) in as few transactions as the backend allows. Returns, by index, the users refused
    /// (``StoreError/duplicateLocalID`` or ``StoreError/emailExists``); every other user is stored, and a refused
    /// one leaves nothing behind.
    func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError]
    /// A page of a project's own users (no tenant) in `localId` byte order, starting after `localID`: what export
    /// and `accounts:batchGet` walk through.
    func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord]

    /// The first account (by creation) with this E.164 phone number.
    func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord?
    /// The account with this linked identity (`providerUserInfo` entry), if any.
    func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord?
    /// Accounts with a linked identity whose email is this one (any case), oldest first, at most `limit`.
    func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord]
    /// `accounts:query` over a project's own users.
    func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult

    /// A project's tenant, if it exists.
    func tenant(projectID: String, id: String) async throws -> TenantRecord?
    /// A project's tenants in id order, after `id`, at most `limit`.
    func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord]
    /// Adds a tenant (its `version` is stored as given); ``StoreError/conflict`` when the id is taken.
    func insertTenant(_ tenant: TenantRecord) async throws
    /// Replaces a tenant if it is still at `tenant.version`, and returns it at the next version:
    /// ``StoreError/conflict`` when another write came first, ``StoreError/notFound`` when it is gone.
    func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord
    /// Removes a tenant with its users and their tokens, codes and identities; `false` if there was none.
    func deleteTenant(projectID: String, id: String) async throws -> Bool

    /// Records a one-time credential (an admin assertion's `jti`) until `expiresAt`: `true` the first time,
    /// `false` if it was already used. Forgotten entries past their expiry are dropped along the way.
    func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool

    /// Stores a pending secret (by digest) after sweeping expired ones; a live one with the same digest is
    /// ``StoreError/pendingExists`` and stays as it was.
    func insertPending(_ record: PendingRecord, now: Date) async throws
    /// Reads a pending secret that has not expired.
    func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord?
    /// Deletes and returns a pending secret in one step: of concurrent uses exactly one gets it.
    func consumePending(projectID: String, digest: String) async throws -> PendingRecord?
    /// Counts one wrong attempt atomically; returns the new count, or `nil` if the secret is gone.
    func recordPendingAttempt(projectID: String, digest: String) async throws -> Int?

    func refreshToken(projectID: String, digest: String) async throws -> RefreshTokenRecord?

    func insertActionCode(_ code: ActionCodeRecord) async throws
    /// Reads a code without using it (`resetPassword` with `oobCode` alone).
    func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord?
    /// Deletes and returns a code in one step: of concurrent redemptions exactly one gets it.
    func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord?
    /// Deletes the outstanding codes of one account (its email changed: codes sent to the old address end), except
    /// RECOVER_EMAIL codes — an owner's way back must outlive further changes by whoever took the account. Returns
    /// how many.
    @discardableResult
    func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int

    func enqueueOutboxMessage(_ message: OutboxMessage) async throws
    /// Pending messages of a project, oldest first.
    func outboxMessages(projectID: String) async throws -> [OutboxMessage]
    /// Leases up to `limit` messages due at `now` (oldest due first) until `leaseUntil`: a leased message is not
    /// handed out again before then, so several instances sharing a store never send one message twice at once,
    /// and a message whose sender died mid-delivery is retried when the lease runs out.
    func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery]
    /// Removes a delivered message, leaving no copy of its code where the backend can avoid one (SQLite overwrites the
    /// row and empties its write-ahead log).
    func deleteOutboxMessage(id: String) async throws
    /// Records a failed attempt: the message is due again at `nextAttemptAt`, or never (`nil`: given up; it stays
    /// in the table with its last error for an operator to see, its code and link blanked: an undelivered code is
    /// nobody's, and a retry sends a new one).
    func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws
    /// Messages not yet delivered: due now or later, and given up (`nextAttemptAt` nil), for the backlog metrics.
    func outboxBacklog() async throws -> (pending: Int, givenUp: Int)
    /// A project's queued messages with their delivery state, oldest first, at most `limit`.
    func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus]


    /// A project's audit events, newest first, filtered and paged by `query`.
    func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent]

    /// Removes what has expired (see ``Housekeeping``) and refresh tokens revoked by their user's `validSince`.
    func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport

    /// Whether `error` (thrown by this store) means the database cannot be reached or written (down, disk full),
    /// as opposed to a fault in the request: ``ResilientStore`` answers those with ``StoreError/unavailable(_:)``.
    func isUnavailable(_ error: any Error) -> Bool
    /// Whether an unavailability leaves reads working (a full or read-only disk: the data is there, it cannot grow),
    /// so ``ResilientStore`` keeps serving reads (lookups, token checks) while it refuses writes.
    func failureSparesReads(_ error: any Error) -> Bool
    /// Drops connections and starts afresh (a pool that backs off after an outage would otherwise stay away long
    /// after the database is back). No-op for stores without connections.
    func reconnect() async
    /// Whether calls can hang (a network database) and need a deadline; a local file answers or fails at once.
    var needsDeadline: Bool { get }
    /// Counts reads and write transactions, where the store keeps count (SQL stores).
    var statementCounter: StatementCounter? { get }
}

extension IdentityStore {
    public func isUnavailable(_ error: any Error) -> Bool { false }
    public func failureSparesReads(_ error: any Error) -> Bool { false }
    /// The project's own users (no tenant's), in `localId` order.
    public func users(projectID: String, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await users(projectID: projectID, tenantID: nil, after: localID, limit: limit)
    }
    public func reconnect() async {}
    public var needsDeadline: Bool { false }
    public var statementCounter: StatementCounter? { nil }

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

/// Failures a store reports in domain terms; anything else it throws is an internal fault.
public enum StoreError: Error, Equatable, Sendable {
    case emailExists
    case duplicateLocalID
    case notFound
    /// A linked identity (provider + raw id) already belongs to another account.
    case identityLinked
    /// A pending secret with this digest exists and has not expired (a client-chosen session id used twice).
    case pendingExists
    /// The account was written by someone else since it was read (its version moved): read it again.
    case conflict
    /// A stamp found the account gone, or its password changed since the sign-in verified it: the unit of work
    /// that carried it is undone.
    case stale
    /// The database cannot be reached or written just now (down, unreachable, disk full); why, for the log.
    case unavailable(String)
}

/// What a sign-in (or a token refresh) records on an account, written in place by
/// ``IdentityStore/stampSignIn(_:)`` or within a ``UnitOfWork``.
///
/// ```swift
/// let stamped = try await store.stampSignIn(SignInStamp(
///     projectID: "demo", tenantID: nil, localID: user.localID, at: now, signedIn: true,
///     verifiedPasswordHash: user.passwordHash, rehash: nil))
/// if stamped == nil { /* the password changed while this sign-in hashed: refuse it */ }
/// ```
public struct SignInStamp: Sendable, Equatable {
    public var projectID: String
    public var tenantID: String?
    public var localID: String
    /// Written to `lastRefreshAt`, and to `lastLoginAt` for a sign-in.
    public var at: Date
    /// `false` for a token refresh: only `lastRefreshAt` moves.
    public var signedIn: Bool
    /// The hash the password was verified against: nothing is written (and `nil` returned) unless the stored
    /// hash is still this one. `nil` sets no condition (a sign-in without a password).
    public var verifiedPasswordHash: String?
    /// A new hash of the same password (an imported algorithm upgraded), written with the stamp.
    public var rehash: String?
    /// Nothing is written (and `nil` returned) when the account was disabled meanwhile.
    public var refuseDisabled = false

    public init(projectID: String, tenantID: String?, localID: String, at: Date, signedIn: Bool,
                verifiedPasswordHash: String? = nil, rehash: String? = nil) {
        self.projectID = projectID
        self.tenantID = tenantID
        self.localID = localID
        self.at = at
        self.signedIn = signedIn
        self.verifiedPasswordHash = verifiedPasswordHash
        self.rehash = rehash
    }

    /// Applies the stamp to a record read inside the store's own atomic step (the in-memory store); `false`
    /// when the password condition fails.
    public func apply(to user: inout UserRecord) -> Bool {
        if let verified = verifiedPasswordHash, user.passwordHash != verified { return false }
        if refuseDisabled, user.disabled { return false }
        user.lastRefreshAt = at
        if signedIn { user.lastLoginAt = at }
        if let rehash { user.passwordHash = rehash }
        user.version = (user.version ?? 0) + 1
        return true
    }
}

extension IdentityStore {
    /// Counts one event: ``incrementRateCounter(key:windowStart:expiresAt:by:)`` by one.
    @discardableResult
    public func incrementRateCounter(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        try await incrementRateCounter(key: key, windowStart: windowStart, expiresAt: expiresAt, by: 1)
    }
}

extension IdentityStore {
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
