import Foundation
import Synchronization

/// Whether any webhook endpoint exists, as a SQL store last read it: the stores skip the statement that queues an
/// audit event for endpoints when there are none, so a project without webhooks pays nothing for them (measured:
/// that statement cost SQLite sign-ins about a quarter of their throughput, `scripts/load-test.sh`).
///
/// The request path never reads it again once known: the store reads it when it migrates (or at its first use), an
/// endpoint added through the store sets it, and the webhook sender's poll (every few seconds) reads it afresh, so an
/// endpoint another process adds is seen within one poll.
public final class EndpointPresence: Sendable {
    private let known = Mutex<Bool?>(nil)

    public init() {}

    /// Whether endpoints exist; `read` only when it was never known.
    public func exists(read: () async throws -> Bool) async throws -> Bool {
        if let exists = known.withLock({ $0 }) { return exists }
        let exists = try await read()
        update(exists)
        return exists
    }

    /// Whether the last reading found no endpoint (so a stored event queued nothing to deliver).
    public var knownAbsent: Bool { known.withLock { $0 == false } }

    /// What a fresh reading (or an endpoint just added) says.
    public func update(_ exists: Bool) { known.withLock { $0 = exists } }
}
