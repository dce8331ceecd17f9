import Foundation
import HearthCore
import HearthSQL
import HearthSQLite
import HearthStoreContract
import SQLiteNIO
import Testing

@Suite struct SQLiteStoreContractTests {
    @Test(arguments: StoreContract.all)
    func contract(_ check: StoreCheck) async throws {
        let store = try await SQLiteStore.temporary()
        try await check.run(closing: store)
    }
}

@Suite struct SQLiteStoreTests {
    @Test func migrationsAreRecordedOnce() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.appliedMigrations() == ["0001_initial", "0002_action_codes_outbox", "0003_outbox_delivery", "0004_phone_assertions", "0005_pending_secrets", "0006_user_identities", "0007_operations", "0008_identity_emails", "0009_tenants", "0010_users_by_creation", "0011_webhooks", "0012_compared_columns", "0013_job_leases", "0014_lookup_indexes"])
        try await store.close()
    }

    /// A user by email or by phone number, oldest first, is read from one index that serves the match and the order:
    /// SQLite without statistics otherwise walks every user in creation order (0.28 s a sign-in at a million users).
    @Test func aUserByEmailOrPhoneIsFoundThroughAnIndexInCreationOrder() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        for (column, index) in [("email", "users_email_created"), ("phone_number", "users_phone_created")] {
            let plan = try await store.read(SQL(raw: """
                EXPLAIN QUERY PLAN SELECT data FROM users WHERE project_id = 'p' AND tenant_id = '' AND \(column) = 'x'
                ORDER BY created_at, local_id LIMIT 1
                """)).compactMap { $0.values.last?.string }.joined(separator: "; ")
            #expect(plan.contains(index) && !plan.contains("TEMP B-TREE"), "\(column): \(plan)")
        }
        try await store.close()
    }

    /// A user read again is not decoded again while its stored text is the same (``DecodedRecords``), and a change
    /// written by another instance sharing the file is read at once: the text is read every time.
    @Test func aUserChangedByAnotherInstanceIsReadAsChangedAtOnce() async throws {
        let first = try await SQLiteStore.temporary()
        try await first.migrate()
        let second = try await SQLiteStore.open(path: first.path)
        let created = Date(timeIntervalSince1970: 1_700_000_000.1234)
        try await first.insertUser(UserRecord(projectID: "p", localID: "ada", email: "ada@example.com", validSince: 1_700_000_000,
                                              createdAt: created), uniqueEmail: true)
        for _ in 0..<3 { #expect(try await first.user(projectID: "p", tenantID: nil, localID: "ada")?.disabled == false) }
        #expect(first.decodedUsers.count == 1, "three reads of one text, one decoding kept")
        var changed = try #require(try await second.user(projectID: "p", tenantID: nil, localID: "ada"))
        (changed.disabled, changed.validSince) = (true, 1_700_000_001)
        _ = try await second.updateUser(changed, uniqueEmail: true, revokeRefreshTokens: true)
        let read = try #require(try await first.user(projectID: "p", tenantID: nil, localID: "ada"))
        #expect(read.disabled && read.validSince == 1_700_000_001 && read.createdAt == changed.createdAt)
        try await second.close()
        try await first.close()
    }

    /// A database from before 0006 (accounts with linked identities, no identities table) gets the table filled from
    /// the accounts; of two accounts claiming one identity, the older keeps it.
    @Test func identitiesAreBackfilledByTheirMigration() async throws {
        let first = try await SQLiteStore.temporary()
        try await first.migrate()
        func user(_ id: String, _ seconds: Double, _ raws: [String]) -> UserRecord {
            var user = UserRecord(projectID: "p-one", localID: id, validSince: 0, createdAt: Date(timeIntervalSince1970: seconds))
            user.providers = raws.map { ProviderUserInfo(providerID: "google.com", rawID: $0, email: "\($0)@Example.com") }
            return user
        }
        try await first.insertUser(user("older", 1_000, ["g-1", "g-2"]), uniqueEmail: true)
        try await first.close()
        // Rewind to before 0006, then add an account that shares g-1 (possible back then).
        let raw = try await SQLiteConnection.open(storage: .file(path: first.path))
        _ = try await raw.query("DROP TABLE user_identities")
        _ = try await raw.query("DELETE FROM hearth_migrations WHERE id IN ('0006_user_identities', '0008_identity_emails')")
        _ = try await raw.query(
            "INSERT INTO users (project_id, tenant_id, local_id, created_at, data) VALUES ('p-one', '', 'newer', 2000000, ?)",
            [.text(try RecordCoding.encode(user("newer", 2_000, ["g-1", "g-3"])))])
        try await raw.close()

        let second = try await SQLiteStore.open(path: first.path)
        try await second.migrate()
        #expect(try await second.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-1")?.localID == "older")
        #expect(try await second.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-2")?.localID == "older")
        #expect(try await second.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-3")?.localID == "newer")
        // 0008 gives each identity its email, from the accounts' JSON.
        #expect(try await second.users(projectID: "p-one", tenantID: nil, identityEmail: "g-3@example.com", limit: 5).map(\.localID) == ["newer"])
        #expect(try await second.users(projectID: "p-one", tenantID: nil, identityEmail: "G-1@example.com", limit: 5).map(\.localID) == ["older"])
        try await second.close()
    }

    /// A delivered email's code is gone from the database file and its write-ahead log, not just from the table.
    @Test func aDeliveredCodeLeavesNoCopyOnDisk() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let code = "CODE" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        try await store.enqueueOutboxMessage(OutboxMessage(id: "m1", projectID: "p-one", type: .passwordReset,
            recipient: "a@example.com", code: code, link: "https://x/?oobCode=" + code, createdAt: Date()))
        func onDisk() -> Bool {
            ["", "-wal"].contains { suffix in
                (FileManager.default.contents(atPath: store.path + suffix) ?? Data()).range(of: Data(code.utf8)) != nil
            }
        }
        #expect(onDisk(), "the queued message holds its code (the check can see it)")
        try await store.deleteOutboxMessage(id: "m1")
        #expect(!onDisk(), "delivered: no copy in the file or its log")
        try await store.close()
    }

    @Test func dataSurvivesReopeningTheFile() async throws {
        let first = try await SQLiteStore.temporary()
        try await first.migrate()
        let user = UserRecord(projectID: "p-one", localID: "u1", email: "a@b.co", validSince: 1,
                              createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try await first.insertUser(user, uniqueEmail: true)
        try await first.close()
        let second = try await SQLiteStore.open(path: first.path)
        try await second.migrate()
        #expect(try await second.user(projectID: "p-one", tenantID: nil, localID: "u1") == user)
        try await second.close()
    }

    /// The database holds signing keys and password hashes: a new file (and its WAL) is readable by its owner only,
    /// in a folder that is the owner's only; a file others can read is reported.
    @Test func aNewDatabaseIsTheOwnersOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("data/hearth.sqlite").path
        let store = try await SQLiteStore.open(path: path)
        try await store.migrate()
        func mode(_ path: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
        }
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") & 0o077 == 0, "the write-ahead log too")
        #expect(try mode(folder.appendingPathComponent("data").path) == 0o700)
        #expect(!SQLiteStore.readableByOthers(path: path))
        try await store.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(SQLiteStore.readableByOthers(path: path))
    }
}
