import Foundation

/// The time source of every use-case, injectable so that tests can move time by hand.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
/// clock.advance(by: 3601)   // an ID token issued before is now expired
/// ```
public protocol HearthClock: Sendable {
    func now() -> Date
    /// Suspends until `date` (a ``ManualClock`` moves there at once).
    func sleep(until date: Date) async throws
}

extension HearthClock {
    public func sleep(until date: Date) async throws {
        let wait = date.timeIntervalSince(now())
        if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) }
    }
}

/// The wall clock.
public struct SystemClock: HearthClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to; for tests.
public final class ManualClock: HearthClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    public func set(_ date: Date) { lock.withLock { current = date } }

    public func sleep(until date: Date) async throws { lock.withLock { current = max(current, date) } }
}

extension Date {
    /// Whole seconds since 1970, as Firebase's `validSince`, `iat` and `exp` use them.
    public var epochSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
    /// Whole milliseconds since 1970, as Firebase's `createdAt` and `lastLoginAt` use them.
    public var epochMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}

extension Date {
    /// Microseconds since 1970: the audit log's order key.
    public var epochMicros: Int64 { Int64((timeIntervalSince1970 * 1_000_000).rounded(.down)) }
}

/// Emulator mode's clock: the wall clock (or the one it wraps) until an app's test suite freezes or moves it through
/// `/emulator/v1/projects/{id}/clock`. Every use-case reads the time from it, so ID and refresh tokens, codes, links,
/// rate windows and the deletion of inactive anonymous users all see the moved time.
///
/// ```swift
/// let clock = EmulatorClock(wrapping: SystemClock())
/// clock.freeze()
/// clock.advance(by: 3601)   // an ID token issued before the advance is now expired
/// ```
public final class EmulatorClock: HearthClock, @unchecked Sendable {
    private let base: any HearthClock
    private let lock = NSLock()
    private var frozenAt: Date?
    private var offset: TimeInterval = 0

    public init(wrapping base: any HearthClock) { self.base = base }

    public func now() -> Date { lock.withLock { frozenAt ?? base.now() + offset } }

    /// Whether time stands still until the next ``advance(by:)``.
    public var isFrozen: Bool { lock.withLock { frozenAt != nil } }

    /// Stops the clock at `date`, or where it is now.
    public func freeze(at date: Date? = nil) {
        lock.withLock { frozenAt = date ?? frozenAt ?? base.now() + offset }
    }

    /// Moves the clock forward, frozen or running.
    public func advance(by seconds: TimeInterval) {
        lock.withLock {
            if let frozen = frozenAt { frozenAt = frozen + seconds } else { offset += seconds }
        }
    }

    /// Back to the wall clock.
    public func reset() {
        lock.withLock {
            frozenAt = nil
            offset = 0
        }
    }
}
