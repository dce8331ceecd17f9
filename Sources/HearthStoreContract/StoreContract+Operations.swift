import Foundation
import HearthCore

extension StoreContract {
    /// Shared rate-limit windows, the audit log and housekeeping.
    public static let operations: [StoreCheck] = [
        StoreCheck("a job's lease is held by one holder until it runs out, then by whoever takes it next") { store in
            try expect(try await store.takeLease(job: "purge", holder: "a", until: epoch + 600, now: epoch), "free: taken")
            try expect(try await !store.takeLease(job: "purge", holder: "b", until: epoch + 600.001, now: epoch + 0.001),
                       "held by another")
            try expect(try await !store.takeLease(job: "purge", holder: "a", until: epoch + 1200, now: epoch + 599.999),
                       "held, even by its own holder, until it runs out")
            try expect(try await store.takeLease(job: "other", holder: "b", until: epoch + 600, now: epoch), "jobs are apart")
            try expect(try await store.takeLease(job: "purge", holder: "b", until: epoch + 1200, now: epoch + 600), "run out: taken")
            try await store.releaseLease(job: "purge", holder: "a")  // not a's any more: nothing happens
            try expect(try await !store.takeLease(job: "purge", holder: "a", until: epoch + 1200, now: epoch + 601), "still b's")
            try await store.releaseLease(job: "purge", holder: "b")
            try expect(try await store.takeLease(job: "purge", holder: "a", until: epoch + 1200, now: epoch + 601), "released: taken")
        },
        StoreCheck("rate counters count per key and window, atomically across concurrent increments") { store in
            let start = epoch, end = epoch + 600
            try expect(try await store.rateCounter(key: "k", windowStart: start) == 0, "no window yet")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await store.incrementRateCounter(key: "k", windowStart: start, expiresAt: end) } }
                var seen: Set<Int> = []
                for try await count in group { seen.insert(count) }
                try expect(seen == Set(1...20), "each increment sees its own count: \(seen.sorted())")
            }
            try expect(try await store.rateCounter(key: "k", windowStart: start) == 20, "20 counted")
            try expect(try await store.rateCounter(key: "k", windowStart: end) == 0, "the next window starts at 0")
            try expect(try await store.rateCounter(key: "other", windowStart: start) == 0, "keys are independent")
        },
        StoreCheck("audit events list newest first, filtered by user, kind and time, paged by cursor") { store in
            for index in 0..<7 {
                try await store.insertAuditEvent(AuditEvent(
                    id: "e\(index)", projectID: "p-one", at: epoch + Double(index), kind: index % 2 == 0 ? "sign-in" : "sign-in-failed",
                    localID: index < 4 ? "u1" : "u2", outcome: index % 2 == 0 ? .success : .failure,
                    clientAddress: "192.0.2.\(index)", details: ["provider": "password"]))
            }
            try await store.insertAuditEvent(AuditEvent(id: "other", projectID: "p-two", at: epoch, kind: "sign-in",
                                                        localID: "u1", outcome: .success, clientAddress: nil))
            let all = try await store.auditEvents(projectID: "p-one", AuditQuery(limit: 100))
            try expect(all.map(\.id) == ["e6", "e5", "e4", "e3", "e2", "e1", "e0"], "newest first: \(all.map(\.id))")
            try expect(all.last?.clientAddress == "192.0.2.0" && all.last?.details == ["provider": "password"], "round trip")
            let first = try await store.auditEvents(projectID: "p-one", AuditQuery(limit: 3))
            let second = try await store.auditEvents(projectID: "p-one", AuditQuery(limit: 3, after: AuditCursor(first[2])))
            try expect(first.map(\.id) + second.map(\.id) == ["e6", "e5", "e4", "e3", "e2", "e1"], "pages continue")
            let user = try await store.auditEvents(projectID: "p-one", AuditQuery(localID: "u2"))
            try expect(user.map(\.id) == ["e6", "e5", "e4"], "by user: \(user.map(\.id))")
            let failed = try await store.auditEvents(projectID: "p-one", AuditQuery(kinds: ["sign-in-failed"]))
            try expect(failed.map(\.id) == ["e5", "e3", "e1"], "by kind: \(failed.map(\.id))")
            let window = try await store.auditEvents(projectID: "p-one", AuditQuery(from: epoch + 2, until: epoch + 4))
            try expect(window.map(\.id) == ["e3", "e2"], "by time, from inclusive, until exclusive: \(window.map(\.id))")
        },
        StoreCheck("housekeeping removes revoked refresh tokens, expired secrets, stale outbox codes and old events") { store in
            try await purgesEverything(store, at: epoch)
        },
        // Real clocks give fractional milliseconds (a refresh token's createdAt of 1795890465665.4314 ms): a purge
        // that cast one to an integer failed on PostgreSQL at every pass, unseen by whole-millisecond tests.
        StoreCheck("housekeeping purges the same with fractional-millisecond timestamps, just past a second") { store in
            try await purgesEverything(store, at: Date(timeIntervalSince1970: 1_795_890_465.6654314))
        },
        StoreCheck("the outbox backlog counts pending and given-up messages") { store in
            for id in ["a", "b", "c"] {
                try await store.enqueueOutboxMessage(OutboxMessage(id: id, projectID: "p-one", type: .verifyEmail,
                    recipient: "a@example.com", code: "c", link: "l", createdAt: epoch))
            }
            try await store.rescheduleOutboxMessage(id: "c", attempts: 5, nextAttemptAt: nil, lastError: "refused")
            let backlog = try await store.outboxBacklog()
            try expect(backlog.pending == 2 && backlog.givenUp == 1, "backlog \(backlog)")
            let kept = try await store.outboxMessages(projectID: "p-one")
            try expect(kept.first { $0.id == "c" }.map { $0.code.isEmpty && $0.link.isEmpty && $0.isRedacted } == true,
                       "a given-up message keeps no code or link: \(kept)")
            try expect(kept.first { $0.id == "a" }?.code == "c", "a pending one keeps its code")
        },
        StoreCheck("the outbox status lists a project's messages with attempts, next try and last error") { store in
            for (index, id) in ["a", "b", "c"].enumerated() {
                try await store.enqueueOutboxMessage(OutboxMessage(id: id, projectID: "p-one", type: .verifyEmail,
                    recipient: "\(id)@example.com", code: "c", link: "l", createdAt: epoch + Double(index)))
            }
            try await store.enqueueOutboxMessage(OutboxMessage(id: "other", projectID: "p-two", type: .verifyEmail,
                recipient: "o@example.com", code: "c", link: "l", createdAt: epoch))
            try await store.rescheduleOutboxMessage(id: "b", attempts: 5, nextAttemptAt: nil, lastError: "550 mailbox unavailable")
            let status = try await store.outboxStatus(projectID: "p-one", limit: 10)
            try expect(status.map(\.message.id) == ["a", "b", "c"], "oldest first, this project's only: \(status.map(\.message.id))")
            try expect(status[1].attempts == 5 && status[1].nextAttemptAt == nil && status[1].lastError == "550 mailbox unavailable",
                       "given up, with its error: \(status[1])")
            try expect(status[0].attempts == 0 && status[0].nextAttemptAt != nil && status[0].lastError == nil, "pending: \(status[0])")
            try expect(try await store.outboxStatus(projectID: "p-one", limit: 2).count == 2, "limit")
            // A retry puts it back in line.
            try await store.rescheduleOutboxMessage(id: "b", attempts: 5, nextAttemptAt: epoch, lastError: "")
            let retried = try await store.outboxStatus(projectID: "p-one", limit: 10)[1]
            try expect(retried.nextAttemptAt != nil && retried.lastError == nil, "retried: \(retried)")
        },
    ]

    /// Every purge, around `base`.
    static func purgesEverything(_ store: any IdentityStore, at base: Date) async throws {
        var user = sampleUser("u1", email: "u1@example.com", createdAt: base)
        try await store.insertUser(user, uniqueEmail: true)
        var old = token("old", user: "u1")
        old.createdAt = base
        try await store.insertRefreshToken(old)
        var later = token("new", user: "u1")
        later.createdAt = base + 100
        try await store.insertRefreshToken(later)
        var orphan = token("orphan", user: "gone")
        orphan.createdAt = base
        try await store.insertRefreshToken(orphan)
        user.validSince = (base + 50).epochSeconds  // revokes "old"
        user = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
        let now = base + 1000
        try await store.insertPending(PendingRecord(digest: "dead", projectID: "p-one", kind: .mfaPendingCredential,
                                                    payload: "{}", expiresAt: now - 1), now: base)
        try await store.insertPending(PendingRecord(digest: "live", projectID: "p-one", kind: .mfaPendingCredential,
                                                    payload: "{}", expiresAt: now + 60), now: base)
        _ = try await store.useAssertionOnce(digest: "jti", expiresAt: now - 1, now: base)
        try await store.enqueueOutboxMessage(OutboxMessage(id: "stale", projectID: "p-one", type: .passwordReset,
            recipient: "a@example.com", code: "c", link: "l", createdAt: base))
        try await store.enqueueOutboxMessage(OutboxMessage(id: "fresh", projectID: "p-one", type: .passwordReset,
            recipient: "a@example.com", code: "c", link: "l", createdAt: now))
        _ = try await store.incrementRateCounter(key: "k", windowStart: base, expiresAt: base + 600)
        _ = try await store.incrementRateCounter(key: "k", windowStart: now, expiresAt: now + 600)
        try await store.insertAuditEvent(AuditEvent(id: "ancient", projectID: "p-one", at: base, kind: "sign-in",
                                                    localID: "u1", outcome: .success, clientAddress: nil))
        try await store.insertAuditEvent(AuditEvent(id: "recent", projectID: "p-one", at: now, kind: "sign-in",
                                                    localID: "u1", outcome: .success, clientAddress: nil))

        let report = try await store.purge(Housekeeping(now: now, outboxCreatedBefore: now - 1,
                                                        auditBefore: now - 1))
        try expect(report.failures.isEmpty, "every purge ran: \(report.failures)")
        try expect(report.refreshTokens == 2, "the revoked and the orphaned token: \(report)")
        try expect(try await store.refreshToken(projectID: "p-one", digest: "new") != nil, "a live token stays")
        try expect(try await store.refreshToken(projectID: "p-one", digest: "old") == nil, "the revoked one goes")
        try expect(report.pendingSecrets == 1 && report.assertions == 1, "expired secrets: \(report)")
        try expect(try await store.pending(projectID: "p-one", digest: "live", now: now) != nil, "a live secret stays")
        try expect(report.outboxMessages == 1, "stale outbox message: \(report)")
        try expect(try await store.outboxMessages(projectID: "p-one").map(\.id) == ["fresh"], "fresh message stays")
        try expect(report.rateCounters == 1, "expired window: \(report)")
        try expect(try await store.rateCounter(key: "k", windowStart: now) == 1, "the current window stays")
        try expect(report.auditEvents == 1, "old event: \(report)")
        try expect(try await store.auditEvents(projectID: "p-one", AuditQuery()).map(\.id) == ["recent"], "recent event stays")
        let again = try await store.purge(Housekeeping(now: now, outboxCreatedBefore: now - 1, auditBefore: now - 1))
        try expect(again.total == 0, "a second pass finds nothing: \(again)")
    }
}
