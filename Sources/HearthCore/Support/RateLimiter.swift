import Foundation

/// Counts events per key in fixed windows, with an injected clock: the basis of Hearth's abuse limits.
///
/// ```swift
/// let limiter = RateLimiter(clock: SystemClock())
/// let rule = RateLimiter.Rule(limit: 10, window: 600)
/// guard limiter.isAllowed("signin-fail:ada@example.com", rule) else { throw AuthFailure.tooManyAttempts }
/// limiter.record("signin-fail:ada@example.com", rule)
/// ```
///
/// Counters live in this process (several instances behind one PostgreSQL each count on their own).
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

    private struct Counter {
        var windowStart: Date
        var count: Int
    }

    private let clock: any HearthClock
    private let lock = NSLock()
    private var counters: [String: Counter] = [:]
    /// Above this many keys, expired counters are swept before a new one is added.
    private let sweepThreshold: Int

    public init(clock: any HearthClock, sweepThreshold: Int = 100_000) {
        self.clock = clock
        self.sweepThreshold = sweepThreshold
    }

    /// Whether one more event under `key` would stay within `rule`.
    public func isAllowed(_ key: String, _ rule: Rule) -> Bool {
        let now = clock.now()
        return lock.withLock {
            guard let counter = counters[key], now.timeIntervalSince(counter.windowStart) < rule.window else {
                return true
            }
            return counter.count < rule.limit
        }
    }

    /// Counts one event under `key`.
    public func record(_ key: String, _ rule: Rule) {
        let now = clock.now()
        lock.withLock {
            if var counter = counters[key], now.timeIntervalSince(counter.windowStart) < rule.window {
                counter.count += 1
                counters[key] = counter
                return
            }
            if counters.count >= sweepThreshold {
                counters = counters.filter { now.timeIntervalSince($0.value.windowStart) < rule.window }
            }
            counters[key] = Counter(windowStart: now, count: 1)
        }
    }
}
