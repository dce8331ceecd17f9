import Foundation
import Synchronization

/// Counts what a store asks of its database, so tests can hold a use case to a budget (a password sign-in: at most
/// two reads and one write transaction). A write transaction is one atomic change, whatever its statements.
public final class StatementCounter: Sendable {
    private let counts = Mutex((reads: 0, writes: 0))

    public init() {}

    public func read() { counts.withLock { $0.reads += 1 } }
    public func write() { counts.withLock { $0.writes += 1 } }

    /// Reads and write transactions since the last reset.
    public var current: (reads: Int, writes: Int) { counts.withLock { $0 } }
    public func reset() { counts.withLock { $0 = (0, 0) } }
}
