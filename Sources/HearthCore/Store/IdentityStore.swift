import Foundation

/// The persistent home of projects, users and refresh tokens, by concern: ``UserStore``, ``SecretStore``,
/// ``ConfigStore``, ``OutboxStore``, ``WebhookStore`` and ``OperationsStore``; a use case that needs one concern takes that one.
///
/// Narrow and domain-shaped: every method is one atomic change or one lookup, returns domain types and never
/// driver rows; several writes that belong together go in one ``UnitOfWork``. Implementations: ``InMemoryStore`` (tests, `memory:`), `SQLiteStore`, `PostgresStore`. All three
/// pass the same contract suite (`HearthStoreContract`).
///
/// ```swift
/// let store: any IdentityStore = InMemoryStore()
/// try await store.migrate()
/// try await store.insertUser(user)          // throws StoreError.emailExists on a taken email
/// let found = try await store.user(projectID: "demo", tenantID: nil, email: "a@b.c")
/// ```
public protocol IdentityStore: UserStore, SecretStore, ConfigStore, OutboxStore, OperationsStore, WebhookStore,
    UnitOfWorkStore {
    /// Brings the schema up to date; forward-only, each step recorded in the database.
    func migrate() async throws
    /// Releases connections. The store cannot be used afterwards.
    func close() async throws
    /// Counts reads and write transactions, where the store keeps count (SQL stores).
    var statementCounter: StatementCounter? { get }
    /// The circuit every call of the store passes (SQL stores): an outage answers at once instead of queueing.
    var circuit: StoreCircuit? { get }
}

extension IdentityStore {
    /// The project's own users (no tenant's), in `localId` order.
    public func users(projectID: String, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await users(projectID: projectID, tenantID: nil, after: localID, limit: limit)
    }
    public var statementCounter: StatementCounter? { nil }
    public var circuit: StoreCircuit? { nil }

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
    /// A custom-token sign-in: marks the account `customAuth`, so it is not anonymous (``UserRecord/isAnonymous``).
    public var customToken = false
    /// A passkey sign-in: the credential's new signature counter, written only when it is past the stored one (or
    /// both are 0, an authenticator that keeps none), so of two assertions racing with one counter value one signs in.
    public var passkeyCounter: PasskeyCounter?

    public struct PasskeyCounter: Sendable, Equatable {
        public var credentialID: String
        public var count: UInt32
        public init(credentialID: String, count: UInt32) {
            self.credentialID = credentialID
            self.count = count
        }
    }

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
        if let counter = passkeyCounter {
            guard let index = user.passkeys?.firstIndex(where: { $0.credentialID == counter.credentialID }) else { return false }
            let current = user.passkeys?[index].signCount ?? 0
            if counter.count != 0 || current != 0, counter.count <= current { return false }
            user.passkeys?[index].signCount = counter.count
        }
        user.lastRefreshAt = at
        if signedIn { user.lastLoginAt = at }
        if let rehash { user.passwordHash = rehash }
        if customToken { user.customAuth = true }
        user.version = (user.version ?? 0) + 1
        return true
    }
}

extension UnitOfWorkStore {
    /// Counts one event: ``incrementRateCounter(key:windowStart:expiresAt:by:)`` by one.
    @discardableResult
    public func incrementRateCounter(key: String, windowStart: Date, expiresAt: Date) async throws -> Int {
        try await incrementRateCounter(key: key, windowStart: windowStart, expiresAt: expiresAt, by: 1)
    }
}

extension ConfigStore {
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
