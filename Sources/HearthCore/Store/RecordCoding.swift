import Foundation

/// How backends keep records in one JSON column: a single encoding shared by every store, so that a row written
/// by one instance reads the same in another and a future export can read it raw.
public enum RecordCoding {
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(type, from: Data(json.utf8))
    }

    /// The email column that enforces one account per email: the normalized email when the project requires
    /// uniqueness, otherwise NULL (NULLs never collide in a unique index).
    public static func uniqueEmailColumn(_ user: UserRecord, uniqueEmail: Bool) -> String? {
        uniqueEmail ? user.normalizedEmail : nil
    }

    /// Tenant ids are stored as '' for the project's own users, so they can be part of primary keys.
    public static func tenantColumn(_ tenant: String?) -> String { tenant ?? "" }
}

/// Table definitions both SQL backends share, for steps written the same in both dialects.
public enum SharedSchema {
    /// 0002: email action codes (by digest) and the outbox of messages to deliver.
    public static let actionCodesAndOutbox = [
        """
        CREATE TABLE action_codes (
            code_digest TEXT PRIMARY KEY, project_id TEXT NOT NULL, expires_at BIGINT NOT NULL, data TEXT NOT NULL)
        """,
        """
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY, project_id TEXT NOT NULL, created_at BIGINT NOT NULL, data TEXT NOT NULL)
        """,
        "CREATE INDEX outbox_project ON outbox (project_id, created_at)",
    ]

    /// 0003: delivery state of outbox messages. `next_attempt_at` (milliseconds) is when a message is due; a lease
    /// moves it forward; NULL means delivery was given up.
    public static let outboxDelivery = [
        "ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE outbox ADD COLUMN next_attempt_at BIGINT",
        "ALTER TABLE outbox ADD COLUMN last_error TEXT",
        "UPDATE outbox SET next_attempt_at = created_at",
        "CREATE INDEX outbox_due ON outbox (next_attempt_at)",
    ]

    /// 0004: lookups by phone number, and the one-time admin assertions seen (by digest, until they expire).
    public static let phoneAndAssertions = [
        "CREATE INDEX users_phone ON users (project_id, tenant_id, phone_number)",
        "CREATE TABLE used_assertions (digest TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
        "CREATE INDEX used_assertions_expiry ON used_assertions (expires_at)",
    ]

    /// 0007: rate-limit windows shared by every instance (count per key and window start, seconds), and the audit
    /// log (`at_micros`, microseconds: newest first, then id, is its order and its page cursor).
    public static let operations = [
        """
        CREATE TABLE rate_counters (
            counter_key TEXT NOT NULL, window_start BIGINT NOT NULL, expires_at BIGINT NOT NULL,
            count INTEGER NOT NULL, PRIMARY KEY (counter_key, window_start))
        """,
        "CREATE INDEX rate_counters_expiry ON rate_counters (expires_at)",
        """
        CREATE TABLE audit_events (
            id TEXT PRIMARY KEY, project_id TEXT NOT NULL, at_micros BIGINT NOT NULL, kind TEXT NOT NULL,
            local_id TEXT, data TEXT NOT NULL)
        """,
        "CREATE INDEX audit_events_time ON audit_events (project_id, at_micros, id)",
        "CREATE INDEX audit_events_user ON audit_events (project_id, local_id, at_micros, id)",
    ]

    /// 0009: tenants, by project and id; `version` makes updates compare-and-set.
    public static let tenants = [
        """
        CREATE TABLE tenants (
            project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, version BIGINT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (project_id, tenant_id))
        """,
    ]

    /// 0010: users in creation and in email order (ties by uid, as `accounts:query` breaks them), per project and
    /// tenant: the console's sorted pages read an index instead of sorting every user.
    public static let usersByCreation = [
        "CREATE INDEX users_created ON users (project_id, tenant_id, created_at, local_id)",
        "CREATE INDEX users_email_order ON users (project_id, tenant_id, email, local_id)",
    ]

    /// 0005: pending secrets (MFA pending credentials, TOTP enrollment and SMS sessions), by digest.
    public static let pendingSecrets = [
        """
        CREATE TABLE pending_secrets (
            digest TEXT PRIMARY KEY, project_id TEXT NOT NULL, expires_at BIGINT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, data TEXT NOT NULL)
        """,
        "CREATE INDEX pending_secrets_expiry ON pending_secrets (expires_at)",
    ]

    /// 0006: linked identities, one row each, unique per project and tenant: their owner is enforced here.
    public static let identities = [
        """
        CREATE TABLE user_identities (
            project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, provider_id TEXT NOT NULL, raw_id TEXT NOT NULL,
            local_id TEXT NOT NULL, PRIMARY KEY (project_id, tenant_id, provider_id, raw_id))
        """,
        "CREATE INDEX user_identities_user ON user_identities (project_id, tenant_id, local_id)",
    ]

    /// Migration 0008: a linked identity's email, so `createAuthUri` finds accounts by it (backfilled per dialect).
    public static let identityEmails = [
        "ALTER TABLE user_identities ADD COLUMN email TEXT",
        "CREATE INDEX user_identities_email ON user_identities (project_id, tenant_id, email)",
    ]

    /// The SQL expression `accounts:query` sorts by (both dialects; `json` extracts a field of `data`).
    public static func sortExpression(_ field: UserQuery.SortField, json: (String) -> String) -> String {
        switch field {
        case .userID: "local_id"
        case .name: json("displayName")
        case .createdAt: "created_at"
        case .lastLoginAt: json("lastLoginAt")
        case .email: "email"
        }
    }
}

/// The schema steps every SQL backend applies, in order. Each runs once, in its own transaction, and is recorded
/// by id in `hearth_migrations`. Never edit a shipped step: add a new one.
public struct Migration: Sendable {
    public var id: String
    public var statements: [String]

    public init(id: String, statements: [String]) {
        self.id = id
        self.statements = statements
    }
}

/// A record with secrets to seal at rest: private keys, TOTP secrets, pending sign-in secrets.
protocol HoldsSecrets: Codable {
    /// Each secret field through `transform` (value, context), the context binding it to its record and field.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> Self
}

/// How a SQL store turns records into its JSON column and back: ``RecordCoding``, with the secrets of the records
/// that hold any sealed on the way in and opened on the way out (``SecretSealer``). Only those records pay for it;
/// without a sealer, values pass as they are, and a sealed one is an error that says what to set. Values from
/// before encryption are read as they are, and sealed at their next write (`hearth store encrypt` writes them all).
///
/// ```swift
/// let codec = RecordCodec(sealer: try SecretSealer(key: key))
/// let json = try codec.encode(user)                 // its TOTP secrets sealed
/// let back = try codec.decode(UserRecord.self, from: json)
/// ```
public struct RecordCodec: Sendable {
    public let sealer: SecretSealer?

    public init(sealer: SecretSealer? = nil) {
        self.sealer = sealer
    }

    public func encode(_ value: some Encodable) throws -> String {
        if let sealer, let record = value as? any HoldsSecrets {
            return try RecordCoding.encode(record.mapSecrets { sealer.seal($0, context: $1) })
        }
        return try RecordCoding.encode(value)
    }

    public func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let value = try RecordCoding.decode(type, from: json)
        guard let record = value as? any HoldsSecrets else { return value }
        return try record.mapSecrets(open) as! T
    }

    private func open(_ value: String, _ context: String) throws -> String {
        guard let sealer else {
            if SecretSealer.isSealed(value) { throw SealingError.noKey }
            return value
        }
        return try sealer.unseal(value, context: context)
    }
}
