import Foundation

/// What an operator looks at: the outbox (emails waiting or given up, retried on demand), the webhook deliveries,
/// the audit log, and whether the store answers.
///
/// ```swift
/// let waiting = try await accounts.operatorTools.outbox(in: project, limit: 100)
/// ```
public struct OperatorTools: UseCase {
    public let context: AccountContext
    public init(context: AccountContext) { self.context = context }

    /// How long an anonymous account may go unused before `autodeleteAnonymousUsers` deletes it (Identity Platform's).
    public static let anonymousLifetime: TimeInterval = 30 * 86_400

    /// Identity Platform's `autodeleteAnonymousUsers` for one project or tenant (when its setting is on): deletes the
    /// anonymous accounts (``UserRecord/isAnonymous``) whose last sign-in, refresh or creation is older than 30 days,
    /// reading the users a page of `batch` at a time and deleting each page's in one transaction, their audit events
    /// (`account-deleted`, `by: autodelete`) in one more. Short transactions: sign-ins wait for none for long.
    /// Returns how many.
    public func deleteInactiveAnonymousUsers(in project: ProjectContext, now: Date, batch: Int = 500) async throws -> Int {
        guard project.settings[.autodeleteAnonymousUsers] else { return 0 }
        let cutoff = now - Self.anonymousLifetime
        var after: String?
        var deleted = 0
        while true {
            let page = try await store.users(projectID: project.id, tenantID: project.tenantID, after: after, limit: batch)
            let inactive = page.filter { user in
                user.isAnonymous
                    && ([user.createdAt, user.lastLoginAt, user.lastRefreshAt].compactMap { $0 }.max() ?? user.createdAt) < cutoff
            }
            let gone = try await store.deleteUsers(projectID: project.id, tenantID: project.tenantID,
                                                   localIDs: inactive.map(\.localID))
            deleted += gone.count
            if let audit, !gone.isEmpty {
                var rows: [AuditEvent] = []
                for localID in gone {
                    var event = SecurityEvent(kind: .accountDeleted, projectID: project.id, localID: localID,
                                              details: ["by": "autodelete"])
                    event.tenantID = project.tenantID
                    if let row = audit.row(for: event) { rows.append(row) } else { await audit.record(event) }
                }
                if !rows.isEmpty {
                    _ = try await store.write { tx in for row in rows { tx.insertAuditEvent(row) } }
                    for row in rows { audit.committed(row) }
                }
            }
            guard page.count == batch, let last = page.last else { return deleted }
            after = last.localID
        }
    }

    /// A project's webhook endpoints (with their secrets: a caller shows them to nobody).
    public func webhookEndpoints(in project: ProjectContext) async throws -> [WebhookEndpoint] {
        try await store.webhookEndpoints(projectID: project.id)
    }

    /// A project's latest webhook messages, newest first: delivered, waiting, given up.
    public func webhookDeliveries(in project: ProjectContext, limit: Int) async throws -> [WebhookMessage] {
        try await store.webhookMessages(projectID: project.id, limit: limit)
    }

    /// A project's queued messages with their delivery state, oldest first.
    public func outbox(in project: ProjectContext, limit: Int) async throws -> [OutboxStatus] {
        try await store.outboxStatus(projectID: project.id, limit: limit)
    }

    /// Puts a message back in line for now (its attempts are kept, so the backoff goes on from there); one given
    /// up lost its code with it, so it goes again as a new message with a new code. Returns the message queued, or
    /// `nil` when the project has no message `id`.
    public func retry(_ id: String, in project: ProjectContext, links: ActionLinkBase) async throws -> OutboxMessage? {
        guard let entry = try await store.outboxStatus(projectID: project.id, limit: 10_000).first(where: { $0.message.id == id })
        else { return nil }
        guard entry.message.isRedacted else {
            try await store.rescheduleOutboxMessage(id: id, attempts: entry.attempts, nextAttemptAt: clock.now(), lastError: "")
            return entry.message
        }
        let fresh = try await context.actionCodes.reissue(entry.message, in: project, links: links)
        try await store.deleteOutboxMessage(id: id)
        return fresh
    }

    /// A project's audit events, newest first, filtered and paged by `query`.
    public func auditEvents(in project: ProjectContext, _ query: AuditQuery) async throws -> [AuditEvent] {
        try await store.auditEvents(projectID: project.id, query)
    }

    /// The project as stored now, for readiness probes (they must see the store answer, not a cache).
    public func storedProject(_ id: String) async throws -> ProjectRecord? {
        try await store.project(id: id)
    }
}
