import Foundation
import HearthCore

/// Shared rate limits, the audit log and housekeeping.
extension SQLStore {
    /// Every window in one query.
    public func rateCounters(_ windows: [RateWindow]) async throws -> [Int] {
        try await Self.rateCounters(windows) { try await self.read($0) }
    }

    /// The counts of `windows` (0 for none), by one statement run with `query` (a read, or inside a unit of work).
    static func rateCounters(_ windows: [RateWindow], _ query: (SQL) async throws -> [SQLRow]) async throws -> [Int] {
        guard !windows.isEmpty else { return [] }
        let pairs = windows.map { window -> SQL in
            "(counter_key = \(window.key) AND window_start = \(window.start.epochSeconds))"
        }
        var found: [String: Int] = [:]
        for row in try await query("SELECT counter_key, window_start, count FROM rate_counters WHERE \(SQL.joined(pairs, separator: " OR "))") {
            guard let key = row[0].string, let start = row[1].integer else { continue }
            found[key + "@" + String(start)] = row[2].int
        }
        return windows.map { found[$0.key + "@" + String($0.start.epochSeconds)] ?? 0 }
    }

    public func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] {
        var conditions: [SQL] = ["project_id = \(projectID)"]
        if let localID = query.localID { conditions.append("local_id = \(localID)") }
        if let kinds = query.kinds, !kinds.isEmpty { conditions.append("kind IN \(list: kinds)") }
        if let from = query.from { conditions.append("at_micros >= \(from.epochMicros)") }
        if let until = query.until { conditions.append("at_micros < \(until.epochMicros)") }
        if let after = query.after {
            conditions.append("(at_micros < \(after.micros) OR (at_micros = \(after.micros) AND id < \(after.id)))")
        }
        return try await read("""
            SELECT data FROM audit_events WHERE \(SQL.joined(conditions, separator: " AND "))
            ORDER BY at_micros DESC, id DESC LIMIT \(query.limit)
            """).map { try decode(AuditEvent.self, $0[0]) }
    }

    /// Each purge is a statement and a transaction of its own: one that fails is reported with the database's
    /// message (``HousekeepingReport/failures``) and leaves the others done.
    public func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport {
        let (millis, seconds) = (housekeeping.now.epochMilliseconds, housekeeping.now.epochSeconds)
        let outboxCutoff = housekeeping.outboxCreatedBefore.epochMilliseconds
        var report = HousekeepingReport()
        func purge(_ what: String, _ statement: SQL) async -> Int {
            do {
                return try await execute(statement).count
            } catch {
                report.failures[what] = driver.message(of: error)
                return 0
            }
        }
        // Refresh tokens their user revoked (created a second or more before validSince), or whose user is gone.
        report.refreshTokens = await purge("refreshTokens", """
            DELETE FROM refresh_tokens WHERE NOT EXISTS (
                SELECT 1 FROM users AS u
                WHERE u.project_id = refresh_tokens.project_id AND u.tenant_id = refresh_tokens.tenant_id
                  AND u.local_id = refresh_tokens.local_id
                  AND refresh_tokens.created_micros >= (u.valid_since - 1) * 1000000)
            RETURNING 1
            """)
        report.pendingSecrets = await purge("pendingSecrets", "DELETE FROM pending_secrets WHERE expires_at <= \(millis) RETURNING 1")
        report.assertions = await purge("assertions", "DELETE FROM used_assertions WHERE expires_at < \(seconds) RETURNING 1")
        report.outboxMessages = await purge("outboxMessages", "DELETE FROM outbox WHERE created_at < \(outboxCutoff) RETURNING 1")
        report.webhookMessages = await purge("webhookMessages", """
            DELETE FROM webhook_messages WHERE created_at < \(outboxCutoff) AND next_attempt_at IS NULL RETURNING 1
            """)
        report.rateCounters = await purge("rateCounters", "DELETE FROM rate_counters WHERE expires_at <= \(seconds) RETURNING 1")
        if let cutoff = housekeeping.auditBefore?.epochMicros {
            report.auditEvents = await purge("auditEvents", "DELETE FROM audit_events WHERE at_micros < \(cutoff) RETURNING 1")
        }
        return report
    }

    /// One statement: inserts the lease, or takes it over once it has run out.
    public func takeLease(job: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try await !execute("""
            INSERT INTO job_leases (job, holder, until_micros) VALUES (\(job), \(holder), \(until.epochMicros))
            ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, until_micros = excluded.until_micros
            WHERE job_leases.until_micros <= \(now.epochMicros)
            RETURNING job
            """).isEmpty
    }

    public func releaseLease(job: String, holder: String) async throws {
        try await execute("DELETE FROM job_leases WHERE job = \(job) AND holder = \(holder)")
    }
}
