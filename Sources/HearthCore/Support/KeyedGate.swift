import Synchronization

/// Lets one task at a time through per key, in this process; the others wait their turn, first come first served.
///
/// The failed-sign-in limit uses it per account, in front of its reservation (``RateLimiter/reserve(_:)``, which
/// alone makes the limit exact across instances): concurrent sign-ins to one account in this process queue for a
/// slot rather than being refused while earlier ones hold theirs, so a burst of right passwords all sign in.
///
/// ```swift
/// let gate = KeyedGate()
/// try await gate.inTurn("signin-failed-email:ada@example.com") { try await checkPassword() }
/// ```
public final class KeyedGate: Sendable {
    /// Keys held now, with the tasks waiting for each.
    private let held = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    public init() {}

    public func inTurn<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let free = held.withLock { held in
                guard held[key] != nil else {
                    held[key] = []
                    return true
                }
                held[key]!.append(turn)
                return false
            }
            if free { turn.resume() }
        }
        defer {
            let next = held.withLock { held in
                guard var waiting = held[key], !waiting.isEmpty else {
                    held[key] = nil
                    return nil as CheckedContinuation<Void, Never>?
                }
                let first = waiting.removeFirst()
                held[key] = waiting
                return first
            }
            next?.resume()
        }
        return try await body()
    }

    /// Keys held or waited for now.
    public var count: Int { held.withLock { $0.count } }
}
