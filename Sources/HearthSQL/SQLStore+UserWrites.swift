import Foundation
import HearthCore

/// Units of work, imports, updates and deletions of accounts.
extension SQLStore {
    /// One transaction for the whole unit; a refused change rolls it all back.
    public func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
        let fanOut = try await webhooksListening(for: work)
        return try await transaction { [self] db in
            var outcome = UnitOfWork.Outcome()
            for change in work.changes {
                switch change {
                case .insertUser(let user, let uniqueEmail):
                    let row = try UserRow(user, uniqueEmail: uniqueEmail, codec: codec)
                    do {
                        try await db.query("INSERT INTO users (\(raw: UserRow.columns)) VALUES \(row.values)")
                    } catch where driver.uniqueViolation(in: error) != nil {
                        throw driver.uniqueViolation(in: error)!.contains("email_unique")
                            ? StoreError.emailExists : StoreError.duplicateLocalID
                    }
                    try await Self.writeIdentities(user, db)
                case .stampSignIn(let stamp):
                    // Read with `FOR UPDATE` (PostgreSQL): a concurrent writer of the account waits for this unit.
                    let key = Self.userKey(stamp.projectID, stamp.tenantID, stamp.localID)
                    guard let found = try await db.query("SELECT data FROM users WHERE \(key)\(SQLFragment.forUpdate)").first
                    else { throw StoreError.stale }
                    var user = try decodeUser(found)
                    guard stamp.apply(to: &user) else { throw StoreError.stale }
                    try await db.query("""
                        UPDATE users SET data = \(try codec.encode(user)), version = \(user.version ?? 0), valid_since = \(user.validSince),
                            last_login_at = \(user.lastLoginAt?.epochMilliseconds)
                        WHERE \(key)
                        """)
                    outcome.stamped = user
                case .insertRefreshToken(let token, let keep):
                    let tenant = RecordCoding.tenantColumn(token.tenantID)
                    try await db.query("""
                        INSERT INTO refresh_tokens (token_digest, project_id, tenant_id, local_id, created_micros, data)
                        VALUES (\(token.tokenDigest), \(token.projectID), \(tenant), \(token.localID),
                                \(token.createdAt.epochMicros), \(try codec.encode(token)))
                        """)
                    if let keep {
                        // Newest first by creation, the digest breaking ties: the sessions beyond `keep` go.
                        try await db.query("""
                            DELETE FROM refresh_tokens WHERE token_digest IN (
                                SELECT token_digest FROM refresh_tokens
                                WHERE \(Self.userKey(token.projectID, token.tenantID, token.localID))
                                ORDER BY created_micros DESC, token_digest DESC \(SQLFragment.noLimit) OFFSET \(max(keep, 1)))
                            """)
                    }
                case .insertAuditEvent(let event):
                    try await db.query("""
                        INSERT INTO audit_events (id, project_id, at_micros, kind, local_id, data)
                        VALUES (\(event.id), \(event.projectID), \(event.at.epochMicros), \(event.kind), \(event.localID),
                                \(try codec.encode(event)))
                        """)
                    if fanOut, WebhookEventType(auditKind: event.kind) != nil {
                        try await Self.queueWebhooks(for: event, now: event.at, db)
                    }
                case .incrementRateCounter(let key, let windowStart, let expiresAt, let delta):
                    let count = try await db.query("""
                        INSERT INTO rate_counters (counter_key, window_start, expires_at, count)
                        VALUES (\(key), \(windowStart.epochSeconds), \(expiresAt.epochSeconds), \(delta))
                        ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + \(delta)
                        RETURNING count
                        """).first?[0].int ?? delta
                    outcome.counts.append(count)
                case .readRateCounters(let windows):
                    outcome.read += try await Self.rateCounters(windows, db.query)
                case .require(let condition):
                    try condition(outcome)
                }
            }
            return outcome
        }
    }

    /// Replaces the user's rows in `user_identities` inside the caller's transaction; an identity another account
    /// holds is ``StoreError/identityLinked`` (and the caller's transaction rolls back).
    static func writeIdentities(_ user: UserRecord, _ db: any SQLTransaction) async throws {
        let tenant = RecordCoding.tenantColumn(user.tenantID)
        try await db.query("DELETE FROM user_identities WHERE \(userKey(user.projectID, user.tenantID, user.localID))")
        for identity in user.indexedIdentities {
            let inserted = try await db.query("""
                INSERT INTO user_identities (project_id, tenant_id, provider_id, raw_id, local_id, email)
                VALUES (\(user.projectID), \(tenant), \(identity.providerID), \(identity.rawID), \(user.localID),
                        \(identity.email.map(EmailAddress.normalized)))
                ON CONFLICT DO NOTHING RETURNING local_id
                """)
            if inserted.isEmpty { throw StoreError.identityLinked }
        }
    }

    /// One transaction for the whole batch, 100 rows per statement: `ON CONFLICT DO NOTHING` leaves a refused row
    /// out without aborting the others, and `RETURNING` says which went in.
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        // Each chunk's rows are encoded in a task of its own, started now: the chunks encode side by side, and beside
        // the inserts of the chunks before them (one after the other, encoding was 16 % of an import's time and the
        // inserts 21 %; perf, scripts/scale-test.sh).
        let codec = codec
        let chunks = stride(from: 0, to: users.count, by: 100).map { $0..<min($0 + 100, users.count) }
        let encoded = chunks.map { chunk in
            Task { try chunk.map { try UserRow(users[$0], uniqueEmail: uniqueEmail, codec: codec) } }
        }
        defer { encoded.forEach { $0.cancel() } }
        return try await transaction { db in
            var refused: [Int: StoreError] = [:]
            for (chunk, encoding) in zip(chunks, encoded) {
                let chunkRows = try await encoding.value
                func encodedRow(_ index: Int) -> UserRow { chunkRows[index - chunk.lowerBound] }
                let inserted = try await db.query("""
                    INSERT INTO users (\(raw: UserRow.columns))
                    VALUES \(SQL.joined(chunkRows.map(\.values), separator: ", "))
                    ON CONFLICT DO NOTHING RETURNING tenant_id, local_id
                    """)
                var stored = Set(inserted.map { ($0[0].string ?? "") + "\u{0}" + ($0[1].string ?? "") })
                for index in chunk {
                    let row = encodedRow(index)
                    let key = Self.userKey(row.project, users[index].tenantID, row.localID)
                    guard stored.remove(row.tenant + "\u{0}" + row.localID) != nil else {
                        let idTaken = try await !db.query("SELECT 1 FROM users WHERE \(key)").isEmpty
                        refused[index] = idTaken ? .duplicateLocalID : .emailExists
                        continue
                    }
                    guard !users[index].indexedIdentities.isEmpty else { continue }  // a new row has none to replace
                    do {
                        try await Self.writeIdentities(users[index], db)
                    } catch StoreError.identityLinked {
                        try await db.query("DELETE FROM user_identities WHERE \(key)")
                        try await db.query("DELETE FROM users WHERE \(key)")
                        refused[index] = .identityLinked
                    }
                }
            }
            return refused
        }
    }

    /// Compare-and-set on the `version` column.
    public func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord {
        var written = user
        written.version = (user.version ?? 0) + 1
        let row = try UserRow(written, uniqueEmail: uniqueEmail, codec: codec)
        let key = Self.userKey(user.projectID, user.tenantID, user.localID)
        try await transaction { [driver] db in
            let updated: [SQLRow]
            do {
                updated = try await db.query("""
                    UPDATE users SET email = \(row.email), email_unique = \(row.emailUnique), phone_number = \(row.phone),
                        created_at = \(row.createdAt), version = \(row.version), valid_since = \(row.validSince),
                        last_login_at = \(row.lastLoginAt), data = \(row.data)
                    WHERE \(key) AND version = \(user.version ?? 0)
                    RETURNING local_id
                    """)
            } catch where driver.uniqueViolation(in: error) != nil {
                throw StoreError.emailExists
            }
            guard !updated.isEmpty else {
                throw try await db.query("SELECT 1 FROM users WHERE \(key)").isEmpty ? StoreError.notFound : StoreError.conflict
            }
            try await Self.writeIdentities(user, db)
            if revokeRefreshTokens {
                try await db.query("DELETE FROM refresh_tokens WHERE \(key)")
            }
        }
        return written
    }

    public func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        let key = Self.userKey(projectID, tenantID, localID)
        return try await transaction { db in
            try await db.query("DELETE FROM refresh_tokens WHERE \(key)")
            try await db.query("DELETE FROM user_identities WHERE \(key)")
            return try await !db.query("DELETE FROM users WHERE \(key) RETURNING local_id").isEmpty
        }
    }

    public func deleteUsers(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [String] {
        guard !localIDs.isEmpty else { return [] }
        let key: SQL = """
            project_id = \(projectID) AND tenant_id = \(RecordCoding.tenantColumn(tenantID)) AND local_id IN \(list: localIDs)
            """
        return try await transaction { db in
            try await db.query("DELETE FROM refresh_tokens WHERE \(key)")
            try await db.query("DELETE FROM user_identities WHERE \(key)")
            return try await db.query("DELETE FROM users WHERE \(key) RETURNING local_id").compactMap { $0[0].string }
        }
    }

    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await transaction { db in
            try await db.query("DELETE FROM refresh_tokens WHERE project_id = \(projectID)")
            try await db.query("DELETE FROM user_identities WHERE project_id = \(projectID)")
            return try await db.query("DELETE FROM users WHERE project_id = \(projectID) RETURNING local_id").count
        }
    }
}
