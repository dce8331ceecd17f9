import Foundation
import HearthCore
import Synchronization
import Testing

/// A flood against a key already refused in its window is answered by reads: the write transaction (SQLite's one
/// writer, a PostgreSQL row lock) is not taken again until the key could pass.
@Suite struct RateLimiterFloodTests {
    /// The two concerns the limiter takes, over the in-memory store, counting what it is asked.
    final class CountingStore: UnitOfWorkStore, OperationsStore {
        let inner = InMemoryStore()
        let counts = Mutex((reads: 0, commits: 0))
        func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
            counts.withLock { $0.commits += 1 }
            return try await inner.commit(work)
        }
        func rateCounters(_ windows: [RateWindow]) async throws -> [Int] {
            counts.withLock { $0.reads += 1 }
            return try await inner.rateCounters(windows)
        }
        func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] { [] }
        func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport { HousekeepingReport() }
        func takeLease(job: String, holder: String, until: Date, now: Date) async throws -> Bool { false }
        func releaseLease(job: String, holder: String) async throws {}
    }

    @Test func aFloodAgainstARefusedKeyCostsReadsNotWrites() async throws {
        let store = CountingStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_123.4567))
        let limiter = RateLimiter(store: store, clock: clock)
        let rule = RateLimiter.Rule(limit: 3, window: 600)
        for _ in 0..<3 { _ = try await limiter.reserve([("k", rule)]) }
        await #expect(throws: RateLimiter.Refusal.self) { try await limiter.reserve([("k", rule)]) }
        let before = store.counts.withLock { $0 }
        #expect(before == (reads: 0, commits: 4), "each reservation and the first refusal: one transaction each")
        for _ in 0..<20 {
            await #expect(throws: RateLimiter.Refusal.self) { try await limiter.reserve([("k", rule)]) }
        }
        let after = store.counts.withLock { $0 }
        #expect(after.commits == before.commits && after.reads == 20, "refused by one read each: \(after)")
        // A slot given back (a sign-in that succeeded elsewhere) opens the way again: the read lets it through.
        try await limiter.release(RateLimiter.Reservation(key: "k", windowStart: RateLimiter.window(rule, at: clock.now()).start,
                                                          expiresAt: clock.now() + 1200, count: 3))
        _ = try await limiter.reserve([("k", rule)])
        // The next window, the key is a stranger again: straight to the write.
        clock.advance(by: 1200)
        let fresh = store.counts.withLock { $0 }
        _ = try await limiter.reserve([("k", rule)])
        #expect(store.counts.withLock { $0 } == (reads: fresh.reads, commits: fresh.commits + 1))
    }
}
