import Foundation
import HearthCore

/// Refresh sessions, pending secrets, action codes and one-time admin assertions.
extension SQLStore {
    /// The token and its user in one query.
    public func session(projectID: String, digest: String) async throws -> RefreshSession? {
        try await read("""
            SELECT r.data, u.data FROM refresh_tokens AS r
            LEFT JOIN users AS u ON u.project_id = r.project_id AND u.tenant_id = r.tenant_id AND u.local_id = r.local_id
            WHERE r.token_digest = \(digest) AND r.project_id = \(projectID)
            """).first.map { row in
            RefreshSession(token: try decode(RefreshTokenRecord.self, row[0]),
                           user: row[1] == .null ? nil : try decodeUser(data: row[1]))
        }
    }

    public func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { db in
            try await db.query("DELETE FROM used_assertions WHERE expires_at < \(now.epochSeconds)")
            return try await !db.query("""
                INSERT INTO used_assertions (digest, expires_at) VALUES (\(digest), \(expiresAt.epochSeconds))
                ON CONFLICT (digest) DO NOTHING RETURNING digest
                """).isEmpty
        }
    }

    // MARK: Pending secrets

    public func insertPending(_ record: PendingRecord, now: Date) async throws {
        let data = try codec.encode(record)
        try await transaction { db in
            try await db.query("DELETE FROM pending_secrets WHERE expires_at <= \(now.epochMilliseconds)")
            let inserted = try await db.query("""
                INSERT INTO pending_secrets (digest, project_id, expires_at, attempts, data)
                VALUES (\(record.digest), \(record.projectID), \(record.expiresAt.epochMilliseconds), \(record.attempts), \(data))
                ON CONFLICT DO NOTHING RETURNING digest
                """)
            if inserted.isEmpty { throw StoreError.pendingExists }
        }
    }

    public func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        try await read("""
            SELECT attempts, data FROM pending_secrets
            WHERE digest = \(digest) AND project_id = \(projectID) AND expires_at > \(now.epochMilliseconds)
            """).first.map(pendingRecord)
    }

    public func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await execute("""
            DELETE FROM pending_secrets WHERE digest = \(digest) AND project_id = \(projectID) RETURNING attempts, data
            """).first.map(pendingRecord)
    }

    public func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        try await execute("""
            UPDATE pending_secrets SET attempts = attempts + 1 WHERE digest = \(digest) AND project_id = \(projectID)
            RETURNING attempts
            """).first?[0].int
    }

    private func pendingRecord(_ row: SQLRow) throws -> PendingRecord {
        var record = try decode(PendingRecord.self, row[1])
        record.attempts = row[0].int ?? record.attempts
        return record
    }

    // MARK: Action codes

    public func insertActionCode(_ code: ActionCodeRecord) async throws {
        try await execute("""
            INSERT INTO action_codes (code_digest, project_id, expires_at, data)
            VALUES (\(code.codeDigest), \(code.projectID), \(code.expiresAt.epochSeconds), \(try codec.encode(code)))
            """)
    }

    public func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await read("SELECT data FROM action_codes WHERE code_digest = \(digest) AND project_id = \(projectID)")
            .first.map { try decode(ActionCodeRecord.self, $0[0]) }
    }

    public func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await execute("DELETE FROM action_codes WHERE code_digest = \(digest) AND project_id = \(projectID) RETURNING data")
            .first.map { try decode(ActionCodeRecord.self, $0[0]) }
    }

    public func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int {
        try await execute("""
            DELETE FROM action_codes
            WHERE project_id = \(projectID) AND \(SQLFragment.jsonText(column: "data", field: "localID")) = \(localID)
              AND coalesce(\(SQLFragment.jsonText(column: "data", field: "tenantID")), '') = \(RecordCoding.tenantColumn(tenantID))
              AND \(SQLFragment.jsonText(column: "data", field: "type")) <> 'RECOVER_EMAIL'
            RETURNING code_digest
            """).count
    }
}
