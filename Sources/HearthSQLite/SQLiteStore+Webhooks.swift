import Foundation
import HearthCore
import SQLiteNIO

/// Webhook endpoints and their messages (see ``WebhookStore``). An audit event is queued for the endpoints that take
/// its kind by one `INSERT … SELECT` in the transaction that stores it.
extension SQLiteStore {
    /// Queues `event` for every endpoint of its project that takes its kind; returns how many.
    @discardableResult
    static func queueWebhooks(for event: AuditEvent, now: Date, _ db: SQLiteConnection) async throws -> Int {
        let created = Int(now.epochMilliseconds)
        return try await db.query("""
            INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
            SELECT ? || ':' || id || ':' || ?, project_id, id, ?, ?, ?, ?, ? FROM webhook_endpoints
            WHERE project_id = ? AND audit_kinds LIKE ?
            ON CONFLICT DO NOTHING RETURNING 1
            """, [.text(event.id), .integer(created), .text(event.id), .text(event.localID ?? ""),
                  .integer(Int(event.at.epochMicros)), .integer(created), .integer(created), .text(event.projectID),
                  .text("%," + event.kind + ",%")]).count
    }

    /// Whether `work` stores an event webhooks take while any endpoint exists (read outside the write lock, cached).
    func webhooksListening(for work: UnitOfWork) async throws -> Bool {
        guard work.storesWebhookEvent else { return false }
        return try await endpoints.exists { try await anyWebhookEndpoint() }
    }

    func anyWebhookEndpoint() async throws -> Bool { try await !read("SELECT 1 FROM webhook_endpoints LIMIT 1").isEmpty }

    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        let binds: [SQLiteData] = [.text(endpoint.projectID), .text(endpoint.id),
                                   .text("," + endpoint.auditKinds.joined(separator: ",") + ","),
                                   .integer(Int(endpoint.createdAt.epochMilliseconds)), .text(try codec.encode(endpoint))]
        try await write { db in
            _ = try await db.query("""
                INSERT INTO webhook_endpoints (project_id, id, audit_kinds, created_at, data) VALUES (?, ?, ?, ?, ?)
                """, binds)
        }
        endpoints.update(true)
    }

    public func webhookEndpoints(projectID: String) async throws -> [WebhookEndpoint] {
        try await read("SELECT data FROM webhook_endpoints WHERE project_id = ? ORDER BY created_at, id", [.text(projectID)])
            .map { try codec.decode(WebhookEndpoint.self, from: $0.column("data")?.string ?? "") }
    }

    public func deleteWebhookEndpoint(projectID: String, id: String) async throws -> Bool {
        try await write { db in
            let removed = try await db.query(
                "DELETE FROM webhook_endpoints WHERE project_id = ? AND id = ? RETURNING 1", [.text(projectID), .text(id)])
            _ = try await db.query("""
                DELETE FROM webhook_messages WHERE project_id = ? AND endpoint_id = ? AND delivered_at IS NULL
                """, [.text(projectID), .text(id)])
            return !removed.isEmpty
        }
    }

    public func claimWebhookMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookMessage] {
        let binds: [SQLiteData] = [.integer(Int(leaseUntil.epochMilliseconds)), .integer(Int(now.epochMilliseconds)),
                                   .integer(limit)]
        endpoints.update(try await anyWebhookEndpoint())  // the sender's poll keeps the request path's answer fresh
        // A read first: the sender wakes at every stored event, and an empty queue must not take the write lock.
        guard try await !read("SELECT 1 FROM webhook_messages WHERE next_attempt_at <= ? LIMIT 1",
                              [.integer(Int(now.epochMilliseconds))]).isEmpty else { return [] }
        let rows = try await write { db in
            let ids = try await db.query("""
                UPDATE webhook_messages SET next_attempt_at = ? WHERE id IN (
                    SELECT m.id FROM webhook_messages AS m
                    WHERE m.next_attempt_at <= ? AND m.delivered_at IS NULL AND NOT EXISTS (
                        SELECT 1 FROM webhook_messages AS p
                        WHERE p.project_id = m.project_id AND p.endpoint_id = m.endpoint_id AND p.local_id = m.local_id
                          AND p.delivered_at IS NULL AND p.next_attempt_at IS NOT NULL
                          AND (p.seq < m.seq OR (p.seq = m.seq AND p.id < m.id)))
                    ORDER BY m.seq, m.id LIMIT ?)
                RETURNING id
                """, binds).compactMap { $0.column("id")?.string }
            guard !ids.isEmpty else { return [SQLiteRow]() }
            return try await db.query(Self.messageQuery("m.id IN (" + ids.map { _ in "?" }.joined(separator: ", ") + ")")
                                      + " ORDER BY m.seq, m.id", ids.map { .text($0) })
        }
        return try rows.map(message)
    }

    public func recordWebhookAttempt(id: String, attempts: Int, deliveredAt: Date?, nextAttemptAt: Date?,
                                     lastError: String?) async throws {
        let next: SQLiteData = deliveredAt == nil ? nextAttemptAt.map { .integer(Int($0.epochMilliseconds)) } ?? .null : .null
        let binds: [SQLiteData] = [.integer(attempts), deliveredAt.map { .integer(Int($0.epochMilliseconds)) } ?? .null,
                                   next, lastError.map { .text($0) } ?? .null, .text(id)]
        try await write { db in
            _ = try await db.query("""
                UPDATE webhook_messages SET attempts = ?, delivered_at = ?, next_attempt_at = ?, last_error = ? WHERE id = ?
                """, binds)
        }
    }

    public func replayWebhookEvents(projectID: String, since: Date, endpointID: String?, now: Date) async throws -> Int {
        let created = Int(now.epochMilliseconds)
        let binds: [SQLiteData] = [.integer(created), .integer(created), .integer(created), .text(projectID),
                                   .integer(Int(since.epochMicros)), endpointID.map { .text($0) } ?? .null,
                                   endpointID.map { .text($0) } ?? .null]
        return try await write { db in
            try await db.query("""
                INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
                SELECT a.id || ':' || e.id || ':' || ?, a.project_id, e.id, a.id, coalesce(a.local_id, ''), a.at_micros, ?, ?
                FROM audit_events AS a JOIN webhook_endpoints AS e ON e.project_id = a.project_id
                WHERE a.project_id = ? AND a.at_micros >= ? AND e.audit_kinds LIKE '%,' || a.kind || ',%'
                  AND (? IS NULL OR e.id = ?)
                ORDER BY a.at_micros, a.id
                ON CONFLICT DO NOTHING RETURNING 1
                """, binds).count
        }
    }

    public func webhookMessages(projectID: String, limit: Int) async throws -> [WebhookMessage] {
        try await read(Self.messageQuery("m.project_id = ?") + " ORDER BY m.created_at DESC, m.seq DESC LIMIT ?",
                       [.text(projectID), .integer(limit)]).map(message)
    }

    /// Messages with their event and endpoint, where `condition` holds.
    static func messageQuery(_ condition: String) -> String {
        """
        SELECT m.id, m.project_id, m.endpoint_id, m.event_id, m.attempts, m.next_attempt_at, m.delivered_at,
               m.last_error, m.created_at, a.data AS event, e.data AS endpoint
        FROM webhook_messages AS m LEFT JOIN audit_events AS a ON a.id = m.event_id
        LEFT JOIN webhook_endpoints AS e ON e.project_id = m.project_id AND e.id = m.endpoint_id
        WHERE \(condition)
        """
    }

    private func message(_ row: SQLiteRow) throws -> WebhookMessage {
        func date(_ column: String) -> Date? {
            row.column(column)?.integer.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        return WebhookMessage(
            id: row.column("id")?.string ?? "", projectID: row.column("project_id")?.string ?? "",
            endpointID: row.column("endpoint_id")?.string ?? "", eventID: row.column("event_id")?.string ?? "",
            attempts: row.column("attempts")?.integer ?? 0, nextAttemptAt: date("next_attempt_at"),
            deliveredAt: date("delivered_at"), lastError: row.column("last_error")?.string,
            createdAt: date("created_at") ?? Date(timeIntervalSince1970: 0),
            event: try row.column("event")?.string.map { try codec.decode(AuditEvent.self, from: $0) },
            endpoint: try row.column("endpoint")?.string.map { try codec.decode(WebhookEndpoint.self, from: $0) })
    }
}
