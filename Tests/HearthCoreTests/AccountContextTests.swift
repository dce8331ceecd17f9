import Foundation
import HearthCore
import Testing

/// The account use-cases on the in-memory store, with a clock the tests move by hand.
@Suite struct AccountContextTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    func makeService() -> AccountContext {
        AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
    }

    func makeProject(protection: Bool = false, anonymous: Bool = true) async throws -> ProjectContext {
        let directory = ProjectDirectory(
            store: store, clock: clock,
            defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: protection, anonymousSignInEnabled: anonymous) },
            hashParameters: { .generate(memoryCost: 10) })
        return try await directory.contextCreatingIfNeeded(for: "demo-one")
    }

    @Test func signUpThenSignIn() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let created = try await accounts.passwords.signUp(in: project, email: "Ada@Example.com", password: "secret1",
                                                displayName: "Ada")
        #expect(created.isNewUser)
        #expect(created.user.email == "ada@example.com", "stored lowercased, as Firebase stores addresses")
        #expect(created.user.passwordHash?.hasPrefix("$fbscrypt$") == true)
        let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "ada@example.com", password: "secret1").signedIn()
        #expect(signedIn.user.localID == created.user.localID)
        #expect(signedIn.tokens.refreshToken != created.tokens.refreshToken)
        await #expect(throws: AuthFailure.emailExists) {
            try await accounts.passwords.signUp(in: project, email: "ADA@example.com", password: "another1")
        }
    }

    @Test func anImportedHashIsReplacedByFirebaseScryptAtTheFirstSignIn() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let salt = Data("NaCl".utf8)
        let imported = ImportedHash(algorithm: .digest(.sha256, rounds: 1, order: .saltFirst), salt: salt,
                                    hash: try #require(Data(base64Encoded: "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM=")))
        let user = UserRecord(projectID: project.id, localID: "imported-1", email: "old@example.com",
                              passwordHash: imported.stored, validSince: 0, createdAt: clock.now())
        try await store.insertUser(user, uniqueEmail: true)
        await #expect(throws: AuthFailure.invalidPassword) {
            try await accounts.passwords.signInWithPassword(in: project, email: "old@example.com", password: "wrong1").signedIn()
        }
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "imported-1")?.passwordHash
                == imported.stored, "a failed sign-in changes nothing")
        _ = try await accounts.passwords.signInWithPassword(in: project, email: "old@example.com", password: "password").signedIn()
        let rehashed = try #require(try await store.user(projectID: project.id, tenantID: nil, localID: "imported-1")?.passwordHash)
        #expect(rehashed.hasPrefix("$fbscrypt$") && !PasswordHash.needsRehash(rehashed, for: project.record.hashConfig))
        _ = try await accounts.passwords.signInWithPassword(in: project, email: "old@example.com", password: "password").signedIn()
    }

    @Test func signUpValidation() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        await #expect(throws: AuthFailure.missingPassword) { try await accounts.passwords.signUp(in: project, email: "a@b.co") }
        await #expect(throws: AuthFailure.missingEmail) { try await accounts.passwords.signUp(in: project, password: "secret1") }
        await #expect(throws: AuthFailure.invalidEmail) {
            try await accounts.passwords.signUp(in: project, email: "not-an-email", password: "secret1")
        }
        await #expect(throws: AuthFailure.weakPassword) {
            try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "12345")
        }
    }

    @Test func wrongPasswordAndUnknownEmailWithoutProtection() async throws {
        let accounts = makeService()
        let project = try await makeProject(protection: false)
        _ = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        await #expect(throws: AuthFailure.invalidPassword) {
            try await accounts.passwords.signInWithPassword(in: project, email: "a@b.co", password: "wrong!").signedIn()
        }
        await #expect(throws: AuthFailure.emailNotFound) {
            try await accounts.passwords.signInWithPassword(in: project, email: "nobody@b.co", password: "secret1").signedIn()
        }
    }

    @Test func enumerationProtectionHidesWhichPartWasWrong() async throws {
        let accounts = makeService()
        let project = try await makeProject(protection: true)
        _ = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        await #expect(throws: AuthFailure.invalidLoginCredentials) {
            try await accounts.passwords.signInWithPassword(in: project, email: "a@b.co", password: "wrong!").signedIn()
        }
        await #expect(throws: AuthFailure.invalidLoginCredentials) {
            try await accounts.passwords.signInWithPassword(in: project, email: "nobody@b.co", password: "secret1").signedIn()
        }
    }

    @Test func anonymousUpgradeKeepsLocalID() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let anonymous = try await accounts.passwords.signUp(in: project)
        #expect(anonymous.user.isAnonymous)
        let upgraded = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1",
                                                 idToken: anonymous.tokens.idToken)
        #expect(upgraded.user.localID == anonymous.user.localID)
        #expect(!upgraded.isNewUser)
        let lookedUp = try await accounts.sessions.lookup(in: project, idToken: upgraded.tokens.idToken)
        #expect(lookedUp.email == "a@b.co")
        #expect(!lookedUp.isAnonymous)
    }

    @Test func anonymousSignUpCanBeDisabled() async throws {
        let project = try await makeProject(anonymous: false)
        await #expect(throws: AuthFailure.adminOnlyOperation) { try await makeService().passwords.signUp(in: project) }
    }

    @Test func deleteNeedsARecentSignIn() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let created = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        clock.advance(by: 301)
        // A refreshed ID token keeps the original auth_time, so it does not lift the rule.
        let refreshed = try await accounts.sessions.refresh(in: project, refreshToken: created.tokens.refreshToken)
        await #expect(throws: AuthFailure.credentialTooOldLoginAgain) {
            try await accounts.sessions.deleteAccount(in: project, idToken: refreshed.tokens.idToken)
        }
        let again = try await accounts.passwords.signInWithPassword(in: project, email: "a@b.co", password: "secret1").signedIn()
        try await accounts.sessions.deleteAccount(in: project, idToken: again.tokens.idToken)
        await #expect(throws: AuthFailure.userNotFound) {
            try await accounts.sessions.lookup(in: project, idToken: again.tokens.idToken)
        }
        await #expect(throws: AuthFailure.invalidRefreshToken) {
            try await accounts.sessions.refresh(in: project, refreshToken: again.tokens.refreshToken)
        }
    }

    @Test func refreshCarriesTheSessionForward() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let created = try await accounts.passwords.signUp(in: project)
        clock.advance(by: 1800)
        let refreshed = try await accounts.sessions.refresh(in: project, refreshToken: created.tokens.refreshToken)
        let claims = try accounts.issuer.verify(refreshed.tokens.idToken, projectID: project.id, keys: project.keys,
                                                now: clock.now())
        #expect(claims.firebase?.signInProvider == "anonymous")
        #expect(claims.authTime == 1_700_000_000)
        #expect(claims.iat == 1_700_001_800)
    }

    @Test func refreshFailsForDisabledAndRevokedUsers() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let created = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        var user = created.user
        user.disabled = true
        user = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
        await #expect(throws: AuthFailure.userDisabled) {
            try await accounts.sessions.refresh(in: project, refreshToken: created.tokens.refreshToken)
        }
        user.disabled = false
        clock.advance(by: 10)
        user.validSince = clock.now().epochSeconds
        user = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.refresh(in: project, refreshToken: created.tokens.refreshToken)
        }
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.lookup(in: project, idToken: created.tokens.idToken)
        }
        await #expect(throws: AuthFailure.invalidRefreshToken) {
            try await accounts.sessions.refresh(in: project, refreshToken: "not-a-token")
        }
    }

    @Test func expiredIDTokensAreRefused() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let created = try await accounts.passwords.signUp(in: project)
        clock.advance(by: 3600)
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.lookup(in: project, idToken: created.tokens.idToken)
        }
        await #expect(throws: AuthFailure.invalidIDToken) { try await accounts.sessions.lookup(in: project, idToken: "x.y.z") }
        await #expect(throws: AuthFailure.missingIDToken) { try await accounts.sessions.lookup(in: project, idToken: nil) }
    }
}

/// An unknown email costs the same one hash as a wrong password: no timing oracle for account discovery.
@Suite struct EqualCostSignInTests {
    final class CountingRunner: BlockingWorkRunner, @unchecked Sendable {
        private let lock = NSLock()
        private var runs = 0
        var count: Int { lock.withLock { runs } }

        func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            lock.withLock { runs += 1 }
            return try work()
        }
    }

    @Test func unknownEmailAndWrongPasswordEachCostOneHash() async throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let runner = CountingRunner()
        let accounts = AccountContext(store: store, clock: clock, hashing: runner)
        let project = try await ProjectDirectory(
            store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
            hashParameters: { .generate(memoryCost: 10) }
        ).contextCreatingIfNeeded(for: "demo-one")
        _ = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        let afterSignUp = runner.count
        _ = try? await accounts.passwords.signInWithPassword(in: project, email: "a@b.co", password: "wrong!!").signedIn()
        #expect(runner.count == afterSignUp + 1)
        _ = try? await accounts.passwords.signInWithPassword(in: project, email: "nobody@b.co", password: "wrong!!").signedIn()
        #expect(runner.count == afterSignUp + 2, "an unknown email is hashed against the dummy hash")
    }
}

@Suite struct UpdateAccountTests {
    @Test func aRefreshTokenFromTheSameSecondIsRevokedToo() async throws {
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000.1))
        let accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
        let project = try await ProjectDirectory(
            store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
            hashParameters: { .generate(memoryCost: 10) }
        ).contextCreatingIfNeeded(for: "demo-one")
        let created = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
        clock.advance(by: 0.5)  // same second: validSince alone could not tell the old token apart
        let updated = try await accounts.updates.updateAccount(in: project, idToken: created.tokens.idToken,
                                                       changes: AccountChanges(password: "secret2"))
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.refresh(in: project, refreshToken: created.tokens.refreshToken)
        }
        let newRefresh = try #require(updated.tokens?.refreshToken)
        _ = try await accounts.sessions.refresh(in: project, refreshToken: newRefresh)
    }
}

extension AccountContextTests {
    /// Production: a link an administrator asks for comes back in the answer and no email is queued; emulator mode
    /// queues it too, since its outbox is only the list Firebase's emulator shows.
    @Test(arguments: [false, true])
    func aReturnedLinkIsQueuedOnlyInEmulatorMode(emulator: Bool) async throws {
        var accounts = makeService()
        accounts.emulatorRules = emulator
        let project = try await makeProject()
        _ = try await accounts.passwords.signUp(in: project, email: "link@example.com", password: "secret1")
        var request = ActionCodeRequest(type: .passwordReset, email: "link@example.com")
        request.byAdministrator = true
        request.returnLink = true
        let sent = try #require(try await accounts.actionCodes.sendActionCode(
            in: project, request, links: ActionLinkBase(url: "http://localhost/__/auth/action", apiKey: "k"),
            authorizedDomains: nil))
        #expect(sent.message.link.contains(sent.message.code))
        #expect(try await store.outboxMessages(projectID: project.id).count == (emulator ? 1 : 0))
    }

    /// Second factors given in a request: a number given twice counts once; ids are generated on creation, kept on
    /// update (generated when missing, unless required as in emulator mode) and must differ.
    @Test func secondFactorInputsAsFirebaseReadsThem() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let inputs = [MFAEnrollmentInput(id: "a", phoneNumber: "+15555550100"), MFAEnrollmentInput(id: "b", phoneNumber: "+15555550100"),
                      MFAEnrollmentInput(phoneNumber: "+15555550101")]
        let created = try MFAEnrollmentInput.resolve(inputs, existing: [], now: now, ids: .generated)
        #expect(created.count == 2 && !created.map(\.id).contains("a"))
        let updated = try MFAEnrollmentInput.resolve(inputs, existing: [], now: now)
        #expect(updated.count == 2 && updated[0].id == "a" && !updated[1].id.isEmpty)
        #expect(throws: AuthFailure.invalidMFAEnrollmentID) {
            try MFAEnrollmentInput.resolve(inputs, existing: [], now: now, ids: .given(required: true))
        }
        #expect(throws: AuthFailure.duplicateMFAEnrollmentID) {
            try MFAEnrollmentInput.resolve([MFAEnrollmentInput(id: "a", phoneNumber: "+15555550100"),
                                            MFAEnrollmentInput(id: "a", phoneNumber: "+15555550101")], existing: [], now: now)
        }
        let phone = MFAEnrollment(id: "p", displayName: nil, phoneNumber: "+15555550100", enrolledAt: now)
        #expect(throws: AuthFailure.invalidMFAPhoneNumber, "a phone factor named without its number") {
            try MFAEnrollmentInput.resolve([MFAEnrollmentInput(id: "p")], existing: [phone], now: now)
        }
    }
}

extension AccountContextTests {
    /// Firebase's emulator's plain-text `fakeHash` is taken in emulator mode only; production refuses that user.
    @Test(arguments: [false, true])
    func emulatorFakeHashesImportInEmulatorModeOnly(emulator: Bool) async throws {
        var accounts = makeService()
        accounts.emulatorRules = emulator
        let project = try await makeProject()
        var user = ImportUser(localID: "fake", email: "fake@example.com")
        user.emulatorFakeHash = "fakeHash:salt=beach:password=hawaii"
        let rejected = try await accounts.importer.importUsers(in: project, [user], hashing: nil)
        #expect(rejected.isEmpty == emulator, "\(rejected)")
        if emulator {
            let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "fake@example.com", password: "hawaii").signedIn()
            #expect(signedIn.user.passwordHash?.hasPrefix("$fbscrypt$") == true, "the first sign-in replaces it")
        }
    }
}

extension AccountContextTests {
    /// A re-run import counts users already stored with the same data as unchanged, refuses one that changed since,
    /// and a dry run checks the same things without writing.
    @Test func importsCanBeRunAgainAndTriedDry() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        var first = ImportUser(localID: "i1", email: "i1@example.com")
        first.displayName = "One"
        first.createdAt = Date(timeIntervalSince1970: 1_600_000_000)
        let second = ImportUser(localID: "i2", email: "i2@example.com")
        let dry = try await accounts.importer.importBatch(in: project, [first, second], hashing: nil, skipUnchanged: true, dryRun: true)
        #expect(dry.rejections.isEmpty && dry.unchanged.isEmpty)
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i1") == nil, "a dry run writes nothing")

        let done = try await accounts.importer.importBatch(in: project, [first], hashing: nil, skipUnchanged: true)
        #expect(done.rejections.isEmpty && done.unchanged.isEmpty)
        let again = try await accounts.importer.importBatch(in: project, [first, second], hashing: nil, skipUnchanged: true)
        #expect(again.unchanged == [0] && again.rejections.isEmpty, "\(again)")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i2") != nil)

        first.displayName = "Changed"
        let changed = try await accounts.importer.importBatch(in: project, [first], hashing: nil, skipUnchanged: true)
        #expect(changed.unchanged.isEmpty && changed.rejections.map(\.index) == [0], "a changed user is not overwritten")
        let tried = try await accounts.importer.importBatch(in: project, [first, ImportUser(localID: "i3", email: "i2@example.com")],
                                                   hashing: nil, skipUnchanged: true, dryRun: true)
        #expect(tried.rejections.map(\.message) == ["localId belongs to an existing account - can not overwrite.",
                                                   "email exists in other account in database"], "\(tried)")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i1")?.displayName == "One")
    }
}

extension UpdateAccountTests {
    /// A token is never dated before the account's `validSince`, even when that moved past the instant the request
    /// read the clock (a second boundary crossed mid-request): it would be born expired. Seen once as a flaky
    /// `TOKEN_EXPIRED` in Firebase's emulator suite.
    @Test func aNewTokenIsNeverBornExpired() async throws {
        for emulator in [false, true] {
            let store = InMemoryStore()
            let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000.9))
            var accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
            accounts.emulatorRules = emulator
            let project = try await ProjectDirectory(
                store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                hashParameters: { .generate(memoryCost: 10) }
            ).contextCreatingIfNeeded(for: "demo-one")
            let created = try await accounts.passwords.signUp(in: project, email: "a@b.co", password: "secret1")
            var user = try #require(try await store.user(projectID: project.id, tenantID: nil, localID: created.user.localID))
            user.validSince = 1_700_000_001  // the next second, as a write after this request's clock read would set it
            _ = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
            let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "a@b.co", password: "secret1").signedIn()
            let found = try await accounts.sessions.lookup(in: project, idToken: signedIn.tokens.idToken)
            #expect(found.localID == created.user.localID, "emulator rules: \(emulator)")
        }
    }
}
