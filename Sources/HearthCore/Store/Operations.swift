import Foundation

/// One security event kept in the store for the project's audit log: who, what, when, from where, and how it
/// ended. Never a secret: no password, code or token goes into `details`.
public struct AuditEvent: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        case success
        case failure
    }

    public var id: String
    public var projectID: String
    public var at: Date
    /// `sign-in`, `sign-in-failed`, `sign-up`, `password-changed`, `email-changed`, `mfa-enrolled`,
    /// `mfa-withdrawn`, `second-factor-locked`, `rate-limited`, `admin-call`, … (see ``SecurityEvent/Kind``).
    public var kind: String
    public var localID: String?
    public var outcome: Outcome
    public var clientAddress: String?
    public var details: [String: String]
    /// The tenant the event happened in; `nil` for the project's own scope.
    public var tenantID: String?

    public init(id: String = UUID().uuidString, projectID: String, at: Date, kind: String, localID: String?,
                outcome: Outcome, clientAddress: String?, details: [String: String] = [:]) {
        self.id = id
        self.projectID = projectID
        self.at = at
        self.kind = kind
        self.localID = localID
        self.outcome = outcome
        self.clientAddress = clientAddress
        self.details = details
    }
}

/// Which audit events to list: newest first, `limit` at most, after `cursor` (the last event of the page before).
public struct AuditQuery: Sendable, Equatable {
    public var localID: String?
    public var kinds: [String]?
    public var from: Date?
    public var until: Date?
    public var limit: Int
    public var after: AuditCursor?

    public init(localID: String? = nil, kinds: [String]? = nil, from: Date? = nil, until: Date? = nil,
                limit: Int = 100, after: AuditCursor? = nil) {
        self.localID = localID
        self.kinds = kinds
        self.from = from
        self.until = until
        self.limit = limit
        self.after = after
    }
}

/// A position in the newest-first order of events: (time in microseconds, id).
public struct AuditCursor: Sendable, Equatable {
    public var micros: Int64
    public var id: String

    public init(_ event: AuditEvent) {
        micros = event.at.epochMicros
        id = event.id
    }

    public init?(token: String) {
        let parts = token.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]) else { return nil }
        self.micros = micros
        id = String(parts[1])
    }

    public var token: String { "\(micros)_\(id)" }
}

/// What housekeeping removes, and up to when.
public struct Housekeeping: Sendable, Equatable {
    /// Expired pending secrets, one-time assertion digests and rate-limit windows go by this instant.
    public var now: Date
    /// Outbox messages created before this (their codes have expired) go, delivered or not: raw codes never stay.
    /// Webhook messages created before it go too once delivered or given up (their events stay in the audit log).
    public var outboxCreatedBefore: Date
    /// Audit events before this go (`nil`: kept for ever).
    public var auditBefore: Date?

    public init(now: Date, outboxCreatedBefore: Date, auditBefore: Date?) {
        self.now = now
        self.outboxCreatedBefore = outboxCreatedBefore
        self.auditBefore = auditBefore
    }
}

/// How many rows of each kind one housekeeping pass removed.
public struct HousekeepingReport: Sendable, Equatable {
    public var refreshTokens = 0
    public var pendingSecrets = 0
    public var assertions = 0
    public var outboxMessages = 0
    public var rateCounters = 0
    public var auditEvents = 0
    public var webhookMessages = 0
    /// Purges that failed, by what they purge (`refreshTokens`, …), each with the database's own message. Each
    /// purge is a statement of its own: one that fails leaves the others done.
    public var failures: [String: String] = [:]

    public init() {}

    public var total: Int {
        refreshTokens + pendingSecrets + assertions + outboxMessages + rateCounters + auditEvents + webhookMessages
    }
}

extension Date {
    /// Microseconds since 1970: the audit log's order key.
    public var epochMicros: Int64 { Int64((timeIntervalSince1970 * 1_000_000).rounded(.down)) }
}
