import Foundation
import HearthCore
import Testing

/// `autodeleteAnonymousUsers`: anonymous accounts unused for 30 days go, in pages, each an audit event; accounts
/// with an identity, and anonymous ones used lately, stay; a project or tenant without the setting is left alone.
@Suite struct AnonymousCleanupTests {
    final class Recorded: AuditTrail, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [SecurityEvent] = []
        var all: [SecurityEvent] { lock.withLock { events } }
        func row(for event: SecurityEvent) -> AuditEvent? { nil }
        func committed(_ row: AuditEvent) {}
        func record(_ event: SecurityEvent) async { lock.withLock { events.append(event) } }
    }

    @Test func staleAnonymousAccountsGoAndOthersStay() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let store = InMemoryStore()
        let audit = Recorded()
        var accounts = AccountContext(store: store, clock: ManualClock(now), hashing: InlineWorkRunner())
        accounts.audit = audit
        let directory = ProjectDirectory(store: store, clock: ManualClock(now),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var project = try await directory.contextCreatingIfNeeded(for: "cleanup")
        let old = now - 31 * 86_400, recent = now - 2 * 86_400
        func user(_ id: String, created: Date, refreshed: Date? = nil, email: String? = nil, tenant: String? = nil) -> UserRecord {
            var user = UserRecord(projectID: "cleanup", tenantID: tenant, localID: id, email: email, validSince: 0, createdAt: created)
            user.lastRefreshAt = refreshed
            return user
        }
        for index in 0..<7 { try await store.insertUser(user("stale-\(index)", created: old), uniqueEmail: true) }  // more than a page
        try await store.insertUser(user("refreshed", created: old, refreshed: recent), uniqueEmail: true)
        try await store.insertUser(user("new", created: recent), uniqueEmail: true)
        try await store.insertUser(user("named", created: old, email: "ada@example.com"), uniqueEmail: true)
        try await store.insertUser(user("tenant-stale", created: old, tenant: "acme-a1b2c"), uniqueEmail: true)

        #expect(try await accounts.operations.deleteInactiveAnonymousUsers(in: project, now: now, batch: 3) == 0, "off by default")
        var record = project.record
        record.settings.autodeleteAnonymousUsers = true
        try await store.updateProject(record)
        project = try await ProjectDirectory(store: store, clock: ManualClock(now), defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) })
            .contextCreatingIfNeeded(for: "cleanup")
        let deleted = try await accounts.operations.deleteInactiveAnonymousUsers(in: project, now: now, batch: 3)
        #expect(deleted == 7)
        let left = try await store.users(projectID: "cleanup", after: nil, limit: 50).map(\.localID).sorted()
        #expect(left == ["named", "new", "refreshed"])
        #expect(try await store.user(projectID: "cleanup", tenantID: "acme-a1b2c", localID: "tenant-stale") != nil,
                "a tenant's users follow the tenant's own setting")
        #expect(audit.all.count == 7 && audit.all.allSatisfy { $0.kind == .accountDeleted && $0.details["by"] == "autodelete" })
    }
}
