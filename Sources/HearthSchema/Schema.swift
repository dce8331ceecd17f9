import Foundation

/// The SQL a backend speaks: where the two differ, the schema and the runner read it from here.
public enum SQLDialect: Sendable {
    case sqlite, postgres

    /// The `n`-th (from 1) bind placeholder.
    public func placeholder(_ n: Int) -> String { self == .sqlite ? "?" : "$\(n)" }

    /// Run first in each step's transaction: PostgreSQL serializes the steps of several instances starting at once
    /// on one database; SQLite's single writer already does.
    var stepLock: String? { self == .postgres ? "LOCK TABLE hearth_migrations IN EXCLUSIVE MODE" : nil }
}

/// One schema step: applied once, in its own transaction, recorded by id in `hearth_migrations`. Never edit a
/// shipped step: add a new one.
public struct Migration: Sendable {
    public var id: String
    /// The same in both dialects, run first.
    var statements: [String]
    /// What each dialect says its own way (JSON backfills), run after.
    var dialectStatements: [SQLDialect: [String]]

    init(_ id: String, _ statements: [String], _ dialectStatements: [SQLDialect: [String]] = [:]) {
        self.id = id
        self.statements = statements
        self.dialectStatements = dialectStatements
    }

    public func statements(for dialect: SQLDialect) -> [String] { statements + (dialectStatements[dialect] ?? []) }
}

/// Hearth's schema, written once for both SQL stores.
public enum Schema {
    public static let migrations: [Migration] = [
        Migration("0001_initial", [
            "CREATE TABLE projects (id TEXT PRIMARY KEY, data TEXT NOT NULL)",
            """
            CREATE TABLE users (
                project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, local_id TEXT NOT NULL,
                email TEXT, email_unique TEXT, phone_number TEXT, created_at BIGINT NOT NULL, data TEXT NOT NULL,
                PRIMARY KEY (project_id, tenant_id, local_id))
            """,
            "CREATE UNIQUE INDEX users_email_unique ON users (project_id, tenant_id, email_unique)",
            "CREATE INDEX users_email ON users (project_id, tenant_id, email, created_at)",
            """
            CREATE TABLE refresh_tokens (
                token_digest TEXT PRIMARY KEY, project_id TEXT NOT NULL, tenant_id TEXT NOT NULL,
                local_id TEXT NOT NULL, data TEXT NOT NULL)
            """,
            "CREATE INDEX refresh_tokens_user ON refresh_tokens (project_id, tenant_id, local_id)",
        ]),
        Migration("0002_action_codes_outbox", Steps.actionCodesAndOutbox),
        Migration("0003_outbox_delivery", Steps.outboxDelivery),
        Migration("0004_phone_assertions", Steps.phoneAndAssertions),
        Migration("0005_pending_secrets", Steps.pendingSecrets),
        // Backfill from the accounts' JSON; a duplicate (possible before this table) keeps the first.
        Migration("0006_user_identities", Steps.identities, [
            .sqlite: ["""
                INSERT OR IGNORE INTO user_identities (project_id, tenant_id, provider_id, raw_id, local_id)
                SELECT u.project_id, u.tenant_id, json_extract(p.value, '$.providerID'), json_extract(p.value, '$.rawID'), u.local_id
                FROM users AS u, json_each(u.data, '$.providers') AS p ORDER BY u.created_at, u.local_id
                """],
            .postgres: ["""
                INSERT INTO user_identities (project_id, tenant_id, provider_id, raw_id, local_id)
                SELECT u.project_id, u.tenant_id, p ->> 'providerID', p ->> 'rawID', u.local_id
                FROM users AS u, jsonb_array_elements(u.data::jsonb -> 'providers') AS p
                ORDER BY u.created_at, u.local_id
                ON CONFLICT DO NOTHING
                """],
        ]),
        Migration("0007_operations", Steps.operations),
        Migration("0008_identity_emails", Steps.identityEmails, [
            .sqlite: ["""
                UPDATE user_identities SET email = (
                  SELECT lower(json_extract(p.value, '$.email')) FROM users AS u, json_each(u.data, '$.providers') AS p
                  WHERE u.project_id = user_identities.project_id AND u.tenant_id = user_identities.tenant_id
                    AND u.local_id = user_identities.local_id AND json_extract(p.value, '$.providerID') = user_identities.provider_id
                    AND json_extract(p.value, '$.rawID') = user_identities.raw_id)
                """],
            .postgres: ["""
                UPDATE user_identities AS i SET email = lower(p ->> 'email')
                FROM users AS u, jsonb_array_elements(u.data::jsonb -> 'providers') AS p
                WHERE u.project_id = i.project_id AND u.tenant_id = i.tenant_id AND u.local_id = i.local_id
                  AND p ->> 'providerID' = i.provider_id AND p ->> 'rawID' = i.raw_id
                """],
        ]),
        Migration("0009_tenants", Steps.tenants),
        Migration("0010_users_by_creation", Steps.usersByCreation),
        Migration("0011_webhooks", Steps.webhooks),
        // What statements compare, out of the JSON: read from it once here, written beside it from now on.
        Migration("0012_compared_columns", Steps.comparedColumns, [
            .sqlite: [
                """
                UPDATE users SET version = coalesce(json_extract(data, '$.version'), 0),
                    valid_since = coalesce(json_extract(data, '$.validSince'), 0),
                    last_login_at = CAST(json_extract(data, '$.lastLoginAt') AS INTEGER)
                """,
                "UPDATE projects SET version = coalesce(json_extract(data, '$.version'), 0)",
                "UPDATE refresh_tokens SET created_micros = CAST(json_extract(data, '$.createdAt') * 1000 AS INTEGER)",
            ],
            .postgres: [
                """
                UPDATE users SET version = coalesce((data::jsonb ->> 'version')::bigint, 0),
                    valid_since = coalesce((data::jsonb ->> 'validSince')::double precision, 0)::bigint,
                    last_login_at = floor((data::jsonb ->> 'lastLoginAt')::double precision)::bigint
                """,
                "UPDATE projects SET version = coalesce((data::jsonb ->> 'version')::bigint, 0)",
                """
                UPDATE refresh_tokens
                SET created_micros = floor((data::jsonb ->> 'createdAt')::double precision * 1000)::bigint
                """,
            ],
        ]),
        Migration("0013_job_leases", Steps.jobLeases),
        Migration("0014_lookup_indexes", Steps.lookupIndexes),
    ]
}

/// The statements of the steps written the same in both dialects.
enum Steps {
    /// 0014: a user by email or by phone number, oldest first (`ORDER BY created_at, local_id`), from one index that
    /// serves both the match and the order. With only the match's index and the creation-order one, SQLite without
    /// statistics walked the creation order: a password sign-in read every user, 0.28 s at a million users
    /// (scripts/scale-test.sh). The old indexes are prefixes of the new ones.
    static let lookupIndexes = [
        "CREATE INDEX users_email_created ON users (project_id, tenant_id, email, created_at, local_id)",
        "CREATE INDEX users_phone_created ON users (project_id, tenant_id, phone_number, created_at, local_id)",
        "DROP INDEX users_email",
        "DROP INDEX users_phone",
    ]

    /// 0013: who runs a periodic job (housekeeping, the daily cleanup) until when, so that of several instances
    /// one runs it per period.
    static let jobLeases = [
        "CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, until_micros BIGINT NOT NULL)",
    ]

    /// 0012: the values statements compare, as integers: versions (compare-and-set), `valid_since` (seconds) and
    /// `last_login_at` (milliseconds) of users, a refresh token's creation (microseconds, for pruning and purges).
    static let comparedColumns = [
        "ALTER TABLE users ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN valid_since BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN last_login_at BIGINT",
        "ALTER TABLE projects ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE refresh_tokens ADD COLUMN created_micros BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX users_last_login ON users (project_id, tenant_id, last_login_at, local_id)",
    ]

    /// 0002: email action codes (by digest) and the outbox of messages to deliver.
    static let actionCodesAndOutbox = [
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
    static let outboxDelivery = [
        "ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE outbox ADD COLUMN next_attempt_at BIGINT",
        "ALTER TABLE outbox ADD COLUMN last_error TEXT",
        "UPDATE outbox SET next_attempt_at = created_at",
        "CREATE INDEX outbox_due ON outbox (next_attempt_at)",
    ]

    /// 0004: lookups by phone number, and the one-time admin assertions seen (by digest, until they expire).
    static let phoneAndAssertions = [
        "CREATE INDEX users_phone ON users (project_id, tenant_id, phone_number)",
        "CREATE TABLE used_assertions (digest TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
        "CREATE INDEX used_assertions_expiry ON used_assertions (expires_at)",
    ]

    /// 0007: rate-limit windows shared by every instance (count per key and window start, seconds), and the audit
    /// log (`at_micros`, microseconds: newest first, then id, is its order and its page cursor).
    static let operations = [
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

    /// 0011: webhook endpoints (the record as JSON, the audit kinds they take as `,a,b,` for matching) and the
    /// messages queued for them: times in milliseconds, `seq` the event's microseconds (a user's order),
    /// `next_attempt_at` null once delivered or given up.
    static let webhooks = [
        """
        CREATE TABLE webhook_endpoints (
            project_id TEXT NOT NULL, id TEXT NOT NULL, audit_kinds TEXT NOT NULL, created_at BIGINT NOT NULL,
            data TEXT NOT NULL, PRIMARY KEY (project_id, id))
        """,
        """
        CREATE TABLE webhook_messages (
            id TEXT PRIMARY KEY, project_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, event_id TEXT NOT NULL,
            local_id TEXT NOT NULL, seq BIGINT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT,
            delivered_at BIGINT, last_error TEXT, created_at BIGINT NOT NULL)
        """,
        "CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at)",
        "CREATE INDEX webhook_messages_order ON webhook_messages (project_id, endpoint_id, local_id, seq)",
        "CREATE INDEX webhook_messages_recent ON webhook_messages (project_id, created_at)",
    ]

    /// 0009: tenants, by project and id; `version` makes updates compare-and-set.
    static let tenants = [
        """
        CREATE TABLE tenants (
            project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, version BIGINT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (project_id, tenant_id))
        """,
    ]

    /// 0010: users in creation and in email order (ties by uid, as `accounts:query` breaks them), per project and
    /// tenant: the console's sorted pages read an index instead of sorting every user.
    static let usersByCreation = [
        "CREATE INDEX users_created ON users (project_id, tenant_id, created_at, local_id)",
        "CREATE INDEX users_email_order ON users (project_id, tenant_id, email, local_id)",
    ]

    /// 0005: pending secrets (MFA pending credentials, TOTP enrollment and SMS sessions), by digest.
    static let pendingSecrets = [
        """
        CREATE TABLE pending_secrets (
            digest TEXT PRIMARY KEY, project_id TEXT NOT NULL, expires_at BIGINT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, data TEXT NOT NULL)
        """,
        "CREATE INDEX pending_secrets_expiry ON pending_secrets (expires_at)",
    ]

    /// 0006: linked identities, one row each, unique per project and tenant: their owner is enforced here.
    static let identities = [
        """
        CREATE TABLE user_identities (
            project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, provider_id TEXT NOT NULL, raw_id TEXT NOT NULL,
            local_id TEXT NOT NULL, PRIMARY KEY (project_id, tenant_id, provider_id, raw_id))
        """,
        "CREATE INDEX user_identities_user ON user_identities (project_id, tenant_id, local_id)",
    ]

    /// Migration 0008: a linked identity's email, so `createAuthUri` finds accounts by it (backfilled per dialect).
    static let identityEmails = [
        "ALTER TABLE user_identities ADD COLUMN email TEXT",
        "CREATE INDEX user_identities_email ON user_identities (project_id, tenant_id, email)",
    ]
}
