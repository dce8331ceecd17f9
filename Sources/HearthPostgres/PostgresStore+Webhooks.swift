import Foundation
import HearthCore
import PostgresNIO

/// Webhook endpoints and their messages (see ``WebhookStore``). An audit event is queued for the endpoints that take
/// its kind by one `INSERT … SELECT` in the transaction that stores it.
extension PostgresStore {
    /// Queues `event` for every endpoint of its project that takes its kind.
    static func queueWebhooks(for event: AuditEvent, now: Date, _ db: PostgresConnection, logger: Logger) async throws {
        let created = now.epochMilliseconds, suffix = String(now.epochMilliseconds)
        let (localID, seq, pattern) = (event.localID ?? "", event.at.epochMicros, "%," + event.kind + ",%")
        try await db.query("""
            INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
            SELECT \(event.id) || ':' || id || ':' || \(suffix), project_id, id, \(event.id), \(localID), \(seq),
                   \(created), \(created)
            FROM webhook_endpoints WHERE project_id = \(event.projectID) AND audit_kinds LIKE \(pattern)
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Whether `work` stores an event webhooks take while any endpoint exists (read outside the transaction, cached).
    func webhooksListening(for work: UnitOfWork) async throws -> Bool {
        guard work.storesWebhookEvent else { return false }
        return try await endpoints.exists { try await anyWebhookEndpoint() }
    }

    func anyWebhookEndpoint() async throws -> Bool { try await first("SELECT id FROM webhook_endpoints LIMIT 1") != nil }

    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        let kinds = "," + endpoint.auditKinds.joined(separator: ",") + ","
        let (data, created) = (try codec.encode(endpoint), endpoint.createdAt.epochMilliseconds)
        try await run("""
            INSERT INTO webhook_endpoints (project_id, id, audit_kinds, created_at, data)
            VALUES (\(endpoint.projectID), \(endpoint.id), \(kinds), \(created), \(data))
            """, logger: logger)
        endpoints.update(true)
    }

    public func webhookEndpoints(projectID: String) async throws -> [WebhookEndpoint] {
        var endpoints: [WebhookEndpoint] = []
        for try await data in try await run(
            "SELECT data FROM webhook_endpoints WHERE project_id = \(projectID) ORDER BY created_at, id",
            logger: logger).decode(String.self) {
            endpoints.append(try codec.decode(WebhookEndpoint.self, from: data))
        }
        return endpoints
    }

    public func deleteWebhookEndpoint(projectID: String, id: String) async throws -> Bool {
        let logger = logger
        return try await transaction { db in
            let removed = try await db.query(
                "DELETE FROM webhook_endpoints WHERE project_id = \(projectID) AND id = \(id) RETURNING id",
                logger: logger).collect().count
            try await db.query("""
                DELETE FROM webhook_messages WHERE project_id = \(projectID) AND endpoint_id = \(id) AND delivered_at IS NULL
                """, logger: logger)
            return removed > 0
        }
    }

    public func claimWebhookMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookMessage] {
        let lease = leaseUntil.epochMilliseconds, due = now.epochMilliseconds
        // SKIP LOCKED: instances claiming at once take different messages; a message another instance holds still
        // counts as undelivered, so its user's later messages wait for it.
        endpoints.update(try await anyWebhookEndpoint())  // the sender's poll keeps the request path's answer fresh
        // A read first: the sender wakes at every stored event, and an empty queue needs no row locks.
        guard try await first("SELECT id FROM webhook_messages WHERE next_attempt_at <= \(due) LIMIT 1") != nil else { return [] }
        var ids: [String] = []
        for try await id in try await run("""
            UPDATE webhook_messages SET next_attempt_at = \(lease) WHERE id IN (
                SELECT m.id FROM webhook_messages AS m
                WHERE m.next_attempt_at <= \(due) AND m.delivered_at IS NULL AND NOT EXISTS (
                    SELECT 1 FROM webhook_messages AS p
                    WHERE p.project_id = m.project_id AND p.endpoint_id = m.endpoint_id AND p.local_id = m.local_id
                      AND p.delivered_at IS NULL AND p.next_attempt_at IS NOT NULL
                      AND (p.seq < m.seq OR (p.seq = m.seq AND p.id < m.id)))
                ORDER BY m.seq, m.id LIMIT \(limit) FOR UPDATE OF m SKIP LOCKED)
            RETURNING id
            """, logger: logger).decode(String.self) {
            ids.append(id)
        }
        guard !ids.isEmpty else { return [] }
        return try await messages(where: "m.id = ANY(\(ids))", order: "m.seq, m.id")
    }

    public func recordWebhookAttempt(id: String, attempts: Int, deliveredAt: Date?, nextAttemptAt: Date?,
                                     lastError: String?) async throws {
        let delivered = deliveredAt?.epochMilliseconds
        let next = deliveredAt == nil ? nextAttemptAt?.epochMilliseconds : nil
        try await run("""
            UPDATE webhook_messages SET attempts = \(attempts), delivered_at = \(delivered), next_attempt_at = \(next),
                last_error = \(lastError)
            WHERE id = \(id)
            """, logger: logger)
    }

    public func replayWebhookEvents(projectID: String, since: Date, endpointID: String?, now: Date) async throws -> Int {
        let created = now.epochMilliseconds, suffix = String(now.epochMilliseconds), from = since.epochMicros
        var count = 0
        for try await _ in try await run("""
            INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
            SELECT a.id || ':' || e.id || ':' || \(suffix), a.project_id, e.id, a.id, coalesce(a.local_id, ''),
                   a.at_micros, \(created), \(created)
            FROM audit_events AS a JOIN webhook_endpoints AS e ON e.project_id = a.project_id
            WHERE a.project_id = \(projectID) AND a.at_micros >= \(from) AND e.audit_kinds LIKE '%,' || a.kind || ',%'
              AND (\(endpointID)::text IS NULL OR e.id = \(endpointID))
            ORDER BY a.at_micros, a.id
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger) { count += 1 }
        return count
    }

    public func webhookMessages(projectID: String, limit: Int) async throws -> [WebhookMessage] {
        try await messages(where: "m.project_id = \(projectID)", order: "m.created_at DESC, m.seq DESC", limit: limit)
    }

    /// Messages with their event and endpoint where `condition` holds.
    private func messages(where condition: PostgresQuery, order: String, limit: Int? = nil) async throws -> [WebhookMessage] {
        var sql = """
            SELECT m.id, m.project_id, m.endpoint_id, m.event_id, m.attempts, m.next_attempt_at, m.delivered_at,
                   m.last_error, m.created_at, a.data, e.data
            FROM webhook_messages AS m LEFT JOIN audit_events AS a ON a.id = m.event_id
            LEFT JOIN webhook_endpoints AS e ON e.project_id = m.project_id AND e.id = m.endpoint_id
            WHERE \(condition.sql) ORDER BY \(order)
            """
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let rows = try await run(PostgresQuery(unsafeSQL: sql, binds: condition.binds), logger: logger)
        func date(_ millis: Int64?) -> Date? { millis.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
        var messages: [WebhookMessage] = []
        for try await (id, project, endpointID, eventID, attempts, next, delivered, lastError, created, event, endpoint)
            in rows.decode((String, String, String, String, Int, Int64?, Int64?, String?, Int64, String?, String?).self) {
            messages.append(WebhookMessage(
                id: id, projectID: project, endpointID: endpointID, eventID: eventID, attempts: attempts,
                nextAttemptAt: date(next), deliveredAt: date(delivered), lastError: lastError,
                createdAt: date(created) ?? Date(timeIntervalSince1970: 0),
                event: try event.map { try codec.decode(AuditEvent.self, from: $0) },
                endpoint: try endpoint.map { try codec.decode(WebhookEndpoint.self, from: $0) }))
        }
        return messages
    }
}
