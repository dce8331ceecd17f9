import Foundation
import HearthCore

extension StoreContract {
    static func auditEvent(_ id: String, kind: String, user: String?, at offset: TimeInterval, project: String = "p-one")
        -> AuditEvent {
        AuditEvent(id: id, projectID: project, at: epoch + offset, kind: kind, localID: user, outcome: .success,
                   clientAddress: "203.0.113.7", details: ["provider": "password"])
    }

    /// Webhook endpoints and the messages an audit event queues for them: in the event's transaction, per endpoint and
    /// kind, leased once, in each user's order, replayable from the log.
    public static let webhooks: [StoreCheck] = [
        StoreCheck("an audit event is queued for each endpoint that takes its kind, in the same transaction") { store in
            let all = WebhookEndpoint(projectID: "p-one", url: "https://a.example/hook", now: epoch)
            let created = WebhookEndpoint(projectID: "p-one", url: "https://b.example/hook", types: [.userCreated], now: epoch + 1)
            let elsewhere = WebhookEndpoint(projectID: "p-two", url: "https://c.example/hook", now: epoch)
            for endpoint in [all, created, elsewhere] { try await store.insertWebhookEndpoint(endpoint) }
            try expect(try await store.webhookEndpoints(projectID: "p-one") == [all, created], "round trip, per project")

            try await store.insertAuditEvent(auditEvent("e1", kind: "sign-up", user: "u1", at: 1))
            try await store.insertAuditEvent(auditEvent("e2", kind: "sign-in", user: "u1", at: 2))
            try await store.insertAuditEvent(auditEvent("e3", kind: "sign-in-failed", user: "u1", at: 3))  // no event type
            _ = try await store.write { tx in
                tx.insertAuditEvent(auditEvent("e4", kind: "password-changed", user: "u2", at: 4))
            }
            // A unit that fails leaves neither the event nor its messages.
            try await expectThrows(.emailExists) {
                _ = try await store.write { tx in
                    tx.insertAuditEvent(auditEvent("e5", kind: "sign-up", user: "u3", at: 5))
                    tx.insertUser(sampleUser("dup-a", email: "same@example.com"), uniqueEmail: true)
                    tx.insertUser(sampleUser("dup-b", email: "same@example.com"), uniqueEmail: true)
                }
            }
            let queued = try await store.webhookMessages(projectID: "p-one", limit: 10)
            let pairs = Set(queued.map { "\($0.eventID)>\($0.endpointID == all.id ? "all" : "created")" })
            try expect(pairs == ["e1>all", "e1>created", "e2>all", "e4>all"], "queued \(pairs)")
            try expect(queued.allSatisfy { $0.state == "pending" && $0.event != nil && $0.endpoint != nil }, "with event and endpoint")
            try expect(try await store.webhookMessages(projectID: "p-two", limit: 10).isEmpty, "not another project's")
        },
        StoreCheck("messages are leased once, and a user's wait for their earlier one to be delivered") { store in
            let endpoint = WebhookEndpoint(projectID: "p-one", url: "https://a.example/hook", now: epoch)
            try await store.insertWebhookEndpoint(endpoint)
            for (index, user) in ["u1", "u1", "u2", "u1"].enumerated() {
                try await store.insertAuditEvent(auditEvent("e\(index)", kind: "sign-in", user: user, at: Double(index)))
            }
            let now = epoch + 100
            let first = try await store.claimWebhookMessages(dueAt: now, leaseUntil: now + 60, limit: 10)
            try expect(first.map(\.eventID) == ["e0", "e2"], "each user's oldest: \(first.map(\.eventID))")
            try expect(first.first?.event?.kind == "sign-in" && first.first?.endpoint?.secret == endpoint.secret, "joined")
            try expect(try await store.claimWebhookMessages(dueAt: now, leaseUntil: now + 60, limit: 10).isEmpty,
                       "leased messages and those waiting behind them are not handed out again")
            // e0 fails and is due later: u1's next still waits; e2 is delivered.
            try await store.recordWebhookAttempt(id: first[0].id, attempts: 1, deliveredAt: nil, nextAttemptAt: now + 30, lastError: "HTTP 503")
            try await store.recordWebhookAttempt(id: first[1].id, attempts: 1, deliveredAt: now, nextAttemptAt: nil, lastError: nil)
            try expect(try await store.claimWebhookMessages(dueAt: now + 10, leaseUntil: now + 70, limit: 10).isEmpty, "u1 waits for e0")
            let retry = try await store.claimWebhookMessages(dueAt: now + 30, leaseUntil: now + 90, limit: 10)
            try expect(retry.map(\.eventID) == ["e0"] && retry.first?.attempts == 1, "e0 again: \(retry.map(\.eventID))")
            try await store.recordWebhookAttempt(id: retry[0].id, attempts: 2, deliveredAt: now + 30, nextAttemptAt: nil, lastError: nil)
            let next = try await store.claimWebhookMessages(dueAt: now + 30, leaseUntil: now + 90, limit: 10)
            try expect(next.map(\.eventID) == ["e1"], "then e1: \(next.map(\.eventID))")
            // Given up (no next attempt, not delivered): it no longer holds the user's later messages back.
            try await store.recordWebhookAttempt(id: next[0].id, attempts: 12, deliveredAt: nil, nextAttemptAt: nil, lastError: "gone")
            let last = try await store.claimWebhookMessages(dueAt: now + 30, leaseUntil: now + 90, limit: 10)
            try expect(last.map(\.eventID) == ["e3"], "then e3: \(last.map(\.eventID))")
            let states = try await store.webhookMessages(projectID: "p-one", limit: 10).map(\.state)
            try expect(states.filter { $0 == "delivered" }.count == 2 && states.contains("given-up"), "states \(states)")
        },
        StoreCheck("concurrent senders never take one message twice") { store in
            try await store.insertWebhookEndpoint(WebhookEndpoint(projectID: "p-one", url: "https://a.example/hook", now: epoch))
            for index in 0..<40 {
                try await store.insertAuditEvent(auditEvent("c\(index)", kind: "sign-in", user: "user-\(index)", at: Double(index)))
            }
            let now = epoch + 100
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await store.claimWebhookMessages(dueAt: now, leaseUntil: now + 60, limit: 15).map(\.id) }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            try expect(claims.count == 40 && Set(claims).count == 40, "each once: \(claims.count) claimed, \(Set(claims).count) distinct")
        },
        StoreCheck("a replay queues the log's events again, with their ids; removing an endpoint drops what it had pending") { store in
            let a = WebhookEndpoint(projectID: "p-one", url: "https://a.example/hook", now: epoch)
            let b = WebhookEndpoint(projectID: "p-one", url: "https://b.example/hook", types: [.userDeleted], now: epoch)
            try await store.insertAuditEvent(auditEvent("old", kind: "sign-in", user: "u1", at: 1))
            try await store.insertWebhookEndpoint(a)
            try await store.insertWebhookEndpoint(b)
            try await store.insertAuditEvent(auditEvent("new", kind: "account-deleted", user: "u1", at: 50))
            let replayed = try await store.replayWebhookEvents(projectID: "p-one", since: epoch, endpointID: nil, now: epoch + 60)
            try expect(replayed == 3, "old>a, new>a, new>b: \(replayed)")
            let onlyA = try await store.replayWebhookEvents(projectID: "p-one", since: epoch + 10, endpointID: a.id, now: epoch + 61)
            try expect(onlyA == 1, "since and endpoint narrow it: \(onlyA)")
            let events = try await store.webhookMessages(projectID: "p-one", limit: 20).map(\.eventID)
            try expect(events.filter { $0 == "new" }.count == 5 && events.filter { $0 == "old" }.count == 1, "ids kept: \(events)")
            try expect(try await store.deleteWebhookEndpoint(projectID: "p-one", id: a.id), "removed")
            try expect(try await !store.deleteWebhookEndpoint(projectID: "p-one", id: a.id), "once")
            let left = try await store.webhookMessages(projectID: "p-one", limit: 20)
            try expect(left.allSatisfy { $0.endpointID == b.id }, "a's pending messages went with it")
        },
    ]
}
