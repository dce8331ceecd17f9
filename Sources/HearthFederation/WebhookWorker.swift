import AsyncHTTPClient
import Foundation
import HearthCore
import Logging
import NIOCore
import NIOFoundationCompat

/// Delivers the account events queued for the projects' webhook endpoints (``WebhookStore``) as Standard Webhooks:
/// signed POSTs, retried with back-off, each user's events in order. The queue is in the store, so a receiver that is
/// down, or a restart, loses nothing; a crash between a receiver's answer and its record sends that event again
/// (receivers deduplicate by `webhook-id`).
///
/// ```swift
/// let worker = WebhookWorker(store: store, clock: SystemClock())
/// Task { await worker.run() }   // until cancelled
/// worker.ring()                 // an event was queued: deliver now instead of at the next poll
/// ```
public struct WebhookWorker: Sendable {
    let store: any WebhookStore
    let clock: any HearthClock
    let target: OutboundTarget
    let retry: RetryPolicy
    let logger: Logger
    let pollInterval: Duration
    let timeout: TimeAmount
    let batchSize = 20
    /// How long a claimed message is reserved for this sender: longer than a delivery can take.
    let lease: TimeInterval = 60
    private let loop = DeliveryLoop()

    public init(store: any WebhookStore, clock: any HearthClock, target: OutboundTarget = .webhooks,
                retry: RetryPolicy = .webhooks, logger: Logger = Logger(label: "hearth.webhooks"),
                pollInterval: Duration = .seconds(5), timeout: TimeAmount = .seconds(15)) {
        self.store = store
        self.clock = clock
        self.target = target
        self.retry = retry
        self.logger = logger
        self.pollInterval = pollInterval
        self.timeout = timeout
    }

    /// Asks for a delivery pass now.
    public func ring() { loop.ring() }

    /// Delivers until the task is cancelled: at every ring, and every `pollInterval` for retries and for events
    /// other instances queued.
    public func run() async {
        await loop.run(every: pollInterval) { await deliverDue() > 0 }
    }

    /// One pass: delivers the messages due now (concurrently; one user's are never due together). Returns how many.
    @discardableResult
    public func deliverDue() async -> Int {
        let now = clock.now()
        let due: [WebhookMessage]
        do {
            due = try await store.claimWebhookMessages(dueAt: now, leaseUntil: now + lease, limit: batchSize)
        } catch {
            logger.error("could not read the webhook queue; will retry", metadata: ["error": "\(error)"])
            return 0
        }
        await withDiscardingTaskGroup { group in
            for message in due { group.addTask { await deliver(message) } }
        }
        return due.count
    }

    private func deliver(_ message: WebhookMessage) async {
        let attempts = message.attempts + 1
        var metadata: Logger.Metadata = ["message": "\(message.id)", "endpoint": "\(message.endpointID)",
                                         "project": "\(message.projectID)", "attempt": "\(attempts)"]
        var permanent = false
        let failure: String
        do {
            guard let endpoint = message.endpoint else { permanent = true; throw Problem("the endpoint was removed") }
            guard let event = message.event else { permanent = true; throw Problem("the event is no longer in the audit log") }
            let signed = try StandardWebhook(event: event, secret: endpoint.secret, sentAt: clock.now())
            var request = HTTPClientRequest(url: endpoint.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "Hearth-Webhooks")
            for header in signed.headers { request.headers.add(name: header.name, value: header.value) }
            request.body = .bytes(ByteBuffer(data: signed.body))
            let (response, _) = try await target.call(request, timeout: timeout, maximumBody: 64 << 10)
            guard (200..<300).contains(response.status.code) else {
                permanent = response.status.code == 410  // the receiver says it is gone for good
                throw Problem("HTTP \(response.status.code)")
            }
            try await record(message.id, attempts: attempts, deliveredAt: clock.now(), next: nil, error: nil)
            logger.debug("webhook delivered", metadata: metadata)
            return
        } catch let problem as Problem {
            failure = problem.text
        } catch {
            failure = String("\(error)".prefix(300))
        }
        let next = permanent ? nil : retry.nextAttempt(after: attempts, now: clock.now())
        metadata["error"] = "\(failure)"
        do {
            try await record(message.id, attempts: attempts, deliveredAt: nil, next: next, error: failure)
        } catch {
            logger.error("could not record a webhook attempt; the lease will bring it back", metadata: metadata)
        }
        if let next {
            metadata["retryAt"] = "\(next)"
            logger.warning("webhook delivery failed; will retry", metadata: metadata)
        } else {
            logger.error("webhook delivery given up; `hearth events replay` sends it again once the receiver is fixed",
                         metadata: metadata)
        }
    }

    /// Runs to its end even when the worker is being stopped (an unstructured task does not inherit cancellation).
    private func record(_ id: String, attempts: Int, deliveredAt: Date?, next: Date?, error: String?) async throws {
        try await Task { [store] in
            try await store.recordWebhookAttempt(id: id, attempts: attempts, deliveredAt: deliveredAt,
                                                 nextAttemptAt: next, lastError: error)
        }.value
    }

    private struct Problem: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }
}
