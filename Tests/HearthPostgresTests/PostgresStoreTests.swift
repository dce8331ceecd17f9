import Foundation
import HearthCore
@testable import HearthPostgres
import HearthSQL
import HearthSQLite
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
        #expect(try await store.appliedMigrations() == ["0001_initial", "0002_action_codes_outbox", "0003_outbox_delivery", "0004_phone_assertions", "0005_pending_secrets", "0006_user_identities", "0007_operations", "0008_identity_emails", "0009_tenants", "0010_users_by_creation", "0011_webhooks", "0012_compared_columns", "0013_job_leases", "0014_lookup_indexes"])
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
    /// The last release's database (`HearthSQLiteTests/Fixtures/hearth-0.9.0.sqlite`, made by its binary: 40
    /// password accounts, 3 Google accounts, 1 anonymous, their sessions), laid into PostgreSQL at that release's
    /// schema step row for row, then migrated by this one: every password account signs in, identities and
    /// sessions are kept, and what later steps moved out of the JSON matches the JSON.
    @Test func theLastReleasesDatabaseMigratesAndEveryAccountSignsIn() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../HearthSQLiteTests/Fixtures/hearth-0.9.0.sqlite").standardized
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: fixture, to: folder.appendingPathComponent("hearth.sqlite"))
        let release = try await SQLiteStore.open(path: folder.appendingPathComponent("hearth.sqlite").path)
        var failure: (any Error)?
        do {
            let steps = try await release.appliedMigrations()
            #expect(steps.last == "0010_users_by_creation", "the fixture's schema: \(steps)")
            try await MigrationRunner(dialect: .postgres).migrate(PostgresStore.Migrations(store: store), through: steps.last)
            var copied = 0
            for table in try await release.read("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'hearth_migrations' ORDER BY name")
                .compactMap({ $0[0].string }) {
                let columns = try await release.read(SQL(raw: "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid"))
                    .compactMap { $0[0].string }
                for row in try await release.read(SQL(raw: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")) {
                    let values = SQL.joined(row.values.map { "\($0)" }, separator: ", ")
                    try await store.execute("INSERT INTO \(raw: table) (\(raw: columns.joined(separator: ", "))) VALUES (\(values))")
                    copied += 1
                }
            }
            #expect(copied > 88, "users, identities, sessions, the project: \(copied) rows")
            try await store.migrate()
            #expect(try await store.appliedMigrations() == Schema.migrations.map(\.id))

            let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                             defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) })
            let project = try #require(try await directory.context(for: "release-fixture"))
            let accounts = AccountContext(store: store, clock: SystemClock(), hashing: InlineWorkRunner())
            var signedIn = 0
            for index in 1...40 {
                let outcome = try await accounts.passwords.signInWithPassword(
                    in: project, email: "user\(index)@example.com", password: "password-\(index)").signedIn()
                if outcome.user.displayName == "User \(index)" { signedIn += 1 }
            }
            #expect(signedIn == 40, "every password account signs in: \(signedIn)")
            #expect(try await store.user(projectID: "release-fixture", tenantID: nil, providerID: "google.com", rawID: "g-2")?
                .email == "g2@gmail.com", "identities kept")
            // 0012's columns agree with the records they were read from.
            let users = try await store.queryUsers(projectID: "release-fixture", UserQuery(sortBy: .lastLoginAt, limit: 100))
            #expect(users.count == 44)
            let drift = try await store.read("""
                SELECT count(*) FROM users WHERE version <> coalesce((data::jsonb ->> 'version')::bigint, 0)
                  OR valid_since <> coalesce((data::jsonb ->> 'validSince')::double precision, 0)::bigint
                """)
            #expect(drift.first?[0].int == 0, "versions and validSince backfilled")
            let sessions = try await store.read("SELECT count(*) FROM refresh_tokens WHERE created_micros <= 0")
            #expect(sessions.first?[0].int == 0, "every session's creation backfilled")
        } catch { failure = error }
        try? await release.close()
        try await store.close()
        if let failure { throw failure }
    }

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
        record.settings[.autodeleteAnonymousUsers] = true
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
        async let mine = accounts.operatorTools.deleteInactiveAnonymousUsers(in: project, now: now)
        async let theirs = second.operatorTools.deleteInactiveAnonymousUsers(in: project, now: now)
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
