import Foundation
import HearthCore

/// The outbox of emails to deliver: claimed by leases, given up with their secrets blanked.
extension SQLStore {
    public func enqueueOutboxMessage(_ message: OutboxMessage) async throws {
        let created = message.createdAt.epochMilliseconds
        try await execute("""
            INSERT INTO outbox (id, project_id, created_at, next_attempt_at, data)
            VALUES (\(message.id), \(message.projectID), \(created), \(created), \(try codec.encode(message)))
            """)
    }

    public func outboxMessages(projectID: String) async throws -> [OutboxMessage] {
        try await read("SELECT data FROM outbox WHERE project_id = \(projectID) ORDER BY created_at, id")
            .map { try decode(OutboxMessage.self, $0[0]) }
    }

    /// Due messages, leased until `leaseUntil`. Instances claiming at the same moment take different messages
    /// (PostgreSQL's `SKIP LOCKED`; SQLite has one writer).
    public func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await execute("""
            UPDATE outbox SET next_attempt_at = \(leaseUntil.epochMilliseconds) WHERE id IN (
                SELECT id FROM outbox WHERE next_attempt_at <= \(now.epochMilliseconds) ORDER BY next_attempt_at, created_at
                LIMIT \(limit)\(SQLFragment.skipLocked(of: nil)))
            RETURNING data, attempts
            """).map { OutboxDelivery(message: try decode(OutboxMessage.self, $0[0]), attempts: $0[1].int ?? 0) }
            .sorted { $0.message.createdAt < $1.message.createdAt }
    }

    public func deleteOutboxMessage(id: String) async throws {
        try await execute("DELETE FROM outbox WHERE id = \(id)")
        await driver.scrubDeletedRows()
    }

    /// A message given up (no next attempt) keeps no code or link.
    public func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        let data: SQL = nextAttemptAt == nil ? "\(SQLFragment.jsonBlanked(column: "data", fields: ["code", "link"]))" : "data"
        try await execute("""
            UPDATE outbox SET attempts = \(attempts), next_attempt_at = \(nextAttemptAt?.epochMilliseconds),
                last_error = \(lastError), data = \(data)
            WHERE id = \(id)
            """)
    }

    public func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus] {
        try await read("""
            SELECT data, attempts, next_attempt_at, last_error FROM outbox WHERE project_id = \(projectID)
            ORDER BY created_at, id LIMIT \(max(0, limit))
            """).map { row in
            OutboxStatus(message: try decode(OutboxMessage.self, row[0]), attempts: row[1].int ?? 0,
                         nextAttemptAt: row[2].integer.map(Date.init(epochMilliseconds:)),
                         lastError: row[3].string.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    public func outboxBacklog() async throws -> (pending: Int, givenUp: Int) {
        let row = try await read("""
            SELECT coalesce(sum(CASE WHEN next_attempt_at IS NOT NULL THEN 1 ELSE 0 END), 0),
                   coalesce(sum(CASE WHEN next_attempt_at IS NULL THEN 1 ELSE 0 END), 0)
            FROM outbox
            """).first
        return (row?[0].int ?? 0, row?[1].int ?? 0)
    }
}

extension Date {
    init(epochMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(epochMilliseconds) / 1000) }
}
