import Foundation
import HearthCore
import Synchronization
import Testing

/// A flood against a key already refused in its window is answered by reads: the write transaction (SQLite's one
/// writer, a PostgreSQL row lock) is not taken again until the key could pass.
extension RateLimiterTests {
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

@Suite struct RateLimiterTests {
    /// Whether one more event under `key` is allowed: a reservation given straight back.
    static func allows(_ limiter: RateLimiter, _ key: String, _ rule: RateLimiter.Rule) async throws -> Bool {
        do {
            try await limiter.release(try await limiter.reserve([(key, rule)]))
            return true
        } catch is RateLimiter.Refusal {
            return false
        }
    }

    static func take(_ limiter: RateLimiter, _ key: String, _ rule: RateLimiter.Rule) async throws {
        _ = try await limiter.reserve([(key, rule)])
    }

    @Test func countsPerKeyOverASlidingWindow() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))  // a window boundary for 60 s
        let limiter = RateLimiter(store: InMemoryStore(), clock: clock)
        let rule = RateLimiter.Rule(limit: 2, window: 60)
        #expect(try await Self.allows(limiter, "a", rule))
        try await Self.take(limiter, "a", rule)
        try await Self.take(limiter, "a", rule)
        #expect(try await !Self.allows(limiter, "a", rule))
        #expect(try await Self.allows(limiter, "b", rule), "keys are independent")
        clock.advance(by: 60)
        #expect(try await !Self.allows(limiter, "a", rule), "the last 60 s still hold both events")
        clock.advance(by: 31)
        #expect(try await Self.allows(limiter, "a", rule), "half the previous window has slid out")
    }

    /// A fixed window would give a burst split across its boundary a second quota (2 × limit in a moment); the
    /// previous window's weight refuses it, whichever instance counts.
    @Test func aBurstAcrossAWindowBoundaryGetsNoSecondQuota() async throws {
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_003_590.4375))  // 9.5625 s before an hour boundary
        let rule = RateLimiter.Rule(limit: 100, window: 3600)
        let before = RateLimiter(store: store, clock: clock)
        for _ in 0..<100 { try await Self.take(before, "k", rule) }
        clock.advance(by: 20)  // 10.4375 s into the next hour
        let after = RateLimiter(store: store, clock: clock)
        var allowed = 0
        while allowed < 100, (try? await after.reserve([("k", rule)])) != nil { allowed += 1 }
        #expect(allowed <= 1, "a fixed window would allow 100 more; the estimate allows \(allowed)")
        clock.advance(by: 1800)
        #expect(try await Self.allows(after, "k", rule), "half an hour on, half the burst has slid out")
    }

    @Test func twoInstancesOnOneStoreShareTheCount() async throws {
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let a = RateLimiter(store: store, clock: clock), b = RateLimiter(store: store, clock: clock)
        let rule = RateLimiter.Rule(limit: 3, window: 600)
        try await Self.take(a, "k", rule)
        try await Self.take(b, "k", rule)
        let (allowedA, allowedB) = (try await Self.allows(a, "k", rule), try await Self.allows(b, "k", rule))
        #expect(allowedA && allowedB)
        try await Self.take(a, "k", rule)
        #expect(try await !Self.allows(b, "k", rule), "B sees what A counted")
    }

    /// Fifty racing reservations against a budget of 7: exactly 7 hold a slot, and a released slot is taken again.
    @Test func aBurstGetsExactlyTheBudget() async throws {
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.5))
        let rule = RateLimiter.Rule(limit: 7, window: 3600)
        let limiters = [RateLimiter(store: store, clock: clock), RateLimiter(store: store, clock: clock)]
        let held = try await withThrowingTaskGroup(of: RateLimiter.Reservation?.self) { group in
            for index in 0..<50 {
                group.addTask { try? await limiters[index % 2].reserve([("burst", rule), ("other:\(index % 3)", rule)]) }
            }
            return try await group.reduce(into: [RateLimiter.Reservation]()) { if let held = $1 { $0.append(held) } }
        }
        let start = RateLimiter.window(rule, at: clock.now()).start
        #expect(held.count == 7)
        #expect(try await store.rateCounter(key: "burst", windowStart: start) == 7)
        let others = try await store.rateCounters((0..<3).map { RateWindow(key: "other:\($0)", start: start) })
        #expect(others.reduce(0, +) == 7, "a refused reservation holds no slot of its other keys: \(others)")
        try await limiters[0].release(held[0])
        #expect(try await Self.allows(limiters[1], "burst", rule), "a released slot is free again")
    }

    @Test func aShortRulesExpiryNeverWipesALongerRulesCount() async throws {
        // The old in-process sweep dropped every counter older than the rule being recorded, so a 10-minute rule
        // wiped 1-hour counters. Now each window expires with its own length.
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let limiter = RateLimiter(store: store, clock: clock)
        let hour = RateLimiter.Rule(limit: 2, window: 3600), tenMinutes = RateLimiter.Rule(limit: 100, window: 600)
        try await Self.take(limiter, "long", hour)
        try await Self.take(limiter, "long", hour)
        clock.advance(by: 900)
        try await Self.take(limiter, "short", tenMinutes)
        _ = try await store.purge(Housekeeping(now: clock.now(), outboxCreatedBefore: .distantPast, auditBefore: nil))
        #expect(try await !Self.allows(limiter, "long", hour), "the hour's count must survive")
    }
}
