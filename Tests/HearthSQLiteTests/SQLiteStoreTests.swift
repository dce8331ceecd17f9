import Foundation
import HearthCore
import HearthSQLite
import HearthStoreContract
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
        #expect(try await store.appliedMigrations() == ["0001_initial", "0002_action_codes_outbox", "0003_outbox_delivery", "0004_phone_assertions", "0005_pending_secrets"])
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
}
