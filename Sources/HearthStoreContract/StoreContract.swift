import Foundation
import HearthCore

/// One behaviour every ``IdentityStore`` must have, runnable against any backend.
///
/// ```swift
/// @Test(arguments: StoreContract.all)
/// func contract(_ check: StoreCheck) async throws {
///     let store = try await SQLiteStore.temporary()
///     try await check.run(on: store)
/// }
/// ```
public struct StoreCheck: Sendable, CustomStringConvertible {
    public let name: String
    let body: @Sendable (any IdentityStore) async throws -> Void
    /// The instant the check's records are made around (``StoreContract/epoch``).
    var epoch = StoreContract.wholeSecond

    public init(_ name: String, _ body: @escaping @Sendable (any IdentityStore) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Migrates `store` and runs the check on it; throws ``ContractViolation`` on failure.
    public func run(on store: any IdentityStore) async throws {
        try await store.migrate()
        try await StoreContract.$epoch.withValue(epoch) { try await body(store) }
    }

    /// Runs the check, then closes `store` whether it passed or not.
    public func run(closing store: any IdentityStore) async throws {
        do {
            try await run(on: store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    public var description: String {
        epoch == StoreContract.wholeSecond ? name : name + " (at \(epoch.timeIntervalSince1970))"
    }
}

/// A check that did not hold, with what was expected.
public struct ContractViolation: Error, CustomStringConvertible {
    public let description: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) throws {
    if !condition { throw ContractViolation(description: "line \(line): \(message())") }
}

func expectThrows(_ expected: StoreError, _ body: () async throws -> Void, line: Int = #line) async throws {
    do {
        try await body()
    } catch let error as StoreError {
        try expect(error == expected, "expected \(expected), got \(error)", line: line)
        return
    }
    throw ContractViolation(description: "line \(line): expected \(expected), nothing was thrown")
}

/// The checks, grouped as the protocol is.
public enum StoreContract {
    /// Every check, at a whole second and again at a real clock's instant: fractional milliseconds, half a
    /// millisecond before a second ends (a statement that truncates, rounds or casts an instant differently from
    /// the others shows there).
    public static var all: [StoreCheck] {
        let checks = projects + users + paging + admin + refreshTokens + actionCodes + operations + races + tenants
            + unitOfWork + batches + webhooks
        return [wholeSecond, realClock].flatMap { epoch in
            checks.map { check in
                var check = check
                check.epoch = epoch
                return check
            }
        }
    }

    static let wholeSecond = Date(timeIntervalSince1970: 1_700_000_000)
    static let realClock = Date(timeIntervalSince1970: 1_795_890_465.9995314)
    /// The instant a check's records are made around; set per run by ``StoreCheck/run(on:)``.
    @TaskLocal static var epoch = wholeSecond

    static func sampleUser(_ id: String, email: String? = nil, project: String = "p-one", createdAt: Date = epoch)
        -> UserRecord
    {
        UserRecord(projectID: project, localID: id, email: email, emailVerified: false, displayName: "User \(id)",
                   passwordHash: email == nil ? nil : "$fbscrypt$v=1,n=16384,r=8,p=1,ss=Bw==,sk=AA==$AA==$AA==",
                   passwordUpdatedAt: createdAt, validSince: createdAt.epochSeconds, createdAt: createdAt,
                   lastLoginAt: createdAt, customAttributes: #"{"role":"admin"}"#,
                   providers: [ProviderUserInfo(providerID: "google.com", rawID: "g-\(id)", email: email)])
    }

    static func sampleProject(_ id: String) -> ProjectRecord {
        ProjectRecord(
            id: id, number: "123456789012", apiKeys: ["AIza-test"],
            signingKeys: [SigningKeyRecord(kid: "k1", privateKeyPEM: "pem", certificatePEM: "cert", createdAt: epoch)],
            hashConfig: FirebaseScryptParameters(signerKey: Data([1, 2, 3]), saltSeparator: Data([7])),
            settings: ProjectSettings(enableImprovedEmailPrivacy: true), createdAt: epoch)
    }

    static func token(_ digest: String, user: String, project: String = "p-one") -> RefreshTokenRecord {
        RefreshTokenRecord(tokenDigest: digest, projectID: project, tenantID: nil, localID: user,
                           signInProvider: "password", secondFactor: "totp", secondFactorID: "f1", authTime: epoch,
                           createdAt: epoch)
    }

    // MARK: Projects

    public static let projects: [StoreCheck] = [
        StoreCheck("project round-trips and is created only once") { store in
            let project = sampleProject("p-one")
            try expect(try await store.project(id: "p-one") == nil, "no project before creation")
            let created = try await store.createProjectIfAbsent(project)
            try expect(created == project, "created project reads back equal")
            var other = project
            other.number = "999"
            let second = try await store.createProjectIfAbsent(other)
            try expect(second == project, "a second create returns the first project unchanged")
            try expect(try await store.project(id: "p-one") == project, "stored project is the first one")
        },
        StoreCheck("project update replaces settings; updating a missing project fails") { store in
            var project = try await store.createProjectIfAbsent(sampleProject("p-one"))
            project.settings[.allowDuplicateEmails] = true
            project.settings.authorizedDomains = ["app.example.com"]
            project.settings.emailTemplates = ["pt-BR": ["PASSWORD_RESET": EmailTemplate(fromName: "Equipe", subject: "Olá %APP_NAME%")]]
            try await store.updateProject(project)
            let saved = try await store.project(id: "p-one")?.settings
            try expect(saved?[.allowDuplicateEmails] == true, "setting saved")
            try expect(saved?.authorizedDomains == ["app.example.com"] && saved?.emailTemplates == project.settings.emailTemplates,
                       "the console's settings saved: authorized domains, email templates")
            try await expectThrows(.notFound) { try await store.updateProject(sampleProject("p-missing")) }
        },
        StoreCheck("project updates are compare-and-set: a stale copy cannot overwrite a newer write") { store in
            let created = try await store.createProjectIfAbsent(sampleProject("p-one"))
            var first = created
            first.serviceAccounts = [ServiceAccountRecord(name: "deleted-soon", clientEmail: "d@p-one.iam.hearth",
                                                          keyID: "k1", publicKeyPEM: "pem", createdAt: epoch)]
            let stored = try await store.updateProject(first)
            try expect(stored.version == created.version + 1, "the write moves the version on")
            var stale = created  // a cache from before: writing it would bring nothing back, or lose `first`
            stale.settings[.allowDuplicateEmails] = true
            try await expectThrows(.conflict) { try await store.updateProject(stale) }
            let now = try await store.project(id: "p-one")
            try expect(now?.serviceAccounts.map(\.name) == ["deleted-soon"] && now?.settings[.allowDuplicateEmails] == false,
                       "the refused write changed nothing")
            try expect(now?.version == stored.version, "the stored version reads back")
            guard var next = now else { throw ContractViolation(description: "the project is gone") }
            next.serviceAccounts = []
            try await store.updateProject(next)
            try await expectThrows(.conflict) { try await store.updateProject(stored) }
            try expect(try await store.project(id: "p-one")?.serviceAccounts.isEmpty == true, "a deleted account stays deleted")
        },
        StoreCheck("migrations are idempotent") { store in
            try await store.migrate()
            try await store.migrate()
            _ = try await store.createProjectIfAbsent(sampleProject("p-one"))
            try expect(try await store.project(id: "p-one") != nil, "store still works after re-migrating")
        },
    ]

    // MARK: Users

    public static let users: [StoreCheck] = [
        StoreCheck("user round-trips every field") { store in
            let user = sampleUser("u1", email: "Ada@Example.com")
            try await store.insertUser(user, uniqueEmail: true)
            let read = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")
            try expect(read == user, "read back \(String(describing: read)) != \(user)")
        },
        StoreCheck("email lookup is case-insensitive and scoped by project and tenant") { store in
            try await store.insertUser(sampleUser("u1", email: "Ada@Example.com"), uniqueEmail: true)
            try await store.insertUser(sampleUser("u2", email: "ada@example.com", project: "p-two"), uniqueEmail: true)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "ADA@example.COM")?.localID == "u1",
                       "lookup by differently cased email finds u1")
            try expect(try await store.user(projectID: "p-two", tenantID: nil, email: "ada@example.com")?.localID == "u2",
                       "the same email in another project is another user")
            try expect(try await store.user(projectID: "p-one", tenantID: "t1", email: "ada@example.com") == nil,
                       "a tenant does not see the project's users")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "nobody@example.com") == nil,
                       "unknown email finds nothing")
        },
        StoreCheck("one account per email: a second insert or an update onto a taken email fails") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            try await expectThrows(.emailExists) {
                try await store.insertUser(sampleUser("u2", email: "A@EXAMPLE.com"), uniqueEmail: true)
            }
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u2") == nil,
                       "the refused user was not stored")
            try await store.insertUser(sampleUser("u3", email: "b@example.com"), uniqueEmail: true)
            var moved = sampleUser("u3", email: "a@example.com")
            moved.displayName = "changed"
            try await expectThrows(.emailExists) { try await store.updateUser(moved, uniqueEmail: true, revokeRefreshTokens: false) }
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u3")?.email == "b@example.com",
                       "the refused update changed nothing")
        },
        StoreCheck("duplicate emails are allowed when the project allows them; the oldest is found first") { store in
            var newer = sampleUser("u2", email: "a@example.com", createdAt: epoch + 10)
            newer.passwordHash = nil  // an IdP's account: only password accounts keep their email to themselves
            try await store.insertUser(newer, uniqueEmail: false)
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: false)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "a@example.com")?.localID == "u1",
                       "the earliest created account is returned")
        },
        StoreCheck("a taken localId is refused") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            try await expectThrows(.duplicateLocalID) {
                try await store.insertUser(sampleUser("u1", email: "other@example.com"), uniqueEmail: true)
            }
        },
        StoreCheck("concurrent sign-ups with one email: exactly one wins") { store in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            try await store.insertUser(sampleUser("racer\(index)", email: "race@example.com"),
                                                       uniqueEmail: true)
                            return true
                        } catch StoreError.emailExists {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            try expect(outcomes.filter { $0 }.count == 1, "winners: \(outcomes.filter { $0 }.count), expected 1")
        },
        StoreCheck("update replaces the record; updating a missing user fails") { store in
            var user = sampleUser("u1", email: "a@example.com")
            try await store.insertUser(user, uniqueEmail: true)
            user.email = "new@example.com"
            user.emailVerified = true
            user.disabled = true
            user.validSince += 60
            let written = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
            user.version = 1
            try expect(written == user, "the write returns what it stored, version moved on")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u1") == user, "update stored")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "new@example.com")?.localID == "u1",
                       "lookup by the new email works")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "a@example.com") == nil,
                       "the old email no longer finds the user")
            try await expectThrows(.notFound) {
                try await store.updateUser(sampleUser("ghost"), uniqueEmail: true, revokeRefreshTokens: false)
            }
        },
        StoreCheck("delete removes the user and reports whether there was one") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            try expect(try await store.deleteUser(projectID: "p-one", tenantID: nil, localID: "u1"), "first delete: true")
            try expect(try await !store.deleteUser(projectID: "p-one", tenantID: nil, localID: "u1"), "second: false")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u1") == nil, "user gone")
            try await store.insertUser(sampleUser("u2", email: "a@example.com"), uniqueEmail: true)
        },
        StoreCheck("deleting all users of a project leaves other projects alone") { store in
            try await store.insertUser(sampleUser("u1"), uniqueEmail: true)
            try await store.insertUser(sampleUser("u2"), uniqueEmail: true)
            try await store.insertUser(sampleUser("u3", project: "p-two"), uniqueEmail: true)
            try await store.insertRefreshToken(token("d1", user: "u1"))
            try expect(try await store.deleteAllUsers(projectID: "p-one") == 2, "two users deleted")
            try expect(try await store.user(projectID: "p-two", tenantID: nil, localID: "u3") != nil, "p-two kept")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d1") == nil, "tokens deleted too")
        },
    ]

    // MARK: Refresh tokens

    public static let refreshTokens: [StoreCheck] = [
        StoreCheck("refresh token round-trips, scoped by project") { store in
            let record = token("digest-1", user: "u1")
            try await store.insertRefreshToken(record)
            try expect(try await store.refreshToken(projectID: "p-one", digest: "digest-1") == record, "round-trip")
            try expect(try await store.refreshToken(projectID: "p-two", digest: "digest-1") == nil, "other project")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "nope") == nil, "unknown digest")
        },
        StoreCheck("deleting a user drops its refresh tokens") { store in
            try await store.insertUser(sampleUser("u1"), uniqueEmail: true)
            try await store.insertUser(sampleUser("u2"), uniqueEmail: true)
            try await store.insertRefreshToken(token("d1", user: "u1"))
            try await store.insertRefreshToken(token("d2", user: "u2"))
            try await store.deleteUser(projectID: "p-one", tenantID: nil, localID: "u1")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d1") == nil, "u1's token gone")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d2") != nil, "u2's token kept")
        },
        StoreCheck("an update with revocation drops only that user's refresh tokens, atomically") { store in
            var user = sampleUser("u1")
            try await store.insertUser(user, uniqueEmail: true)
            try await store.insertUser(sampleUser("u2"), uniqueEmail: true)
            try await store.insertRefreshToken(token("d1", user: "u1"))
            try await store.insertRefreshToken(token("d2", user: "u2"))
            user.validSince += 100
            user = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: true)
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d1") == nil, "u1's token revoked")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d2") != nil, "u2's token kept")
            try await store.insertRefreshToken(token("d3", user: "u1"))
            var clash = user
            clash.email = "x@example.com"
            try await store.insertUser(sampleUser("u9", email: "x@example.com"), uniqueEmail: true)
            try await expectThrows(.emailExists) {
                try await store.updateUser(clash, uniqueEmail: true, revokeRefreshTokens: true)
            }
            try expect(try await store.refreshToken(projectID: "p-one", digest: "d3") != nil,
                       "a failed update revoked nothing")
        },
    ]

    public static let paging: [StoreCheck] = [
        StoreCheck("a batch insert stores the good users and refuses taken ids and emails, within it or before") { store in
            try await store.insertUser(UserRecord(projectID: "p-one", localID: "old", email: "old@example.com",
                                                  validSince: 0, createdAt: epoch), uniqueEmail: true)
            let batch = [
                UserRecord(projectID: "p-one", localID: "n1", email: "n1@example.com", validSince: 0, createdAt: epoch),
                UserRecord(projectID: "p-one", localID: "old", email: "x@example.com", validSince: 0, createdAt: epoch),
                UserRecord(projectID: "p-one", localID: "n2", email: "OLD@example.com", validSince: 0, createdAt: epoch),
                UserRecord(projectID: "p-one", localID: "n3", email: "n1@example.com", validSince: 0, createdAt: epoch),
                UserRecord(projectID: "p-one", localID: "n4", validSince: 0, createdAt: epoch),
            ]
            let refused = try await store.insertUsers(batch, uniqueEmail: true)
            try expect(refused == [1: .duplicateLocalID, 2: .emailExists, 3: .emailExists], "refused: \(refused)")
            let ids = try await store.users(projectID: "p-one", after: nil, limit: 10).map(\.localID)
            try expect(ids == ["n1", "n4", "old"], "stored: \(ids)")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "old")?.email == "old@example.com",
                       "a refused user changed nothing")
        },
        StoreCheck("users page in localId byte order, per project, tenants apart") { store in
            let ids = ["b", "a", "B", "a-1", "zz", "A9"]
            for id in ids {
                try await store.insertUser(UserRecord(projectID: "p-one", localID: id, validSince: 0, createdAt: epoch),
                                           uniqueEmail: true)
            }
            try await store.insertUser(UserRecord(projectID: "p-two", localID: "other", validSince: 0, createdAt: epoch),
                                       uniqueEmail: true)
            var tenant = UserRecord(projectID: "p-one", localID: "tenant-user", validSince: 0, createdAt: epoch)
            tenant.tenantID = "t1"
            try await store.insertUser(tenant, uniqueEmail: true)
            var seen: [String] = []
            var after: String?
            while true {
                let page = try await store.users(projectID: "p-one", after: after, limit: 4)
                seen += page.map(\.localID)
                guard page.count == 4, let last = page.last else { break }
                after = last.localID
            }
            try expect(seen == ["A9", "B", "a", "a-1", "b", "zz"], "order: \(seen)")
            try expect(try await store.users(projectID: "p-one", after: "zz", limit: 4).isEmpty, "past the end")
        },
    ]

    // MARK: Action codes and outbox

    static func code(_ digest: String, project: String = "p-one") -> ActionCodeRecord {
        ActionCodeRecord(codeDigest: digest, projectID: project, type: .verifyAndChangeEmail, localID: "u1",
                         email: "a@example.com", newEmail: "b@example.com", continueURL: "https://app.example.com/x",
                         createdAt: epoch, expiresAt: epoch + 3600)
    }

    public static let actionCodes: [StoreCheck] = [
        StoreCheck("action code round-trips; reading does not use it up") { store in
            try await store.insertActionCode(code("c1"))
            try expect(try await store.actionCode(projectID: "p-one", digest: "c1") == code("c1"), "round-trip")
            try expect(try await store.actionCode(projectID: "p-one", digest: "c1") != nil, "still there after a read")
            try expect(try await store.actionCode(projectID: "p-two", digest: "c1") == nil, "scoped by project")
        },
        StoreCheck("an action code is consumed once, even by concurrent redemptions") { store in
            try await store.insertActionCode(code("c1"))
            try expect(try await store.consumeActionCode(projectID: "p-two", digest: "c1") == nil,
                       "another project cannot consume it")
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await store.consumeActionCode(projectID: "p-one", digest: "c1") != nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try expect(winners == 1, "winners: \(winners), expected 1")
            try expect(try await store.actionCode(projectID: "p-one", digest: "c1") == nil, "gone after use")
        },
        StoreCheck("outbox keeps messages per project in order") { store in
            for index in 0..<3 {
                try await store.enqueueOutboxMessage(OutboxMessage(
                    id: "m\(index)", projectID: "p-one", type: .passwordReset, recipient: "a@example.com",
                    code: "code\(index)", link: "https://x/\(index)", locale: "fr", createdAt: epoch + Double(index)))
            }
            try await store.enqueueOutboxMessage(OutboxMessage(
                projectID: "p-two", type: .verifyEmail, recipient: "b@example.com", code: "c", link: "l", createdAt: epoch))
            let messages = try await store.outboxMessages(projectID: "p-one")
            try expect(messages.map(\.code) == ["code0", "code1", "code2"], "order: \(messages.map(\.code))")
            try expect(messages.first?.locale == "fr", "fields round-trip")
            try expect(try await store.outboxMessages(projectID: "p-two").count == 1, "scoped by project")
        },
        StoreCheck("outbox delivery: due messages are leased once, retried after the lease or a reschedule") { store in
            for index in 0..<3 {
                try await store.enqueueOutboxMessage(OutboxMessage(
                    id: "m\(index)", projectID: "p-one", type: .passwordReset, recipient: "a@example.com",
                    code: "c\(index)", link: "l", displayName: "Zoë", createdAt: epoch + Double(index)))
            }
            try expect(try await store.claimOutboxMessages(dueAt: epoch - 1, leaseUntil: epoch + 60, limit: 10).isEmpty,
                       "nothing is due before it was queued")
            let first = try await store.claimOutboxMessages(dueAt: epoch + 5, leaseUntil: epoch + 60, limit: 2)
            try expect(first.map(\.message.id) == ["m0", "m1"], "oldest first, limited: \(first.map(\.message.id))")
            try expect(first.allSatisfy { $0.attempts == 0 } && first[0].message.displayName == "Zoë", "fields")
            let second = try await store.claimOutboxMessages(dueAt: epoch + 5, leaseUntil: epoch + 60, limit: 10)
            try expect(second.map(\.message.id) == ["m2"], "leased messages are not handed out again")
            try await store.deleteOutboxMessage(id: "m0")
            try await store.rescheduleOutboxMessage(id: "m1", attempts: 1, nextAttemptAt: epoch + 30, lastError: "421")
            try await store.rescheduleOutboxMessage(id: "m2", attempts: 9, nextAttemptAt: nil, lastError: "550")
            let retried = try await store.claimOutboxMessages(dueAt: epoch + 30, leaseUntil: epoch + 90, limit: 10)
            try expect(retried.map(\.message.id) == ["m1"] && retried.first?.attempts == 1,
                       "rescheduled message due again with its attempts: \(retried.map(\.message.id))")
            let expired = try await store.claimOutboxMessages(dueAt: epoch + 1000, leaseUntil: epoch + 2000, limit: 10)
            try expect(expired.map(\.message.id) == ["m1"], "an expired lease is claimable; given-up m2 is not")
            try expect(try await store.outboxMessages(projectID: "p-one").map(\.id) == ["m1", "m2"],
                       "delivered m0 is gone; given-up m2 stays listed")
        },
        StoreCheck("outbox delivery: concurrent claims never share a message") { store in
            for index in 0..<20 {
                try await store.enqueueOutboxMessage(OutboxMessage(
                    id: "m\(index)", projectID: "p-one", type: .verifyEmail, recipient: "a@example.com",
                    code: "c", link: "l", createdAt: epoch))
            }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await store.claimOutboxMessages(dueAt: epoch + 1, leaseUntil: epoch + 60, limit: 6)
                            .map(\.message.id)
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            try expect(claimed.count == 20 && Set(claimed).count == 20, "claimed \(claimed.count), distinct \(Set(claimed).count)")
        },
    ]
}
