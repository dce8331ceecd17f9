import Foundation
import HearthCore
import Testing

/// Sign-up and password sign-in (`PasswordAccounts`): validation, enumeration protection, anonymous accounts.
@Suite struct PasswordAccountsTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

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


    /// The lazy migration's time bound, on a clock moved by hand: before `expiresAt` a user whose password is only at
    /// the source is checked there once; after it, the source is not asked at all. (AuthMigrateTests runs the whole
    /// flow against a real source project.)
    @Test func aLazyMigrationAsksTheSourceOnlyUntilItsDate() async throws {
        final class Source: PasswordSource, @unchecked Sendable {
            private let lock = NSLock()
            private var asked: [String] = []
            var calls: [String] { lock.withLock { asked } }
            func check(email: String, password: String, sourceTenantID: String?, migration: LazyPasswordMigration) async throws -> String? {
                lock.withLock { asked.append(email) }
                return password == "right-password" ? email.components(separatedBy: "@")[0] : nil
            }
        }
        let source = Source()
        var accounts = makeService()
        accounts.passwordSource = source
        var project = try await makeProject()
        var record = project.record
        record.settings.lazyPasswordMigration = LazyPasswordMigration(sourceURL: "https://identitytoolkit.googleapis.com",
                                                                      apiKey: "k", expiresAt: clock.now() + 3600)
        try await store.updateProject(record)
        project = try await makeProject()  // read again, with the switch
        for name in ["early", "late"] {
            var user = UserRecord(projectID: project.id, tenantID: nil, localID: name, email: "\(name)@example.com",
                                  validSince: 0, createdAt: clock.now())
            user.passwordAtSource = true
            try await store.insertUser(user, uniqueEmail: true)
        }
        let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "early@example.com",
                                                                       password: "right-password").signedIn()
        #expect(signedIn.user.passwordHash != nil && signedIn.user.passwordAtSource == nil)
        _ = try await accounts.passwords.signInWithPassword(in: project, email: "early@example.com", password: "right-password").signedIn()
        #expect(source.calls == ["early@example.com"], "asked once, then the stored hash answers")
        clock.advance(by: 3600)
        await #expect(throws: AuthFailure.invalidPassword) {
            try await accounts.passwords.signInWithPassword(in: project, email: "late@example.com", password: "right-password")
        }
        #expect(source.calls == ["early@example.com"], "past its date the source is not asked")
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
