import Foundation
import HearthCore
@testable import HearthPostgres
import HearthSQL
import HearthSchema
import HearthStoreContract
import HearthPostgresTestSupport
import PostgresNIO
import Testing

/// The store contract on a real PostgreSQL (a throwaway cluster, or `HEARTH_TEST_POSTGRES_URL`), one schema per test.
/// When neither is possible the tests are skipped, and say why.
@Suite struct PostgresStoreContractTests {
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"),
          arguments: StoreContract.all)
    func contract(_ check: StoreCheck) async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await check.run(closing: store)
    }

    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"))
    func migrationsAreRecordedOnce() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.appliedMigrations() == ["0001_initial", "0002_action_codes_outbox", "0003_outbox_delivery", "0004_phone_assertions", "0005_pending_secrets", "0006_user_identities", "0007_operations", "0008_identity_emails", "0009_tenants", "0010_users_by_creation", "0011_webhooks", "0012_compared_columns", "0013_job_leases"])
        try await store.close()
    }

    /// As on SQLite: a pre-0006 database gets its identities table filled, the older account keeping a shared one.
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"))
    func identitiesAreBackfilledByTheirMigration() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await store.migrate()
        func user(_ id: String, _ seconds: Double, _ raws: [String]) -> UserRecord {
            var user = UserRecord(projectID: "p-one", localID: id, validSince: 0, createdAt: Date(timeIntervalSince1970: seconds))
            user.providers = raws.map { ProviderUserInfo(providerID: "google.com", rawID: $0, email: "\($0)@Example.com") }
            return user
        }
        try await store.insertUser(user("older", 1_000, ["g-1", "g-2"]), uniqueEmail: true)
        try await store.close()

        let components = try #require(URLComponents(string: url))
        let schema = try #require(components.queryItems?.first { $0.name == "search_path" }?.value)
        var configuration = PostgresClient.Configuration(
            host: components.host!, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        let raw = PostgresClient(configuration: configuration)
        let newer = try RecordCoding.encode(user("newer", 2_000, ["g-1", "g-3"]))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await raw.run() }
            try await raw.query("DROP TABLE user_identities")
            try await raw.query("DELETE FROM hearth_migrations WHERE id IN ('0006_user_identities', '0008_identity_emails')")
            try await raw.query("""
                INSERT INTO users (project_id, tenant_id, local_id, created_at, data) VALUES ('p-one', '', 'newer', 2000000, \(newer))
                """)
            group.cancelAll()
        }

        let second = try PostgresStore(url: url)
        try await second.migrate()
        #expect(try await second.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-1")?.localID == "older")
        #expect(try await second.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-3")?.localID == "newer")
        // 0008 gives each identity its email, from the accounts' JSON.
        #expect(try await second.users(projectID: "p-one", tenantID: nil, identityEmail: "g-3@example.com", limit: 5).map(\.localID) == ["newer"])
        #expect(try await second.users(projectID: "p-one", tenantID: nil, identityEmail: "G-1@example.com", limit: 5).map(\.localID) == ["older"])
        try await second.close()
    }

    @Test func rejectsMalformedURLs() {
        #expect(throws: PostgresStoreError.self) { try PostgresStore(url: "mysql://localhost/db") }
        #expect(throws: PostgresStoreError.self) { try PostgresStore(url: "postgres:///nohost") }
    }
}

/// A database left at an older schema step migrates the rest of the way on PostgreSQL, keeping every user and
/// backfilling what later steps add (the same schema and runner as SQLite's, in PostgreSQL's dialect).
@Suite(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
struct PostgresSchemaUpgradeTests {
    @Test func aDatabaseAtAnOlderStepMigratesTheRestOfTheWayKeepingEveryUser() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await MigrationRunner(dialect: .postgres).migrate(PostgresStore.Migrations(store: store), through: "0005_pending_secrets")
        for index in 0..<200 {
            var user = UserRecord(projectID: "p-old", localID: String(format: "u%03d", index), email: "u\(index)@example.com",
                                  validSince: 0, createdAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(index)))
            if index % 10 == 0 { user.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-\(index)", email: "G\(index)@Example.com")] }
            let (id, email, created, data) = (user.localID, user.email!, user.createdAt.epochMilliseconds, try RecordCoding.encode(user))
            try await store.execute("""
                INSERT INTO users (project_id, tenant_id, local_id, email, email_unique, created_at, data)
                VALUES ('p-old', '', \(id), \(email), \(email), \(created), \(data))
                """)
        }
        try await store.migrate()
        #expect(try await store.appliedMigrations() == Schema.migrations.map(\.id))
        var users: [UserRecord] = [], after: String?
        while case let page = try await store.users(projectID: "p-old", tenantID: nil, after: after, limit: 100), !page.isEmpty {
            users += page
            after = page.last?.localID
        }
        #expect(users.count == 200 && users.map(\.localID) == (0..<200).map { String(format: "u%03d", $0) })
        #expect(try await store.user(projectID: "p-old", tenantID: nil, providerID: "google.com", rawID: "g-30")?.localID == "u030")
        #expect(try await store.users(projectID: "p-old", tenantID: nil, identityEmail: "g40@example.com", limit: 5)
            .map(\.localID) == ["u040"])
        try await store.insertTenant(TenantRecord(projectID: "p-old", id: "t-new"))
        try await store.close()
    }
}

/// `autodeleteAnonymousUsers` on PostgreSQL, at scale: 5,000 stale anonymous accounts among 1,000 others go in batched
/// transactions, each with its audit row, while sign-in reads keep answering; two instances cleaning at once delete
/// each account once. The rate is printed for the closing
/// figures (it is a measurement, not a bound: machines differ); before batching it was about 112 a second.
@Suite struct PostgresAnonymousCleanupTests {
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"))
    func thousandsOfStaleAnonymousAccountsGoInBatches() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await store.migrate()
        let now = Date(timeIntervalSince1970: 1_800_000_000.4375)
        let clock = ManualClock(now)
        var record = try await ProjectDirectory(store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                                hashParameters: { .generate(memoryCost: 10) })
            .contextCreatingIfNeeded(for: "p-clean").record
        record.settings.autodeleteAnonymousUsers = true
        _ = try await store.updateProject(record)
        let project = try await ProjectDirectory(store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) })
            .contextCreatingIfNeeded(for: "p-clean")
        let stale = now - 40 * 86_400
        var users: [UserRecord] = []
        for index in 0..<6_000 {
            var user = UserRecord(projectID: "p-clean", localID: String(format: "u%05d", index),
                                  email: index % 6 == 5 ? "kept\(index)@example.com" : nil, validSince: 0, createdAt: stale)
            user.anonymousSignUp = user.email == nil ? true : nil
            users.append(user)
        }
        for batch in stride(from: 0, to: users.count, by: 1_000) {
            #expect(try await store.insertUsers(Array(users[batch..<(batch + 1_000)]), uniqueEmail: true).isEmpty)
        }
        let accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
        // A reader that keeps looking a kept account up while the cleanup runs: it must never wait on it for long.
        let reading = Task {
            var reads = 0
            while !Task.isCancelled {
                _ = try await store.user(projectID: "p-clean", tenantID: nil, email: "kept5@example.com")
                reads += 1
            }
            return reads
        }
        // Two instances run their daily cleanup at once, each on its own connection pool: each account goes once.
        let other = try PostgresStore(url: url)
        let second = AccountContext(store: other, clock: clock, hashing: InlineWorkRunner())
        let started = ContinuousClock.now
        async let mine = accounts.operations.deleteInactiveAnonymousUsers(in: project, now: now)
        async let theirs = second.operations.deleteInactiveAnonymousUsers(in: project, now: now)
        let deleted = try await mine + theirs
        let elapsed = ContinuousClock.now - started
        try await other.close()
        reading.cancel()
        let reads = (try? await reading.value) ?? 0
        #expect(deleted == 5_000)
        let left = try await store.users(projectID: "p-clean", tenantID: nil, after: nil, limit: 2_000)
        #expect(left.count == 1_000 && left.allSatisfy { $0.email != nil })
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("auto-delete on PostgreSQL: \(deleted) accounts in \(String(format: "%.2f", seconds)) s "
              + "(\(Int(Double(deleted) / seconds))/s), \(reads) reads answered meanwhile")
        try await store.close()
    }
}
