import Foundation
import HearthCore

/// Webhook endpoints and their messages (see ``WebhookStore``). An audit event is queued for the endpoints that take
/// its kind by one `INSERT … SELECT` in the transaction that stores it.
extension SQLStore {
    /// Queues `event` for every endpoint of its project that takes its kind.
    static func queueWebhooks(for event: AuditEvent, now: Date, _ db: any SQLTransaction) async throws {
        let created = now.epochMilliseconds
        try await db.query("""
            INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
            SELECT \(event.id) || ':' || id || ':' || \(String(created)), project_id, id, \(event.id), \(event.localID ?? ""),
                   \(event.at.epochMicros), \(created), \(created)
            FROM webhook_endpoints WHERE project_id = \(event.projectID) AND audit_kinds LIKE \("%," + event.kind + ",%")
            ON CONFLICT DO NOTHING
            """)
    }

    /// Whether `work` stores an event webhooks take while any endpoint exists (read outside the transaction, cached).
    func webhooksListening(for work: UnitOfWork) async throws -> Bool {
        guard work.storesWebhookEvent else { return false }
        return try await endpoints.exists { try await anyWebhookEndpoint() }
    }

    public var knowsNoWebhookEndpoints: Bool { endpoints.knownAbsent }

    func anyWebhookEndpoint() async throws -> Bool { try await !read("SELECT 1 FROM webhook_endpoints LIMIT 1").isEmpty }

    public func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        try await execute("""
            INSERT INTO webhook_endpoints (project_id, id, audit_kinds, created_at, data)
            VALUES (\(endpoint.projectID), \(endpoint.id), \("," + endpoint.auditKinds.joined(separator: ",") + ","),
                    \(endpoint.createdAt.epochMilliseconds), \(try codec.encode(endpoint)))
            """)
        endpoints.update(true)
    }

    public func webhookEndpoints(projectID: String) async throws -> [WebhookEndpoint] {
        try await read("SELECT data FROM webhook_endpoints WHERE project_id = \(projectID) ORDER BY created_at, id")
            .map { try decode(WebhookEndpoint.self, $0[0]) }
    }

    public func deleteWebhookEndpoint(projectID: String, id: String) async throws -> Bool {
        try await transaction { db in
            let removed = try await db.query("DELETE FROM webhook_endpoints WHERE project_id = \(projectID) AND id = \(id) RETURNING id")
            try await db.query("""
                DELETE FROM webhook_messages WHERE project_id = \(projectID) AND endpoint_id = \(id) AND delivered_at IS NULL
                """)
            return !removed.isEmpty
        }
    }

    /// Due messages whose user has no earlier message undelivered, leased until `leaseUntil`. Instances claiming at
    /// once take different messages (`SKIP LOCKED`); a message another instance holds still counts as undelivered,
    /// so its user's later messages wait for it.
    public func claimWebhookMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookMessage] {
        let due = now.epochMilliseconds
        endpoints.update(try await anyWebhookEndpoint())  // the sender's poll keeps the request path's answer fresh
        // A read first: the sender wakes at every stored event, and an empty queue needs no write.
        guard try await !read("SELECT 1 FROM webhook_messages WHERE next_attempt_at <= \(due) LIMIT 1").isEmpty else { return [] }
        let rows = try await transaction { db in
            let ids = try await db.query("""
                UPDATE webhook_messages SET next_attempt_at = \(leaseUntil.epochMilliseconds) WHERE id IN (
                    SELECT m.id FROM webhook_messages AS m
                    WHERE m.next_attempt_at <= \(due) AND m.delivered_at IS NULL AND NOT EXISTS (
                        SELECT 1 FROM webhook_messages AS p
                        WHERE p.project_id = m.project_id AND p.endpoint_id = m.endpoint_id AND p.local_id = m.local_id
                          AND p.delivered_at IS NULL AND p.next_attempt_at IS NOT NULL
                          AND (p.seq < m.seq OR (p.seq = m.seq AND p.id < m.id)))
                    ORDER BY m.seq, m.id LIMIT \(limit)\(SQLFragment.skipLocked(of: "m")))
                RETURNING id
                """).compactMap { $0[0].string }
            guard !ids.isEmpty else { return [SQLRow]() }
            return try await db.query(Self.messages(where: "m.id IN \(list: ids)") + " ORDER BY m.seq, m.id")
        }
        return try rows.map(message)
    }

    public func recordWebhookAttempt(id: String, attempts: Int, deliveredAt: Date?, nextAttemptAt: Date?,
                                     lastError: String?) async throws {
        let next = deliveredAt == nil ? nextAttemptAt?.epochMilliseconds : nil
        try await execute("""
            UPDATE webhook_messages SET attempts = \(attempts), delivered_at = \(deliveredAt?.epochMilliseconds),
                next_attempt_at = \(next), last_error = \(lastError)
            WHERE id = \(id)
            """)
    }

    public func replayWebhookEvents(projectID: String, since: Date, endpointID: String?, now: Date) async throws -> Int {
        let created = now.epochMilliseconds
        let endpoint: SQL = endpointID.map { "AND e.id = \($0)" } ?? ""
        return try await execute("""
            INSERT INTO webhook_messages (id, project_id, endpoint_id, event_id, local_id, seq, next_attempt_at, created_at)
            SELECT a.id || ':' || e.id || ':' || \(String(created)), a.project_id, e.id, a.id, coalesce(a.local_id, ''),
                   a.at_micros, \(created), \(created)
            FROM audit_events AS a JOIN webhook_endpoints AS e ON e.project_id = a.project_id
            WHERE a.project_id = \(projectID) AND a.at_micros >= \(since.epochMicros)
              AND e.audit_kinds LIKE '%,' || a.kind || ',%' \(endpoint)
            ORDER BY a.at_micros, a.id
            ON CONFLICT DO NOTHING RETURNING 1
            """).count
    }

    public func webhookMessages(projectID: String, limit: Int) async throws -> [WebhookMessage] {
        try await read(Self.messages(where: "m.project_id = \(projectID)")
                       + " ORDER BY m.created_at DESC, m.seq DESC LIMIT \(max(0, limit))").map(message)
    }

    /// Messages with their event and endpoint, where `condition` holds.
    static func messages(where condition: SQL) -> SQL {
        """
        SELECT m.id, m.project_id, m.endpoint_id, m.event_id, m.attempts, m.next_attempt_at, m.delivered_at,
               m.last_error, m.created_at, a.data, e.data
        FROM webhook_messages AS m LEFT JOIN audit_events AS a ON a.id = m.event_id
        LEFT JOIN webhook_endpoints AS e ON e.project_id = m.project_id AND e.id = m.endpoint_id
        WHERE \(condition)
        """
    }

    private func message(_ row: SQLRow) throws -> WebhookMessage {
        WebhookMessage(
            id: row[0].string ?? "", projectID: row[1].string ?? "", endpointID: row[2].string ?? "",
            eventID: row[3].string ?? "", attempts: row[4].int ?? 0,
            nextAttemptAt: row[5].integer.map(Date.init(epochMilliseconds:)),
            deliveredAt: row[6].integer.map(Date.init(epochMilliseconds:)), lastError: row[7].string,
            createdAt: row[8].integer.map(Date.init(epochMilliseconds:)) ?? Date(timeIntervalSince1970: 0),
            event: row[9] == .null ? nil : try decode(AuditEvent.self, row[9]),
            endpoint: row[10] == .null ? nil : try decode(WebhookEndpoint.self, row[10]))
    }
}
