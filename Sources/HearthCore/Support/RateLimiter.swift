import Foundation

/// Counts events per key in windows kept in the store, so every instance on one database enforces one limit: the
/// basis of Hearth's abuse limits. A window's count is weighed with the previous window's share of the last
/// `window` seconds (a sliding-window estimate), so a burst split across a window boundary gets no second quota.
///
/// Every limit is a reservation: the slot is taken in the store before the work, by one atomic increment that
/// returns the count, and the decision is made on that count. Racing requests (threads, instances) cannot all pass
/// a check before the first is counted; a burst of 50 against a budget of N lets exactly N through. The caller
/// releases the slot when the event turns out not to count (a sign-in that succeeded, a text that was not sent).
///
/// ```swift
/// let limiter = RateLimiter(store: store, clock: SystemClock())
/// let rule = RateLimiter.Rule(limit: 10, window: 600)
/// let slot = try await limiter.reserve([("signin-failed-email:ada@example.com", rule)])  // throws Refusal
/// if signedIn { try await limiter.release(slot) }
/// ```
///
/// Windows are aligned to multiples of their length (so instances agree on where one starts) and each is kept one
/// length past its end, while it still weighs on the next.
public struct RateLimiter: Sendable {
    /// At most `limit` events per `window` seconds.
    public struct Rule: Sendable, Equatable, Codable {
        public var limit: Int
        public var window: TimeInterval

        public init(limit: Int, window: TimeInterval) {
            self.limit = limit
            self.window = window
        }
    }

    /// The key whose rule refused a reservation; nothing is held when it is thrown.
    public struct Refusal: Error, Equatable {
        public let key: String
        public let rule: Rule
    }

    /// Slots taken by ``reserve(_:)``: given back with ``release(_:)`` when the event turns out not to count.
    public struct Reservation: Sendable {
        struct Slot: Sendable {
            let key: String
            let windowStart: Date
            let expiresAt: Date
        }
        let slots: [Slot]
        /// Each key's count in its current window, this reservation included, in the order the keys were given.
        public let counts: [Int]

        init(slots: [Slot], counts: [Int]) {
            self.slots = slots
            self.counts = counts
        }

        /// One slot already taken by a raw store increment, so it can be released with the others.
        public init(key: String, windowStart: Date, expiresAt: Date, count: Int) {
            self.init(slots: [Slot(key: key, windowStart: windowStart, expiresAt: expiresAt)], counts: [count])
        }

        /// Holds nothing: what a disabled limit reserves.
        public static let none = Reservation(slots: [], counts: [])

        /// Both reservations' slots, released together.
        public func merged(with other: Reservation) -> Reservation {
            Reservation(slots: slots + other.slots, counts: counts + other.counts)
        }
    }

    private let store: any IdentityStore
    private let clock: any HearthClock
    /// Turns per key in this process (see ``KeyedGate``): concurrent sign-ins to one account queue for their
    /// reservation instead of being refused while others hold the account's slots.
    public let turns = KeyedGate()
    /// Refusals already audited, one per key and window (see ``isFirstRefusal(_:_:)``).
    private let reported = ReportedRefusals()

    public init(store: any IdentityStore, clock: any HearthClock) {
        self.store = store
        self.clock = clock
    }

    /// Takes one event under every one of `keys` before the work they limit, or none of them: throws ``Refusal``
    /// naming the first key that one more event would put over its rule.
    ///
    /// One read of every key's current and previous window turns away a key already over its rule without a write
    /// (a locked-out guesser costs one query). Then one write transaction increments every key and returns the
    /// counts; the decision is made on those, so of racing requests only as many as the rule allows get a slot.
    public func reserve(_ keys: [(String, Rule)]) async throws -> Reservation {
        guard !keys.isEmpty else { return .none }
        let now = clock.now()
        let windows = keys.map { Self.window($0.1, at: now) }
        var reads: [RateWindow] = []
        for ((key, _), window) in zip(keys, windows) {
            reads += [RateWindow(key: key, start: window.start), RateWindow(key: key, start: window.start - window.length)]
        }
        let before = try await store.rateCounters(reads)
        for (index, (key, rule)) in keys.enumerated()
        where Self.estimate(current: before[2 * index], previous: before[2 * index + 1], window: windows[index], now: now)
            >= Double(rule.limit) {
            throw Refusal(key: key, rule: rule)
        }
        let slots = zip(keys, windows).map { Reservation.Slot(key: $0.0.0, windowStart: $0.1.start, expiresAt: $0.1.end + $0.1.length) }
        // Keys are incremented in one order everywhere, so two transactions on PostgreSQL cannot wait on each other.
        let order = slots.indices.sorted { slots[$0].key < slots[$1].key }
        let written = try await store.write { tx in
            for index in order {
                tx.incrementRateCounter(key: slots[index].key, windowStart: slots[index].windowStart,
                                        expiresAt: slots[index].expiresAt)
            }
        }.counts
        var counts = Array(repeating: 0, count: slots.count)
        for (position, index) in order.enumerated() { counts[index] = written[position] }
        let reservation = Reservation(slots: slots, counts: counts)
        for (index, (key, rule)) in keys.enumerated() {
            // The same test as the read above, on the count before this event.
            let previous = before[2 * index + 1]
            if counts[index] > rule.limit
                || Self.estimate(current: counts[index] - 1, previous: previous, window: windows[index], now: now) >= Double(rule.limit) {
                try await release(reservation)
                throw Refusal(key: key, rule: rule)
            }
        }
        return reservation
    }

    /// Gives reserved slots back, in one write transaction.
    public func release(_ reservation: Reservation) async throws {
        guard !reservation.slots.isEmpty else { return }
        let slots = reservation.slots.sorted { $0.key < $1.key }
        _ = try await store.write { tx in
            for slot in slots {
                tx.incrementRateCounter(key: slot.key, windowStart: slot.windowStart, expiresAt: slot.expiresAt, by: -1)
            }
        }
    }

    /// Whether a refusal under `key` is the first this process has seen in its window (the one to audit).
    public func isFirstRefusal(_ key: String, _ rule: Rule) -> Bool {
        let now = clock.now()
        return reported.first(key, until: Self.window(rule, at: now).end, now: now)
    }

    /// Events in the last window's length: this window's, plus the previous window's weighed by how much of it
    /// that length still covers.
    static func estimate(current: Int, previous: Int, window: (start: Date, end: Date, length: TimeInterval),
                         now: Date) -> Double {
        let elapsed = now.timeIntervalSince(window.start) / window.length
        return Double(current) + Double(previous) * max(0, 1 - elapsed)
    }

    /// The aligned window of `rule` that contains `now`.
    public static func window(_ rule: Rule, at now: Date) -> (start: Date, end: Date, length: TimeInterval) {
        let length = max(rule.window.rounded(.up), 1)
        let start = (now.timeIntervalSince1970 / length).rounded(.down) * length
        return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: start + length), length)
    }
}

/// Keys whose refusal was audited in this window: one event per key and window, not one per refused request.
private final class ReportedRefusals: @unchecked Sendable {
    private let lock = NSLock()
    private var until: [String: Date] = [:]

    func first(_ key: String, until end: Date, now: Date) -> Bool {
        lock.withLock {
            if until.count >= 10_000 { until = until.filter { $0.value > now } }
            if let known = until[key], known > now { return false }
            until[key] = end
            return true
        }
    }
}
