import Foundation

/// Account events on their way to the project's webhook endpoints. Storing an audit event of a kind an endpoint
/// takes queues a message for that endpoint in the same transaction, so an event is either in the log and queued, or
/// neither. Messages are leased to one sender at a time and, for one endpoint, delivered in the order of their
/// user's events: a user's message waits while an earlier one of theirs is undelivered (and not given up).
public protocol WebhookStore: Sendable {
    func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws
    func webhookEndpoints(projectID: String) async throws -> [WebhookEndpoint]
    /// Removes an endpoint and its undelivered messages; `false` when there was none.
    func deleteWebhookEndpoint(projectID: String, id: String) async throws -> Bool
    /// Leases up to `limit` messages due at `now` whose user has no earlier message to that endpoint in flight, until
    /// `leaseUntil`; each with its event and endpoint.
    func claimWebhookMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookMessage]
    /// Records an attempt: delivered (`deliveredAt`), due again at `nextAttemptAt`, or given up (both `nil`).
    func recordWebhookAttempt(id: String, attempts: Int, deliveredAt: Date?, nextAttemptAt: Date?, lastError: String?)
        async throws
    /// Queues again, due `now`, every event of the project since `since` that the endpoint (or every endpoint) takes,
    /// with the event's own id: receivers that deduplicate by `webhook-id` see each once. Returns how many.
    func replayWebhookEvents(projectID: String, since: Date, endpointID: String?, now: Date) async throws -> Int
    /// The project's newest messages, newest first, at most `limit`, each with its event.
    func webhookMessages(projectID: String, limit: Int) async throws -> [WebhookMessage]
    /// Whether the store last found no endpoint at all, so the events it stores queue nothing: the sender need not
    /// wake for them (its poll still notices endpoints other instances add).
    var knowsNoWebhookEndpoints: Bool { get }
}

extension WebhookStore {
    public var knowsNoWebhookEndpoints: Bool { false }
}
