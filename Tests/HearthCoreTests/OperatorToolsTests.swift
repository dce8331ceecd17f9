import Foundation
import HearthCore
import Testing

/// The operator's use case (`OperatorTools`), `autodeleteAnonymousUsers`: anonymous accounts unused for 30 days go,
/// in pages, each an audit event; accounts with an identity (a custom-token sign-in and a passkey count), accounts
/// never signed up anonymously, and anonymous ones used lately, stay; a project or tenant without the setting is left
/// alone.
@Suite struct OperatorToolsTests {
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
        func user(_ id: String, created: Date, refreshed: Date? = nil, email: String? = nil, tenant: String? = nil,
                  anonymous: Bool = true) -> UserRecord {
            var user = UserRecord(projectID: "cleanup", tenantID: tenant, localID: id, email: email, validSince: 0, createdAt: created)
            user.lastRefreshAt = refreshed
            user.anonymousSignUp = anonymous ? true : nil
            return user
        }
        var custom = user("custom-token", created: old)
        custom.customAuth = true  // an anonymous account later signed into with a custom token
        try await store.insertUser(custom, uniqueEmail: true)
        var passkey = user("passkey", created: old)
        passkey.passkeys = [PasskeyCredential(credentialID: "cred-1", name: "laptop", createdAt: old)]
        try await store.insertUser(passkey, uniqueEmail: true)
        try await store.insertUser(user("admin-created", created: old, anonymous: false), uniqueEmail: true)
        for index in 0..<7 { try await store.insertUser(user("stale-\(index)", created: old), uniqueEmail: true) }  // more than a page
        try await store.insertUser(user("refreshed", created: old, refreshed: recent), uniqueEmail: true)
        try await store.insertUser(user("new", created: recent), uniqueEmail: true)
        try await store.insertUser(user("named", created: old, email: "ada@example.com"), uniqueEmail: true)
        try await store.insertUser(user("tenant-stale", created: old, tenant: "acme-a1b2c"), uniqueEmail: true)

        #expect(try await accounts.operatorTools.deleteInactiveAnonymousUsers(in: project, now: now, batch: 3) == 0, "off by default")
        var record = project.record
        record.settings[.autodeleteAnonymousUsers] = true
        try await store.updateProject(record)
        project = try await ProjectDirectory(store: store, clock: ManualClock(now), defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) })
            .contextCreatingIfNeeded(for: "cleanup")
        let deleted = try await accounts.operatorTools.deleteInactiveAnonymousUsers(in: project, now: now, batch: 3)
        #expect(deleted == 7)
        let left = try await store.users(projectID: "cleanup", after: nil, limit: 50).map(\.localID).sorted()
        #expect(left == ["admin-created", "custom-token", "named", "new", "passkey", "refreshed"])
        #expect(try await store.user(projectID: "cleanup", tenantID: "acme-a1b2c", localID: "tenant-stale") != nil,
                "a tenant's users follow the tenant's own setting")
        #expect(audit.all.count == 7 && audit.all.allSatisfy { $0.kind == .accountDeleted && $0.details["by"] == "autodelete" })
    }
}
