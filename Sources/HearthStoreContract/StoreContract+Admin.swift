import Foundation
import HearthCore

extension StoreContract {
    /// Admin lookups (phone, linked identity), `accounts:query`, and one-time assertions.
    public static let admin: [StoreCheck] = [
        StoreCheck("users are found by phone number and by linked identity, in their project and tenant only") { store in
            var first = sampleUser("u1", email: "u1@example.com")
            first.phoneNumber = "+15555550100"
            try await store.insertUser(first, uniqueEmail: true)
            var other = sampleUser("u2", email: "u2@example.com", project: "p-two")
            other.phoneNumber = "+15555550100"
            try await store.insertUser(other, uniqueEmail: true)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, phoneNumber: "+15555550100")?.localID == "u1",
                       "phone lookup")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, phoneNumber: "+15555550199") == nil,
                       "unknown phone")
            try expect(try await store.user(projectID: "p-one", tenantID: "t1", phoneNumber: "+15555550100") == nil,
                       "phone lookup stays out of tenants")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-u1")?
                .localID == "u1", "identity lookup")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "facebook.com", rawID: "g-u1")
                == nil, "identity lookup needs the provider too")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-u2")
                == nil, "identity lookup stays in its project")
        },
        StoreCheck("users are found by a linked identity's email, any case, oldest first, in their project and tenant only") { store in
            var older = sampleUser("e1", email: "own1@example.com", createdAt: epoch)
            older.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-e1", email: "Shared@Example.com")]
            var newer = sampleUser("e2", email: "own2@example.com", createdAt: epoch.addingTimeInterval(5))
            newer.providers = [ProviderUserInfo(providerID: "github.com", rawID: "gh-e2", email: "shared@example.com")]
            try await store.insertUser(newer, uniqueEmail: true)
            try await store.insertUser(older, uniqueEmail: true)
            var elsewhere = sampleUser("e3", email: "own3@example.com", project: "p-two")
            elsewhere.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-e3", email: "shared@example.com")]
            try await store.insertUser(elsewhere, uniqueEmail: true)
            let found = try await store.users(projectID: "p-one", tenantID: nil, identityEmail: "SHARED@example.com", limit: 10)
            try expect(found.map(\.localID) == ["e1", "e2"], "both, oldest first: \(found.map(\.localID))")
            try expect(try await store.users(projectID: "p-one", tenantID: "t1", identityEmail: "shared@example.com", limit: 10)
                .isEmpty, "stays out of tenants")
            try expect(try await store.users(projectID: "p-one", tenantID: nil, identityEmail: "own1@example.com", limit: 10)
                .isEmpty, "the account's own email is not an identity's")
            // An identity's new email replaces the old one; unlinking forgets it.
            var moved = try await store.user(projectID: "p-one", tenantID: nil, localID: "e2")!
            moved.providers = [ProviderUserInfo(providerID: "github.com", rawID: "gh-e2", email: "moved@example.com")]
            moved = try await store.updateUser(moved, uniqueEmail: true, revokeRefreshTokens: false)
            try expect(try await store.users(projectID: "p-one", tenantID: nil, identityEmail: "shared@example.com", limit: 10)
                .map(\.localID) == ["e1"], "the old email is forgotten")
            try expect(try await store.users(projectID: "p-one", tenantID: nil, identityEmail: "moved@example.com", limit: 1)
                .map(\.localID) == ["e2"], "the new one is found")
        },
        StoreCheck("accounts:query filters, sorts both ways, counts and pages") { store in
            let names = ["u1": "carol", "u2": "alice", "u3": nil, "u4": "bob"]
            for (offset, id) in ["u1", "u2", "u3", "u4"].enumerated() {
                var user = sampleUser(id, email: "\(id)@example.com", createdAt: epoch.addingTimeInterval(Double(10 - offset)))
                user.displayName = names[id]!
                user.lastLoginAt = id == "u2" ? nil : epoch.addingTimeInterval(Double(offset * 100))
                user.phoneNumber = id == "u4" ? "+15555550104" : nil
                try await store.insertUser(user, uniqueEmail: true)
            }
            try await store.insertUser(sampleUser("x", email: "x@example.com", project: "p-two"), uniqueEmail: true)
            for descending in [false, true] {
                for field in UserQuery.SortField.allCases {
                    let query = UserQuery(sortBy: field, descending: descending)
                    let result = try await store.queryUsers(projectID: "p-one", query)
                    let memory = try await store.users(projectID: "p-one", after: nil, limit: 10).sorted(by: query.precedes)
                    try expect(result.count == 4, "count \(result.count)")
                    try expect(result.users.map(\.localID) == memory.map(\.localID),
                               "\(field) desc=\(descending): \(result.users.map(\.localID)) vs \(memory.map(\.localID))")
                }
            }
            let byName = try await store.queryUsers(projectID: "p-one", UserQuery(sortBy: .name))
            try expect(byName.users.map(\.localID) == ["u3", "u2", "u4", "u1"], "by name: \(byName.users.map(\.localID))")
            let page = try await store.queryUsers(projectID: "p-one", UserQuery(sortBy: .createdAt, limit: 2, offset: 1))
            try expect(page.count == 4 && page.users.map(\.localID) == ["u3", "u2"], "page: \(page.users.map(\.localID))")
            let byEmail = try await store.queryUsers(projectID: "p-one", UserQuery(filter: .email("U2@Example.com")))
            try expect(byEmail.count == 1 && byEmail.users.first?.localID == "u2", "email filter")
            let byPhone = try await store.queryUsers(projectID: "p-one", UserQuery(filter: .phoneNumber("+15555550104")))
            try expect(byPhone.users.map(\.localID) == ["u4"], "phone filter")
            let byID = try await store.queryUsers(projectID: "p-one", UserQuery(filter: .localID("x")))
            try expect(byID.count == 0 && byID.users.isEmpty, "id filter stays in the project")
        },
        StoreCheck("a one-time assertion is accepted once, and forgotten after it expires") { store in
            let now = epoch
            try expect(try await store.useAssertionOnce(digest: "a", expiresAt: now.addingTimeInterval(60), now: now),
                       "first use")
            try expect(!(try await store.useAssertionOnce(digest: "a", expiresAt: now.addingTimeInterval(60), now: now)),
                       "second use refused")
            try expect(try await store.useAssertionOnce(digest: "b", expiresAt: now.addingTimeInterval(60), now: now),
                       "another assertion")
            let later = now.addingTimeInterval(120)
            try expect(try await store.useAssertionOnce(digest: "a", expiresAt: later.addingTimeInterval(60), now: later),
                       "an expired entry is dropped (its token is refused by expiry anyway)")
        },
            StoreCheck("pending secrets are read until they expire, counted, and consumed exactly once") { store in
            let now = epoch
            let record = PendingRecord(digest: "p1", projectID: "p-one", kind: .mfaPendingCredential, payload: #"{"x":1}"#,
                                       expiresAt: now.addingTimeInterval(60))
            try await store.insertPending(record, now: now)
            try expect(try await store.pending(projectID: "p-one", digest: "p1", now: now) == record, "read back")
            var other = record
            other.payload = "{}"
            do {
                try await store.insertPending(other, now: now)
                try expect(false, "a live digest was stored twice")
            } catch StoreError.pendingExists {}
            try expect(try await store.pending(projectID: "p-one", digest: "p1", now: now) == record, "the first one is kept")
            try expect(try await store.pending(projectID: "p-two", digest: "p1", now: now) == nil, "other project")
            try expect(try await store.pending(projectID: "p-one", digest: "p1", now: now.addingTimeInterval(61)) == nil,
                       "expired")
            try expect(try await store.recordPendingAttempt(projectID: "p-one", digest: "p1") == 1, "first attempt")
            try expect(try await store.recordPendingAttempt(projectID: "p-one", digest: "p1") == 2, "second attempt")
            try expect(try await store.pending(projectID: "p-one", digest: "p1", now: now)?.attempts == 2, "attempts kept")
            let consumers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<5 { group.addTask { try await store.consumePending(projectID: "p-one", digest: "p1") != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try expect(consumers == 1, "consumed \(consumers) times")
            try expect(try await store.recordPendingAttempt(projectID: "p-one", digest: "p1") == nil, "gone")
            try await store.insertPending(PendingRecord(digest: "p2", projectID: "p-one", kind: .totpEnrollment, payload: "{}",
                                                        expiresAt: now.addingTimeInterval(1)), now: now)
            try await store.insertPending(PendingRecord(digest: "p3", projectID: "p-one", kind: .totpEnrollment, payload: "{}",
                                                        expiresAt: now.addingTimeInterval(100)), now: now.addingTimeInterval(2))
            try expect(try await store.consumePending(projectID: "p-one", digest: "p2") == nil, "expired rows are swept")
            try await store.insertPending(PendingRecord(digest: "p3", projectID: "p-one", kind: .totpEnrollment, payload: "{}",
                                                        expiresAt: now.addingTimeInterval(300)), now: now.addingTimeInterval(101))
            try expect(try await store.pending(projectID: "p-one", digest: "p3", now: now.addingTimeInterval(101)) != nil,
                       "an expired digest may be used again")
        },
            StoreCheck("a linked identity has one owner: inserts, updates and imports that would share it are refused") { store in
            func user(_ id: String, _ raw: String?) -> UserRecord {
                var user = UserRecord(projectID: "p-one", localID: id, validSince: 0, createdAt: epoch)
                if let raw { user.providers = [ProviderUserInfo(providerID: "google.com", rawID: raw)] }
                return user
            }
            try await store.insertUser(user("a", "g-1"), uniqueEmail: true)
            try await expectThrows(.identityLinked) { try await store.insertUser(user("b", "g-1"), uniqueEmail: true) }
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "b") == nil, "nothing half-made")
            try await store.insertUser(user("b", "g-2"), uniqueEmail: true)
            try await expectThrows(.identityLinked) { try await store.updateUser(user("b", "g-1"), uniqueEmail: true, revokeRefreshTokens: false) }
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "b")?.providers.first?.rawID == "g-2",
                       "a refused update changed nothing")
            var other = user("x", "g-1")
            other.projectID = "p-two"
            try await store.insertUser(other, uniqueEmail: true)  // another project may have it
            let refused = try await store.insertUsers([user("c", "g-1"), user("d", "g-3"), user("e", "g-3")], uniqueEmail: true)
            try expect(refused == [0: .identityLinked, 2: .identityLinked], "batch: \(refused)")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "c") == nil, "a refused import left nothing")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-3")?.localID == "d",
                       "the accepted import owns its identity")
            // Unlinking or deleting frees an identity for someone else.
            try await store.updateUser(user("a", nil), uniqueEmail: true, revokeRefreshTokens: false)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-1") == nil, "unlinked")
            try await store.updateUser(user("b", "g-1"), uniqueEmail: true, revokeRefreshTokens: false)
            try await store.deleteUser(projectID: "p-one", tenantID: nil, localID: "b")
            try await store.insertUser(user("f", "g-1"), uniqueEmail: true)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: "google.com", rawID: "g-1")?.localID == "f",
                       "deleting the owner freed it")
        },
    ]
}
