import Foundation

/// Emails waiting to be delivered, leased to one sender at a time, retried, and given up with a reason.
public protocol OutboxStore: Sendable {
    func enqueueOutboxMessage(_ message: OutboxMessage) async throws
    /// Pending messages of a project, oldest first.
    func outboxMessages(projectID: String) async throws -> [OutboxMessage]
    /// Leases up to `limit` messages due at `now` (oldest due first) until `leaseUntil`: a leased message is not
    /// handed out again before then, so several instances sharing a store never send one message twice at once,
    /// and a message whose sender died mid-delivery is retried when the lease runs out.
    func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery]
    /// Removes a delivered message, leaving no copy of its code where the backend can avoid one (SQLite overwrites the
    /// row and empties its write-ahead log).
    func deleteOutboxMessage(id: String) async throws
    /// Records a failed attempt: the message is due again at `nextAttemptAt`, or never (`nil`: given up; it stays
    /// in the table with its last error for an operator to see, its code and link blanked: an undelivered code is
    /// nobody's, and a retry sends a new one).
    func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws
    /// Messages not yet delivered: due now or later, and given up (`nextAttemptAt` nil), for the backlog metrics.
    func outboxBacklog() async throws -> (pending: Int, givenUp: Int)
    /// A project's queued messages with their delivery state, oldest first, at most `limit`.
    func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus]
}
