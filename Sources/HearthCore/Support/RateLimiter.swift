import Foundation
import Synchronization

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

    private let store: any UnitOfWorkStore & OperationsStore
    private let clock: any HearthClock
    /// Turns per key in this process (see ``KeyedGate``): concurrent sign-ins to one account queue for their
    /// reservation instead of being refused while others hold the account's slots.
    public let turns = KeyedGate()
    /// Refusals already audited, one per key and window (see ``isFirstRefusal(_:_:)``).
    private let reported = ReportedRefusals()
    /// Keys this process saw refused, until their window ends: a request under one is checked by a read first, so
    /// a flood against a locked-out key costs reads, not write transactions (SQLite's single writer stays free).
    private let refusedKeys = ReportedRefusals()

    public init(store: any UnitOfWorkStore & OperationsStore, clock: any HearthClock) {
        self.store = store
        self.clock = clock
    }

    /// Takes one event under every one of `keys` before the work they limit, or none of them: throws ``Refusal``
    /// naming the first key that one more event would put over its rule.
    ///
    /// One write transaction: it reads each key's previous window, increments every key's current one (sorted, so
    /// two PostgreSQL transactions cannot wait on each other) and decides on the counts it gets back. A refusal
    /// undoes the increments in the same transaction, so of racing requests only as many as the rule allows get
    /// a slot, and a refused request leaves nothing behind.
    public func reserve(_ keys: [(String, Rule)]) async throws -> Reservation {
        guard !keys.isEmpty else { return .none }
        let now = clock.now()
        let windows = keys.map { Self.window($0.1, at: now) }
        let slots = zip(keys, windows).map { Reservation.Slot(key: $0.0.0, windowStart: $0.1.start, expiresAt: $0.1.end + $0.1.length) }
        let order = slots.indices.sorted { slots[$0].key < slots[$1].key }
        // Where each key's count lands in the outcome.
        let position = slots.indices.map { index in order.firstIndex(of: index) ?? 0 }
        let previous = order.map { RateWindow(key: slots[$0].key, start: windows[$0].start - windows[$0].length) }
        if keys.contains(where: { refusedKeys.holds($0.0, now: now) }) {
            // Refused here before in this window: still over is answered by a read alone.
            let counts = try await store.rateCounters(order.map { RateWindow(key: slots[$0].key, start: windows[$0].start) } + previous)
            for (index, (key, rule)) in keys.enumerated()
            where Self.estimate(current: counts[position[index]], previous: counts[order.count + position[index]],
                                window: windows[index], now: now) >= Double(rule.limit) {
                throw Refusal(key: key, rule: rule)
            }
        }
        let written: [Int]
        do {
            written = try await reserving(slots, order: order, previous: previous, keys: keys, position: position,
                                          windows: windows, now: now)
        } catch let refusal as Refusal {
            _ = refusedKeys.first(refusal.key, until: windows[keys.firstIndex { $0.0 == refusal.key } ?? 0].end, now: now)
            throw refusal
        }
        return Reservation(slots: slots, counts: slots.indices.map { written[position[$0]] })
    }

    /// The reservation's one write transaction; its counts in `order`.
    private func reserving(_ slots: [Reservation.Slot], order: [Int], previous: [RateWindow], keys: [(String, Rule)],
                           position: [Int], windows: [(start: Date, end: Date, length: TimeInterval)], now: Date)
        async throws -> [Int] {
        try await store.write { tx in
            tx.readRateCounters(previous)
            for index in order {
                tx.incrementRateCounter(key: slots[index].key, windowStart: slots[index].windowStart,
                                        expiresAt: slots[index].expiresAt)
            }
            tx.require { outcome in
                for (index, (key, rule)) in keys.enumerated() {
                    // Over when this event passes the limit, or when the events before it already fill the
                    // sliding window (this window's, plus the previous one's share of it).
                    let count = outcome.counts[position[index]]
                    if count > rule.limit || Self.estimate(current: count - 1, previous: outcome.read[position[index]],
                                                           window: windows[index], now: now) >= Double(rule.limit) {
                        throw Refusal(key: key, rule: rule)
                    }
                }
            }
        }.counts
    }

    /// Gives reserved slots back, in one write transaction.
    public func release(_ reservation: Reservation) async throws {
        guard !reservation.slots.isEmpty else { return }
        _ = try await store.write { tx in Self.release(reservation, in: &tx) }
    }

    /// Gives reserved slots back within a unit of work (the one that records the event that made them not count).
    public static func release(_ reservation: Reservation, in tx: inout UnitOfWork) {
        for slot in reservation.slots.sorted(by: { $0.key < $1.key }) {
            tx.incrementRateCounter(key: slot.key, windowStart: slot.windowStart, expiresAt: slot.expiresAt, by: -1)
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

    /// Whether `key` is noted and its time has not run out.
    func holds(_ key: String, now: Date) -> Bool { lock.withLock { until[key].map { $0 > now } ?? false } }

    func first(_ key: String, until end: Date, now: Date) -> Bool {
        lock.withLock {
            if until.count >= 10_000 { until = until.filter { $0.value > now } }
            if let known = until[key], known > now { return false }
            until[key] = end
            return true
        }
    }
}

/// Slots a request holds that its success gives back, carried to the success's own unit of work: the middleware
/// that reserved them sets ``RateLimiter/heldUntilSuccess`` around the handler, the sign-in's unit of work releases
/// them (``RateLimiter/release(_:in:)``), and success costs no transaction of its own for it. The middleware gives
/// them back itself only when no unit did.
public final class HeldSlots: Sendable {
    private let state: Mutex<(reservation: RateLimiter.Reservation, released: Bool)>

    public init(_ reservation: RateLimiter.Reservation) { state = Mutex((reservation, false)) }

    /// The slots, for one unit of work to release; nil once claimed.
    func claim() -> RateLimiter.Reservation? {
        state.withLock { held in
            guard !held.released else { return nil }
            held.released = true
            return held.reservation
        }
    }

    /// The unit that claimed the slots did not commit: they are held again.
    func unclaim() { state.withLock { $0.released = false } }

    /// Whether a committed unit of work gave the slots back.
    public var isReleased: Bool { state.withLock { $0.released } }
}

extension RateLimiter {
    /// The slots the current request gives back when it succeeds (see ``HeldSlots``).
    @TaskLocal public static var heldUntilSuccess: HeldSlots?
}
