import Foundation
import HearthCore

extension StoreContract {
    /// Units of work, session bounds, several rate windows in one query, and what a sign-in costs.
    public static let unitOfWork: [StoreCheck] = [
        StoreCheck("a unit of work commits every change or none") { store in
            try await store.insertUser(sampleUser("u1", email: "u1@example.com"), uniqueEmail: true)
            let event = AuditEvent(id: "e1", projectID: "p-one", at: epoch, kind: "sign-in", localID: "u1",
                                   outcome: .success, clientAddress: nil)
            try await expectThrows(.stale) {
                try await store.write { tx in
                    tx.insertRefreshToken(token("t1", user: "u1"))
                    tx.insertAuditEvent(event)
                    tx.incrementRateCounter(key: "k", windowStart: epoch, expiresAt: epoch + 60)
                    tx.stampSignIn(SignInStamp(projectID: "p-one", tenantID: nil, localID: "ghost", at: epoch, signedIn: true))
                }
            }
            try await expectThrows(.emailExists) {
                try await store.write { tx in
                    tx.insertRefreshToken(token("t2", user: "u1"))
                    tx.insertUser(sampleUser("u2", email: "U1@example.com"), uniqueEmail: true)
                }
            }
            try expect(try await store.refreshToken(projectID: "p-one", digest: "t1") == nil, "no session from the undone unit")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "t2") == nil, "nor from the second")
            try expect(try await store.auditEvents(projectID: "p-one", AuditQuery()).isEmpty, "no audit row")
            try expect(try await store.rateCounter(key: "k", windowStart: epoch) == 0, "no count")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u2") == nil, "no account")

            let stamp = SignInStamp(projectID: "p-one", tenantID: nil, localID: "u1", at: epoch + 5, signedIn: true)
            let done = try await store.write { tx in
                tx.stampSignIn(stamp)
                tx.insertRefreshToken(token("t3", user: "u1"))
                tx.insertAuditEvent(event)
                tx.incrementRateCounter(key: "k", windowStart: epoch, expiresAt: epoch + 60, by: 2)
            }
            try expect(done.stamped?.lastLoginAt == epoch + 5 && done.counts == [2], "outcome: \(done)")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")?.lastLoginAt == epoch + 5, "stamped")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "t3") != nil, "session stored")
            try expect(try await store.auditEvents(projectID: "p-one", AuditQuery()).map(\.id) == ["e1"], "audit row stored")
        },
        StoreCheck("a stamp that refuses a disabled account undoes its unit") { store in
            var user = sampleUser("u1", email: "u1@example.com")
            user.disabled = true
            try await store.insertUser(user, uniqueEmail: true)
            var stamp = SignInStamp(projectID: "p-one", tenantID: nil, localID: "u1", at: epoch + 5, signedIn: true)
            stamp.refuseDisabled = true
            try await expectThrows(.stale) {
                try await store.write { tx in
                    tx.stampSignIn(stamp)
                    tx.insertRefreshToken(token("t1", user: "u1"))
                }
            }
            try expect(try await store.refreshToken(projectID: "p-one", digest: "t1") == nil, "no session for a disabled account")
        },
        StoreCheck("a new session beyond keepingLatest revokes the user's oldest") { store in
            try await store.insertUser(sampleUser("u1"), uniqueEmail: true)
            try await store.insertUser(sampleUser("u2"), uniqueEmail: true)
            try await store.insertRefreshToken(token("other", user: "u2"))
            for index in 0..<5 {
                var session = token("t\(index)", user: "u1")
                session.createdAt = epoch + Double(index)
                try await store.write { $0.insertRefreshToken(session, keepingLatest: 3) }
            }
            var live: [String] = []
            for index in 0..<5 where try await store.refreshToken(projectID: "p-one", digest: "t\(index)") != nil {
                live.append("t\(index)")
            }
            try expect(live == ["t2", "t3", "t4"], "the three newest stay: \(live)")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "other") != nil, "another user's stays")
        },
        StoreCheck("several rate windows are read in one call, in order") { store in
            _ = try await store.incrementRateCounter(key: "a", windowStart: epoch, expiresAt: epoch + 120)
            _ = try await store.incrementRateCounter(key: "a", windowStart: epoch + 60, expiresAt: epoch + 180, by: 3)
            _ = try await store.incrementRateCounter(key: "b", windowStart: epoch, expiresAt: epoch + 120, by: 2)
            let counts = try await store.rateCounters([
                RateWindow(key: "a", start: epoch + 60), RateWindow(key: "missing", start: epoch),
                RateWindow(key: "b", start: epoch), RateWindow(key: "a", start: epoch)])
            try expect(counts == [3, 0, 2, 1], "counts by window: \(counts)")
        },
        StoreCheck("a password sign-in costs at most two reads and one write transaction") { store in
            guard let counter = store.statementCounter else { return }  // a store that does not count (memory)
            let clock = ManualClock(epoch)
            let directory = ProjectDirectory(store: store, clock: clock,
                                             defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                             hashParameters: { .generate(memoryCost: 10) })
            let project = try await directory.contextCreatingIfNeeded(for: "p-budget")
            var accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
            accounts.audit = RowsOnly(clock: clock)
            _ = try await accounts.passwords.signUp(in: project, email: "budget@example.com", password: "secret1")
            clock.advance(by: 60)
            let limiter = RateLimiter(store: store, clock: clock)
            let rule = RateLimiter.Rule(limit: 10, window: 3600)
            counter.reset()
            // As the route does it: both failed-sign-in limits (by account and by address) reserved, the sign-in,
            // and the slots given back since it succeeded.
            let held = try await limiter.reserve([("signin-failed-email:budget@example.com", rule),
                                                  ("signin-failed-address:192.0.2.1", rule)])
            let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "budget@example.com",
                                                                 password: "secret1").signedIn()
            try await limiter.release(held)
            let cost = counter.current
            // The limits: one read and a write each way; the sign-in: its reads and one write.
            try expect(cost.reads <= 3 && cost.writes == 3, "reads \(cost.reads), write transactions \(cost.writes)")
            // The one write holds all three: the stamp, the session and the audit event.
            let stored = try await store.user(projectID: "p-budget", tenantID: nil, localID: signedIn.user.localID)
            try expect(stored?.lastLoginAt == epoch + 60, "stamped: \(String(describing: stored?.lastLoginAt))")
            try expect(try await store.refreshToken(projectID: "p-budget", digest: storageDigest(signedIn.tokens.refreshToken)) != nil,
                       "session stored")
            let kinds = try await store.auditEvents(projectID: "p-budget", AuditQuery()).map(\.kind)
            try expect(kinds == ["sign-in", "sign-up"], "audit rows: \(kinds)")
        },
    ]
}

/// Keeps every event's row, logs nothing: for the sign-in budget.
private struct RowsOnly: AuditTrail {
    let clock: ManualClock
    func row(for event: SecurityEvent) -> AuditEvent? {
        AuditEvent(projectID: event.projectID, at: clock.now(), kind: event.kind.rawValue, localID: event.localID,
                   outcome: .success, clientAddress: nil, details: event.details)
    }
    func committed(_ row: AuditEvent) {}
    func record(_ event: SecurityEvent) async {}
}

extension StoreContract {
    /// Batch lookups, and reads that join.
    public static let batches: [StoreCheck] = [
        StoreCheck("users by several ids come back in one call, the missing ones left out") { store in
            for id in ["a", "b", "c"] { try await store.insertUser(sampleUser(id, email: "\(id)@example.com"), uniqueEmail: true) }
            try await store.insertUser(sampleUser("d", project: "p-two"), uniqueEmail: true)
            let found = try await store.users(projectID: "p-one", tenantID: nil, localIDs: ["c", "missing", "a", "d"])
            try expect(Set(found.map(\.localID)) == ["a", "c"], "found: \(found.map(\.localID))")
            try expect(try await store.users(projectID: "p-one", tenantID: nil, localIDs: []).isEmpty, "none asked, none found")
        },
        StoreCheck("a refresh token comes back with its user in one call") { store in
            let user = sampleUser("u1", email: "u1@example.com")
            try await store.insertUser(user, uniqueEmail: true)
            try await store.insertRefreshToken(token("t1", user: "u1"))
            try await store.insertRefreshToken(token("t-ghost", user: "ghost"))
            let session = try await store.session(projectID: "p-one", digest: "t1")
            try expect(session?.token == token("t1", user: "u1") && session?.user?.localID == "u1"
                       && session?.user?.email == "u1@example.com", "token and user: \(String(describing: session))")
            let orphan = try await store.session(projectID: "p-one", digest: "t-ghost")
            try expect(orphan != nil && orphan?.user == nil, "a token whose user is gone comes without one")
            try expect(try await store.session(projectID: "p-two", digest: "t1") == nil, "another project's digest is unknown")
        },
    ]
}
