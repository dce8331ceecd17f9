import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
@testable import HearthServer
import HearthSQLite
import Logging
import Synchronization
import Testing

/// Two instances on one database, each with its housekeeper, passing at the same instants (fractional
/// milliseconds, then across second boundaries): of each pair of passes one purges, and the daily cleanup runs once
/// a day. On SQLite (two stores on one file) and on PostgreSQL (two pools on one schema).
@Suite struct HousekeepingLeaseTests {
    enum Backend: String, CaseIterable { case sqlite, postgres }

    @Test(arguments: Backend.allCases)
    func periodicJobsRunOncePerPeriodAcrossInstances(_ backend: Backend) async throws {
        let stores: [any IdentityStore]
        switch backend {
        case .sqlite:
            let first = try await SQLiteStore.temporary()
            stores = [first, try await SQLiteStore.open(path: first.path)]
        case .postgres:
            guard TemporaryPostgres.skipReason == nil, let url = try await TemporaryPostgres.freshSchemaURL() else {
                print("HousekeepingLeaseTests on PostgreSQL skipped: \(TemporaryPostgres.skipReason ?? "no server")")
                return
            }
            stores = [try PostgresStore(url: url), try PostgresStore(url: url)]
        }
        for store in stores { try await store.migrate() }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_599.9996))  // just before a second ends
        let cleanups = Mutex(0)
        let housekeepers = stores.map { store in
            var housekeeper = Housekeeper(store: store, clock: clock, interval: .seconds(600), auditRetention: .seconds(86_400),
                                          logger: Logger(label: "test"))
            housekeeper.anonymousCleanup = { _ in cleanups.withLock { $0 += 1 }; return 0 }
            return housekeeper
        }
        var failure: (any Error)?
        for period in 0..<6 {
            async let first = housekeepers[0].pass()
            async let second = housekeepers[1].pass()
            let purged = [await first, await second].compactMap { $0 }
            #expect(purged.count == 1, "\(backend), period \(period): \(purged.count) instances purged")
            clock.advance(by: 600.0005)
        }
        #expect(cleanups.withLock { $0 } == 1, "\(backend): the daily cleanup ran once in the first day")
        clock.advance(by: 86_400)
        _ = await (housekeepers[0].pass(), housekeepers[1].pass())
        #expect(cleanups.withLock { $0 } == 2, "\(backend): and once in the next")
        for store in stores {
            do { try await store.close() } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
