import Foundation
import HearthCore
import HearthPostgres
import HearthStoreContract
import HearthPostgresTestSupport
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
        #expect(try await store.appliedMigrations() == ["0001_initial", "0002_action_codes_outbox", "0003_outbox_delivery", "0004_phone_assertions", "0005_pending_secrets"])
        try await store.close()
    }

    @Test func rejectsMalformedURLs() {
        #expect(throws: PostgresStoreError.self) { try PostgresStore(url: "mysql://localhost/db") }
        #expect(throws: PostgresStoreError.self) { try PostgresStore(url: "postgres:///nohost") }
    }
}
