import Foundation
import HearthCore
import HearthSchema
import SQLiteNIO
@testable import HearthSQLite
import HearthSQL
import Testing

/// Upgrades keep every user: a database written by the last release (0.9.0, `Fixtures/hearth-0.9.0.sqlite`, made by
/// its binary: 40 password accounts, 3 Google accounts, 1 anonymous) opens, migrates and signs its users in; one
/// left at an older schema step migrates the rest of the way, backfilling what later steps add.
@Suite struct SchemaUpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hearth-0.9.0.sqlite")

    func copy(_ source: URL) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("hearth.sqlite").path
        try FileManager.default.copyItem(atPath: source.path, toPath: path)
        return path
    }

    func allUsers(_ store: SQLiteStore, _ project: String) async throws -> [UserRecord] {
        var users: [UserRecord] = [], after: String?
        while case let page = try await store.users(projectID: project, tenantID: nil, after: after, limit: 100), !page.isEmpty {
            users += page
            after = page.last?.localID
        }
        return users
    }

    @Test func aDatabaseWrittenByTheLastReleaseKeepsEveryUser() async throws {
        let store = try await SQLiteStore.open(path: try copy(Self.fixture))
        var failure: (any Error)?
        do {
            try await store.migrate()
            #expect(try await store.appliedMigrations() == Schema.migrations.map(\.id))
            let users = try await allUsers(store, "release-fixture")
            #expect(users.count == 44, "every account: \(users.count)")
            #expect(users.filter { $0.email?.hasPrefix("user") == true }.count == 40)
            #expect(try await store.user(projectID: "release-fixture", tenantID: nil, providerID: "google.com", rawID: "g-2")?
                .email == "g2@gmail.com", "identities kept")
            // Its users sign in with their passwords: the project's keys and hash parameters came through too.
            let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                             defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) })
            let project = try #require(try await directory.context(for: "release-fixture"))
            let accounts = AccountContext(store: store, clock: SystemClock(), hashing: InlineWorkRunner())
            let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "user7@example.com",
                                                                           password: "password-7").signedIn()
            #expect(signedIn.user.displayName == "User 7")
        } catch { failure = error }
        try await store.close()
        if let failure { throw failure }
    }

    /// Going back is refused: a binary that finds a step it does not know (applied by a newer Hearth) stops before it
    /// changes anything, and says to run the newer version or restore the backup.
    @Test func aDatabaseANewerHearthMigratedIsRefusedUntouched() async throws {
        let store = try await SQLiteStore.temporary()
        var failure: (any Error)?
        do {
            try await store.migrate()
            try await store.execute("INSERT INTO hearth_migrations (id, applied_at) VALUES ('9999_from_the_future', 99999999999)")
            do {
                try await store.migrate()
                Issue.record("a newer schema was migrated over")
            } catch let refused as NewerSchema {
                #expect(refused.unknownSteps == ["9999_from_the_future"])
                #expect(refused.description.contains("restore the backup"), "\(refused)")
            }
            #expect(try await store.appliedMigrations() == Schema.migrations.map(\.id) + ["9999_from_the_future"])
        } catch { failure = error }
        try await store.close()
        if let failure { throw failure }
    }

    @Test func aDatabaseAtAnOlderStepMigratesTheRestOfTheWayKeepingEveryUser() async throws {
        let store = try await SQLiteStore.temporary()
        var failure: (any Error)?
        do {
            // The schema as a release before linked identities (step 0006) left it, and its users as it wrote them.
            try await MigrationRunner(dialect: .sqlite).migrate(SQLiteStore.Migrations(store: store), through: "0005_pending_secrets")
            for index in 0..<200 {
                var user = UserRecord(projectID: "p-old", localID: String(format: "u%03d", index), email: "u\(index)@example.com",
                                      validSince: 0, createdAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(index)))
                if index % 10 == 0 { user.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-\(index)", email: "G\(index)@Example.com")] }
                let (createdAt, data) = (Int64(user.createdAt.timeIntervalSince1970 * 1000), try RecordCoding.encode(user))
                try await store.execute("""
                    INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, phone_number, created_at, data)
                    VALUES (\(user.projectID), '', \(user.localID), \(user.email!), \(user.email!), NULL, \(createdAt), \(data))
                    """)
            }
            try await store.migrate()
            #expect(try await store.appliedMigrations() == Schema.migrations.map(\.id))
            let users = try await allUsers(store, "p-old")
            #expect(users.count == 200 && users.map(\.localID) == (0..<200).map { String(format: "u%03d", $0) })
            #expect(try await store.user(projectID: "p-old", tenantID: nil, providerID: "google.com", rawID: "g-30")?.localID == "u030",
                    "identities backfilled by 0006")
            #expect(try await store.users(projectID: "p-old", tenantID: nil, identityEmail: "g40@example.com", limit: 5)
                .map(\.localID) == ["u040"], "and their emails by 0008")
            try await store.insertTenant(TenantRecord(projectID: "p-old", id: "t-new"))  // 0009's table is there
        } catch { failure = error }
        try await store.close()
        if let failure { throw failure }
    }
}
