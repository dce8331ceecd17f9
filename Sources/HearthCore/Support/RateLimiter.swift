import Foundation

/// Counts events per key in windows kept in the store, so every instance on one database enforces one limit: the
/// basis of Hearth's abuse limits. A window's count is weighed with the previous window's share of the last
/// `window` seconds (a sliding-window estimate), so a burst split across a window boundary gets no second quota.
///
/// ```swift
/// let limiter = RateLimiter(store: store, clock: SystemClock())
/// let rule = RateLimiter.Rule(limit: 10, window: 600)
/// guard try await limiter.isAllowed("signin-failed-email:ada@example.com", rule) else { throw AuthFailure.tooManyAttempts }
/// try await limiter.record("signin-failed-email:ada@example.com", rule)
/// ```
///
/// Windows are aligned to multiples of their length (so instances agree on where one starts) and each is kept one
/// length past its end, while it still weighs on the next. The fast path: once a key reaches its limit, this process remembers it until the window
/// ends and refuses without asking the store again — a locked-out guesser costs no query.
public final class RateLimiter: @unchecked Sendable {
    /// At most `limit` events per `window` seconds.
    public struct Rule: Sendable, Equatable, Codable {
        public var limit: Int
        public var window: TimeInterval

        public init(limit: Int, window: TimeInterval) {
            self.limit = limit
            self.window = window
        }
    }

    private let store: any IdentityStore
    private let clock: any HearthClock
    /// Turns per key in this process (see ``KeyedGate``).
    public let turns = KeyedGate()
    private let lock = NSLock()
    /// Keys known to be at their limit, until their window ends.
    private var blocked: [String: Date] = [:]
    /// Keys whose refusal was audited in this window: one event per key and window, not one per refused request.
    private var reported: [String: Date] = [:]

    public init(store: any IdentityStore, clock: any HearthClock) {
        self.store = store
        self.clock = clock
    }

    /// The first of `keys` for which one more event would exceed its rule, or `nil` when all allow it: every
    /// key's current and previous window read in one query.
    public func firstRefused(_ keys: [(String, Rule)]) async throws -> (String, Rule)? {
        let now = clock.now()
        if let blocked = keys.first(where: { isBlocked($0.0, now: now) }) { return blocked }
        var windows: [RateWindow] = []
        for (key, rule) in keys {
            let window = Self.window(rule, at: now)
            windows += [RateWindow(key: key, start: window.start), RateWindow(key: key, start: window.start - window.length)]
        }
        let counts = try await store.rateCounters(windows)
        for (index, (key, rule)) in keys.enumerated() {
            let window = Self.window(rule, at: now)
            let (count, previous) = (counts[2 * index], counts[2 * index + 1])
            if count >= rule.limit {
                block(key, until: window.end)
                return (key, rule)
            }
            if Self.estimate(current: count, previous: previous, window: window, now: now) >= Double(rule.limit) {
                return (key, rule)
            }
        }
        return nil
    }

    /// Whether one more event under `key` would stay within `rule`.
    public func isAllowed(_ key: String, _ rule: Rule) async throws -> Bool {
        try await firstRefused([(key, rule)]) == nil
    }

    /// Counts one event under each of `keys`, in one write transaction.
    public func record(_ keys: [(String, Rule)]) async throws {
        let now = clock.now()
        let windows = keys.map { Self.window($0.1, at: now) }
        let counts = try await store.write { tx in
            for ((key, _), window) in zip(keys, windows) {
                tx.incrementRateCounter(key: key, windowStart: window.start, expiresAt: window.end + window.length)
            }
        }.counts
        for (((key, rule), window), count) in zip(zip(keys, windows), counts) where count >= rule.limit {
            block(key, until: window.end)
        }
    }

    /// Counts one event under `key`.
    public func record(_ key: String, _ rule: Rule) async throws {
        try await record([(key, rule)])
    }

    /// A slot taken by ``reserve(_:_:)``: given back with ``release(_:)`` when the event turns out not to count.
    public struct Reservation: Sendable {
        let key: String
        let windowStart: Date
        let expiresAt: Date
    }

    /// Takes one event under `key` before the work it limits, or `nil` (nothing taken) when that would exceed
    /// `rule`. Checking first and counting after lets every request that races past the check do the work (sixty
    /// concurrent password guesses all hashed); a slot counted before is one a racing request cannot also have.
    public func reserve(_ key: String, _ rule: Rule) async throws -> Reservation? {
        let now = clock.now()
        if isBlocked(key, now: now) { return nil }
        let window = Self.window(rule, at: now)
        let reservation = Reservation(key: key, windowStart: window.start, expiresAt: window.end + window.length)
        let count = try await store.incrementRateCounter(key: key, windowStart: window.start,
                                                         expiresAt: reservation.expiresAt, by: 1)
        let previous = count > rule.limit ? 0 : try await store.rateCounter(key: key, windowStart: window.start - window.length)
        // The same test as isAllowed, on the count before this event.
        guard count <= rule.limit, Self.estimate(current: count - 1, previous: previous, window: window, now: now) < Double(rule.limit)
        else {
            try await release(reservation)
            if count > rule.limit { block(key, until: window.end) }
            return nil
        }
        return reservation
    }

    /// Whether a refusal under `key` is the first this process has seen in its window (the one to audit).
    public func isFirstRefusal(_ key: String, _ rule: Rule) -> Bool {
        let now = clock.now()
        let end = Self.window(rule, at: now).end
        return lock.withLock {
            if reported.count >= 10_000 { reported = reported.filter { $0.value > now } }
            if let until = reported[key], until > now { return false }
            reported[key] = end
            return true
        }
    }

    /// Gives a reserved slot back (the sign-in it held succeeded, so it is not a failure to count).
    public func release(_ reservation: Reservation) async throws {
        _ = try await store.incrementRateCounter(key: reservation.key, windowStart: reservation.windowStart,
                                                 expiresAt: reservation.expiresAt, by: -1)
    }

    /// Events in the last window's length: this window's, plus the previous window's weighed by how much of it
    /// that length still covers.
    static func estimate(current: Int, previous: Int, window: (start: Date, end: Date, length: TimeInterval),
                         now: Date) -> Double {
        let elapsed = now.timeIntervalSince(window.start) / window.length
        return Double(current) + Double(previous) * max(0, 1 - elapsed)
    }

    /// The aligned window of `rule` that contains `now`.
    static func window(_ rule: Rule, at now: Date) -> (start: Date, end: Date, length: TimeInterval) {
        let length = max(rule.window.rounded(.up), 1)
        let start = (now.timeIntervalSince1970 / length).rounded(.down) * length
        return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: start + length), length)
    }

    private func isBlocked(_ key: String, now: Date) -> Bool {
        lock.withLock {
            guard let until = blocked[key] else { return false }
            if until > now { return true }
            blocked[key] = nil
            return false
        }
    }

    private func block(_ key: String, until end: Date) {
        lock.withLock {
            // Each entry ends with its own window, so a short rule's sweep never drops a longer rule's entry.
            if blocked.count >= 10_000 {
                let now = clock.now()
                blocked = blocked.filter { $0.value > now }
            }
            blocked[key] = end
        }
    }
}
