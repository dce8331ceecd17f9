import Foundation

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
