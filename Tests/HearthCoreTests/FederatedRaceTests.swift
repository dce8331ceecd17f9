import Foundation
import HearthCore
import Testing

/// An in-memory store whose identity lookups wait until `parties` callers are inside: it makes two first sign-ins with
/// one new identity both miss the owner, the race a single-statement check cannot close.
final class IdentityLookupBarrier: IdentityStore, @unchecked Sendable {
    let base = InMemoryStore()
    private let lock = NSLock()
    private var waiting = 0
    private var armed: Int
    private var released = false

    init(parties: Int) { armed = parties }

    func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        let first = lock.withLock { () -> Bool in
            guard armed > 0 else { return false }
            armed -= 1
            waiting += 1
            return true
        }
        if first {
            while !lock.withLock({ released || waiting >= 2 }) { try await Task.sleep(for: .milliseconds(5)) }
            lock.withLock { released = true }
            return nil  // both racers read "nobody has it" before either inserts
        }
        return try await base.user(projectID: projectID, tenantID: tenantID, providerID: providerID, rawID: rawID)
    }

    func migrate() async throws { try await base.migrate() }
    func close() async throws { try await base.close() }
    func project(id: String) async throws -> ProjectRecord? { try await base.project(id: id) }
    func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord { try await base.createProjectIfAbsent(project) }
    func updateProject(_ project: ProjectRecord) async throws { try await base.updateProject(project) }
    func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, localID: localID)
    }
    func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, email: email)
    }
    func insertUser(_ user: UserRecord, uniqueEmail: Bool) async throws { try await base.insertUser(user, uniqueEmail: uniqueEmail) }
    func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws {
        try await base.updateUser(user, uniqueEmail: uniqueEmail, revokeRefreshTokens: revokeRefreshTokens)
    }
    func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        try await base.deleteUser(projectID: projectID, tenantID: tenantID, localID: localID)
    }
    func deleteAllUsers(projectID: String) async throws -> Int { try await base.deleteAllUsers(projectID: projectID) }
    func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        try await base.insertUsers(users, uniqueEmail: uniqueEmail)
    }
    func users(projectID: String, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await base.users(projectID: projectID, after: localID, limit: limit)
    }
    func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, phoneNumber: phoneNumber)
    }
    func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        try await base.queryUsers(projectID: projectID, query)
    }
    func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await base.useAssertionOnce(digest: digest, expiresAt: expiresAt, now: now)
    }
    func insertPending(_ record: PendingRecord, now: Date) async throws { try await base.insertPending(record, now: now) }
    func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        try await base.pending(projectID: projectID, digest: digest, now: now)
    }
    func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await base.consumePending(projectID: projectID, digest: digest)
    }
    func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        try await base.recordPendingAttempt(projectID: projectID, digest: digest)
    }
    func insertRefreshToken(_ token: RefreshTokenRecord) async throws { try await base.insertRefreshToken(token) }
    func refreshToken(projectID: String, digest: String) async throws -> RefreshTokenRecord? {
        try await base.refreshToken(projectID: projectID, digest: digest)
    }
    func insertActionCode(_ code: ActionCodeRecord) async throws { try await base.insertActionCode(code) }
    func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await base.actionCode(projectID: projectID, digest: digest)
    }
    func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await base.consumeActionCode(projectID: projectID, digest: digest)
    }
    func enqueueOutboxMessage(_ message: OutboxMessage) async throws { try await base.enqueueOutboxMessage(message) }
    func outboxMessages(projectID: String) async throws -> [OutboxMessage] { try await base.outboxMessages(projectID: projectID) }
    func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await base.claimOutboxMessages(dueAt: now, leaseUntil: leaseUntil, limit: limit)
    }
    func deleteOutboxMessage(id: String) async throws { try await base.deleteOutboxMessage(id: id) }
    func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        try await base.rescheduleOutboxMessage(id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
    }
}

@Suite struct FederatedRaceTests {
    @Test func twoFirstSignInsWithOneIdentityEndInOneAccount() async throws {
        let store = IdentityLookupBarrier(parties: 2)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let accounts = AccountService(store: store, clock: clock, hashing: InlineWorkRunner())
        let project = try await ProjectDirectory(store: store, clock: clock,
                                                 defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                                 hashParameters: { .generate(memoryCost: 10) })
            .contextCreatingIfNeeded(for: "race-one")
        let assertion = FederatedAssertion(providerID: "google.com", rawID: "g-race", emailVerified: true)
        async let first = accounts.signInWithIdp(in: project, assertion, idToken: nil, returnIdpCredential: false)
        async let second = accounts.signInWithIdp(in: project, assertion, idToken: nil, returnIdpCredential: false)
        let outcomes = try await [first, second]
        let ids = outcomes.compactMap { outcome -> String? in
            if case .signedIn(let result) = outcome { return result.user.localID }
            return nil
        }
        #expect(ids.count == 2 && Set(ids).count == 1, "both sign in, to one account: \(ids)")
        let users = try await store.users(projectID: "race-one", after: nil, limit: 10)
        #expect(users.count == 1, "the loser removed itself")
    }
}
