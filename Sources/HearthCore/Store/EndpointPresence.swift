import Foundation
import Synchronization

/// Whether any webhook endpoint exists, read again at most every `interval`: the SQL stores skip the statement that
/// queues an audit event for endpoints when there are none, so a project without webhooks pays nothing for them
/// (measured: that statement cost SQLite sign-ins about 15 % of their throughput, `scripts/load-test.sh`). An
/// endpoint added by another process is seen within `interval`; one added through this store at once.
public final class EndpointPresence: Sendable {
    private let state = Mutex<(exists: Bool, readAt: ContinuousClock.Instant?)>((false, nil))
    private let interval: Duration

    public init(interval: Duration = .seconds(2)) { self.interval = interval }

    /// Whether endpoints exist, from `read` when the last reading is older than the interval.
    public func exists(read: () async throws -> Bool) async throws -> Bool {
        let now = ContinuousClock.now
        if let known = state.withLock({ $0.readAt.map { now - $0 < interval } == true ? $0.exists : nil }) { return known }
        let exists = try await read()
        state.withLock { $0 = (exists, now) }
        return exists
    }

    /// An endpoint was just added here.
    public func added() { state.withLock { $0 = (true, ContinuousClock.now) } }
}
