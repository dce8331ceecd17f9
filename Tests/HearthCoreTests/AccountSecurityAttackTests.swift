import Foundation
import HearthCore
import Testing

/// Each test performs one attack of the account-security review and checks it fails. Races are staged with a gate
/// inside password hashing: the sign-in is held exactly where it used to lose the concurrent change.
@Suite struct AccountSecurityAttackTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000.25))
    let store = InMemoryStore()
    let gate = GatedRunner()

    func service() -> AccountContext { AccountContext(store: store, clock: clock, hashing: gate) }

    func project(mfa: Bool = false, protected: Bool = false) async throws -> ProjectContext {
        let directory = ProjectDirectory(
            store: store, clock: clock,
            defaults: { _ in
                var settings = ProjectSettings(enableImprovedEmailPrivacy: protected)
                if mfa { settings.mfa = MFASettings(state: .enabled, providers: [.totp]) }
                return settings
            },
            hashParameters: { .generate(memoryCost: 10) })
        return try await directory.contextCreatingIfNeeded(for: protected ? "attack-protected" : "attack")
    }

    static let links = ActionLinkBase(url: "https://auth.example.com/__/auth/action", apiKey: "k")

    // MARK: 1. Lost updates

    @Test func aSignInWithTheOldPasswordOverlappingAPasswordChangeDoesNotRevertIt() async throws {
        let accounts = service()
        let project = try await project()
        let victim = try await accounts.passwords.signUp(in: project, email: "v@example.com", password: "old-pass")
        gate.arm()
        let thief = Task { try await accounts.passwords.signInWithPassword(in: project, email: "v@example.com", password: "old-pass").signedIn() }
        await gate.reached.wait()  // the thief's password is verified; its write is next
        clock.advance(by: 1)
        let changed = try await accounts.updates.updateAccount(in: project, idToken: victim.tokens.idToken,
                                                       changes: AccountChanges(password: "new-pass"))
        await gate.release.open()
        await #expect(throws: AuthFailure.invalidPassword) { try await thief.value }
        await #expect(throws: AuthFailure.invalidPassword) {
            try await accounts.passwords.signInWithPassword(in: project, email: "v@example.com", password: "old-pass").signedIn()
        }
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.refresh(in: project, refreshToken: victim.tokens.refreshToken)
        }
        _ = try await accounts.sessions.refresh(in: project, refreshToken: changed.tokens!.refreshToken)
        _ = try await accounts.passwords.signInWithPassword(in: project, email: "v@example.com", password: "new-pass").signedIn()
    }

    @Test func aSignInOverlappingAnAdminDisableDoesNotReEnableTheAccount() async throws {
        let accounts = service()
        let project = try await project()
        let user = try await accounts.passwords.signUp(in: project, email: "d@example.com", password: "secret1")
        gate.arm()
        let signIn = Task { try await accounts.passwords.signInWithPassword(in: project, email: "d@example.com", password: "secret1").signedIn() }
        await gate.reached.wait()
        var changes = AdminChanges()
        changes.disabled = true
        changes.validSince = clock.now().epochSeconds
        _ = try await accounts.administration.adminUpdate(in: project, localID: user.user.localID, changes: changes)
        await gate.release.open()
        await #expect(throws: AuthFailure.userDisabled) { try await signIn.value }
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, localID: user.user.localID))
        #expect(stored.disabled && stored.validSince == changes.validSince)
    }

    // MARK: 3, 4, 5, 8: codes, linking, recent sign-in, same-second revocation

    @Test func aResetCodeSentBeforeAnEmailChangeCannotVerifyTheNewAddress() async throws {
        let accounts = service()
        let project = try await project()
        let user = try await accounts.passwords.signUp(in: project, email: "mine@example.com", password: "secret1")
        let reset = try #require(try await accounts.actionCodes.sendActionCode(
            in: project, ActionCodeRequest(type: .passwordReset, email: "mine@example.com"), links: Self.links,
            authorizedDomains: ["example.com"]))
        _ = try await accounts.updates.updateAccount(in: project, idToken: user.tokens.idToken,
                                             changes: AccountChanges(email: "someone-else@example.com"))
        await #expect(throws: AuthFailure.invalidOobCode) {
            try await accounts.actionCodes.resetPassword(in: project, code: reset.message.code, newPassword: "taken-over")
        }
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, localID: user.user.localID))
        #expect(!stored.emailVerified, "the new, unproven address stays unverified")
    }

    @Test func aThiefChangingTheEmailTwiceCannotStrandTheOwnersRecoveryLink() async throws {
        let accounts = service()
        let project = try await project()
        let owner = try await accounts.passwords.signUp(in: project, email: "owner@example.com", password: "secret1")
        var verified = AdminChanges()
        verified.emailVerified = true
        _ = try await accounts.administration.adminUpdate(in: project, localID: owner.user.localID, changes: verified)
        let first = try await accounts.updates.updateAccount(in: project, idToken: owner.tokens.idToken,
                                                     changes: AccountChanges(email: "thief1@example.com"), links: Self.links)
        let recovery = try #require(first.recoveryNotice, "the verified owner@ is told")
        _ = try await accounts.updates.updateAccount(in: project, idToken: first.tokens!.idToken,
                                             changes: AccountChanges(email: "thief2@example.com"), links: Self.links)
        let restored = try await accounts.actionCodes.applyActionCode(in: project, code: recovery.code)
        #expect(restored.user.email == "owner@example.com" && restored.user.emailVerified)
    }

    @Test func aStolenIDTokenCannotReplaceThePasswordThroughSignUp() async throws {
        let accounts = service()
        let project = try await project()
        let victim = try await accounts.passwords.signUp(in: project, email: "s@example.com", password: "secret1")
        await #expect(throws: AuthFailure.providerAlreadyLinked) {
            try await accounts.passwords.signUp(in: project, email: "thief@example.com", password: "thief-pass",
                                      idToken: victim.tokens.idToken)
        }
        let anonymous = try await accounts.passwords.signUp(in: project)
        clock.advance(by: 400)  // the token is older than the recent-login window now
        let aged = try await accounts.sessions.refresh(in: project, refreshToken: anonymous.tokens.refreshToken)
        await #expect(throws: AuthFailure.credentialTooOldLoginAgain) {
            try await accounts.passwords.signUp(in: project, email: "new@example.com", password: "secret1", idToken: aged.tokens.idToken)
        }
        await #expect(throws: AuthFailure.credentialTooOldLoginAgain) {
            try await accounts.passwords.signUp(in: project, idToken: aged.tokens.idToken)  // no session re-issued either
        }
    }

    @Test func anAgedTokenCanChangeNoCredentialAnywhere() async throws {
        let accounts = service()
        let project = try await project(mfa: true)
        let user = try await accounts.passwords.signUp(in: project, email: "aged@example.com", password: "secret1")
        var verified = AdminChanges()
        verified.emailVerified = true
        _ = try await accounts.administration.adminUpdate(in: project, localID: user.user.localID, changes: verified)
        clock.advance(by: 400)
        let token = try await accounts.sessions.refresh(in: project, refreshToken: user.tokens.refreshToken).tokens.idToken
        let attempts: [(SensitiveChange, @Sendable () async throws -> Void)] = [
            (.deleteAccount, { try await accounts.sessions.deleteAccount(in: project, idToken: token) }),
            (.changeEmail, { _ = try await accounts.updates.updateAccount(in: project, idToken: token, changes: AccountChanges(email: "x@example.com")) }),
            (.changeEmail, { _ = try await accounts.actionCodes.sendActionCode(in: project, ActionCodeRequest(type: .verifyAndChangeEmail, idToken: token, newEmail: "x@example.com"), links: Self.links, authorizedDomains: []) }),
            (.changePassword, { _ = try await accounts.updates.updateAccount(in: project, idToken: token, changes: AccountChanges(password: "another1")) }),
            (.linkCredential, { _ = try await accounts.passwords.signUp(in: project, email: "x@example.com", password: "secret1", idToken: token) }),
            (.linkCredential, { _ = try await accounts.federated.signInWithIdp(in: project, FederatedAssertion(providerID: "google.com", rawID: "g-1"), idToken: token, returnIdpCredential: false) }),
            (.unlinkProvider, { _ = try await accounts.federated.unlink(in: project, idToken: token, providers: ["password"]) }),
            (.linkCredential, { _ = try await accounts.passkeys.finalizeEnrollment(in: project, idToken: token,
                                                                                  response: PasskeyResponse(credentialID: "cred-1"),
                                                                                  name: nil, displayName: nil) }),
            (.unlinkProvider, { _ = try await accounts.passkeys.delete(in: project, idToken: token, credentialIDs: ["cred-1"]) }),
            (.enrollSecondFactor, { _ = try await accounts.secondFactors.startTOTPEnrollment(in: project, idToken: token) }),
            (.enrollSecondFactor, { _ = try await accounts.secondFactors.finalizeEnrollment(in: project, idToken: token, displayName: nil, phone: nil, totp: (sessionInfo: "x", code: "123456")) }),
        ]
        for (change, attempt) in attempts {
            await #expect(throws: AuthFailure.credentialTooOldLoginAgain, "\(change)") { try await attempt() }
        }
        #expect(Set(attempts.map(\.0)).union([.withdrawSecondFactor]) == Set(SensitiveChange.allCases),
                "every listed change is tried (withdraw: see the MFA test)")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: user.user.localID)?.passwordHash
                == user.user.passwordHash)
    }

    @Test func anIDTokenFromTheSecondOfARevocationIsRefused() async throws {
        let accounts = service()
        let project = try await project()
        let user = try await accounts.passwords.signUp(in: project, email: "r@example.com", password: "secret1")
        let sameSecond = try await accounts.sessions.refresh(in: project, refreshToken: user.tokens.refreshToken).tokens.idToken
        clock.advance(by: 0.5)  // the password changes later in the same second
        let changed = try await accounts.updates.updateAccount(in: project, idToken: user.tokens.idToken,
                                                       changes: AccountChanges(password: "new-pass"))
        await #expect(throws: AuthFailure.tokenExpired) { try await accounts.sessions.lookup(in: project, idToken: sameSecond) }
        _ = try await accounts.sessions.lookup(in: project, idToken: changed.tokens!.idToken)  // the change's own tokens work
        #expect(clock.now().epochSeconds == 1_700_000_001, "they are dated the next second")
    }

    /// A password change is dated when it is made and stored a moment later; a sign-in with the old password on
    /// another instance lands in between, across a second boundary (its tokens dated after the change's instant).
    /// Once the change is stored, neither that sign-in's ID token nor its refresh token works.
    @Test func aSignInBetweenAChangesInstantAndItsWriteKeepsNoSession() async throws {
        let accounts = service()
        let project = try await project()
        _ = try await accounts.passwords.signUp(in: project, email: "w@example.com", password: "old-pass")
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, email: "w@example.com"))
        let newHash = try PasswordHash.firebaseScrypt(password: "new-pass", parameters: project.record.hashConfig)
        let changedAt = clock.now()  // ….25: the change takes its instant, then its write waits on the database
        clock.advance(by: 1)         // the next second
        let racing = try await accounts.passwords.signInWithPassword(in: project, email: "w@example.com", password: "old-pass").signedIn()
        _ = try await accounts.modifyUser(stored, in: project, revokeRefreshTokens: true) { user in
            user.passwordHash = newHash
            user.passwordUpdatedAt = changedAt
            user.validSince = changedAt.epochSeconds
            user.tokensValidAfter = changedAt
        }
        await #expect(throws: AuthFailure.tokenExpired) { try await accounts.sessions.lookup(in: project, idToken: racing.tokens.idToken) }
        await #expect(throws: (any Error).self) { try await accounts.sessions.refresh(in: project, refreshToken: racing.tokens.refreshToken) }
        _ = try await accounts.passwords.signInWithPassword(in: project, email: "w@example.com", password: "new-pass").signedIn()
    }

    // MARK: 6. Pre-registered accounts

    /// What a password guess learns: an account with the email but no password is a wrong password (Firebase's
    /// answer; `createAuthUri` already says the email is registered), and a disabled account says so only to the
    /// one who knows its password.
    @Test func aPasswordGuessLearnsNoMoreThanFirebaseTellsIt() async throws {
        let accounts = service()
        let (plain, protected) = (try await project(), try await project(protected: true))
        /// An account made with a password, then changed as an IdP takeover or an administrator would.
        func account(_ email: String, in project: ProjectContext, _ change: (inout UserRecord) -> Void) async throws {
            var user = try await accounts.passwords.signUp(in: project, email: email, password: "secret-1").user
            change(&user)
            _ = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
        }
        func signIn(_ email: String, _ password: String, in project: ProjectContext) async throws {
            _ = try await accounts.passwords.signInWithPassword(in: project, email: email, password: password).signedIn()
        }
        for project in [plain, protected] { try await account("idp@example.com", in: project) { $0.passwordHash = nil } }
        try await account("off@example.com", in: plain) { $0.disabled = true }

        await #expect(throws: AuthFailure.invalidPassword) { try await signIn("idp@example.com", "secret-1", in: plain) }
        await #expect(throws: AuthFailure.invalidLoginCredentials) { try await signIn("idp@example.com", "secret-1", in: protected) }
        await #expect(throws: AuthFailure.emailNotFound) { try await signIn("nobody@example.com", "secret-1", in: plain) }
        await #expect(throws: AuthFailure.invalidPassword) { try await signIn("off@example.com", "wrong-1", in: plain) }
        await #expect(throws: AuthFailure.userDisabled) { try await signIn("off@example.com", "secret-1", in: plain) }
    }

    @Test func aPreRegisteredAccountLosesItsPasswordWhenTheOwnerSignsInByLink() async throws {
        let accounts = service()
        let project = try await project()
        let squatter = try await accounts.passwords.signUp(in: project, email: "owner@example.com", password: "squatter1")
        let link = try #require(try await accounts.actionCodes.sendActionCode(
            in: project, ActionCodeRequest(type: .emailSignIn, email: "owner@example.com"), links: Self.links,
            authorizedDomains: []))
        let owner = try await accounts.actionCodes.signInWithEmailLink(in: project, email: "owner@example.com", code: link.message.code).signedIn()
        #expect(owner.user.localID == squatter.user.localID && owner.user.emailVerified)
        await #expect(throws: AuthFailure.invalidPassword, "the squatter's password is gone") {
            try await accounts.passwords.signInWithPassword(in: project, email: "owner@example.com", password: "squatter1").signedIn()
        }
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.refresh(in: project, refreshToken: squatter.tokens.refreshToken)
        }
    }

    @Test func anUntrustedProviderCannotClaimAnExistingAccountByEmail() async throws {
        let accounts = service()
        let project = try await project()
        let victim = try await accounts.passwords.signUp(in: project, email: "victim@example.com", password: "secret1")
        let claim = FederatedAssertion(providerID: "oidc.attacker", rawID: "a-1", email: "victim@example.com",
                                       emailVerified: true)
        let outcome = try await accounts.federated.signInWithIdp(in: project, claim, idToken: nil, returnIdpCredential: false)
        guard case .needConfirmation = outcome else { Issue.record("signed in: \(outcome)"); return }
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, localID: victim.user.localID))
        #expect(stored.providers.isEmpty && stored.passwordHash != nil)
        let gmail = FederatedAssertion(providerID: "google.com", rawID: "g-9", email: "someone@gmail.com", emailVerified: true)
        #expect(gmail.isTrustedForEmail && !claim.isTrustedForEmail)
    }

    // MARK: 7. Second factors

    @Test func guessingTOTPCodesAcrossFreshPendingCredentialsLocksTheFactor() async throws {
        var accounts = service()
        let events = EventLog()
        accounts.audit = events
        let project = try await project(mfa: true)
        let (user, secret) = try await enrolledTOTPUser(accounts, project)
        var refusals: [AuthFailure] = []
        for _ in 0..<MFAEnrollment.maximumFailures {  // a new pending credential for every guess
            let pending = try await pendingCredential(accounts, project)
            do {
                _ = try await accounts.secondFactors.finalizeSecondFactor(in: project, pendingCredential: pending,
                                                            proof: .totp(enrollmentID: user.enrollments[0].id, code: "000000"))
            } catch let failure as AuthFailure { refusals.append(failure) }
        }
        #expect(refusals.last == .tooManyAttempts, "\(refusals)")
        let locks = events.all.filter { $0.kind == .secondFactorLocked }
        #expect(locks.count == 1 && locks.first?.localID == user.localID && locks.first?.isFailure == true,
                "the lock is audit-logged once")
        let pending = try await pendingCredential(accounts, project)
        let right = TOTP.code(secret: secret, at: clock.now())
        await #expect(throws: AuthFailure.tooManyAttempts, "even the right code, while locked") {
            try await accounts.secondFactors.finalizeSecondFactor(in: project, pendingCredential: pending,
                                                    proof: .totp(enrollmentID: user.enrollments[0].id, code: right))
        }
    }

    @Test func oneTOTPCodeOpensOneSessionEvenUnderConcurrency() async throws {
        let accounts = service()
        let project = try await project(mfa: true)
        let (user, secret) = try await enrolledTOTPUser(accounts, project)
        clock.advance(by: 60)
        var pendings: [String] = []
        for _ in 0..<4 { pendings.append(try await pendingCredential(accounts, project)) }
        let code = TOTP.code(secret: secret, at: clock.now())
        let id = user.enrollments[0].id
        let wins = await withTaskGroup(of: Bool.self) { group in
            for pending in pendings {
                group.addTask {
                    (try? await accounts.secondFactors.finalizeSecondFactor(in: project, pendingCredential: pending,
                                                              proof: .totp(enrollmentID: id, code: code))) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test func enrollingAFactorEndsTheSessionsThatPredateIt() async throws {
        let accounts = service()
        let project = try await project(mfa: true)
        let created = try await accounts.passwords.signUp(in: project, email: "mfa@example.com", password: "secret1")
        let thief = try await accounts.passwords.signInWithPassword(in: project, email: "mfa@example.com", password: "secret1").signedIn()
        clock.advance(by: 5)
        _ = try await enrolledTOTPUser(accounts, project, signedUp: created)
        await #expect(throws: AuthFailure.tokenExpired) {
            try await accounts.sessions.refresh(in: project, refreshToken: thief.tokens.refreshToken)
        }
        await #expect(throws: AuthFailure.tokenExpired) { try await accounts.sessions.lookup(in: project, idToken: thief.tokens.idToken) }
    }

    @Test func withdrawingAFactorNeedsARecentSessionThatPassedIt() async throws {
        let accounts = service()
        let project = try await project(mfa: true)
        let (user, secret) = try await enrolledTOTPUser(accounts, project)
        clock.advance(by: 60)
        let pending = try await pendingCredential(accounts, project)
        let passed = try await accounts.secondFactors.finalizeSecondFactor(
            in: project, pendingCredential: pending,
            proof: .totp(enrollmentID: user.enrollments[0].id, code: TOTP.code(secret: secret, at: clock.now())))
        clock.advance(by: 400)
        let aged = try await accounts.sessions.refresh(in: project, refreshToken: passed.tokens.refreshToken)
        await #expect(throws: AuthFailure.credentialTooOldLoginAgain, "an aged second-factor session") {
            try await accounts.secondFactors.withdrawEnrollment(in: project, idToken: aged.tokens.idToken,
                                                  enrollmentID: user.enrollments[0].id)
        }
        // A password alone (say, phished) must not remove the factor: a token without the second factor.
        let passwordOnly = try accounts.issuer.mint(
            for: user, session: SignInSession(signInProvider: "password", authTime: clock.now()), projectID: project.id,
            keys: project.keys, now: clock.now())
        await #expect(throws: AuthFailure.credentialTooOldLoginAgain) {
            try await accounts.secondFactors.withdrawEnrollment(in: project, idToken: passwordOnly,
                                                  enrollmentID: user.enrollments[0].id)
        }
    }

    // MARK: 9. Input

    @Test func anAddressWithAControlCharacterIsNotAnAddress() async throws {
        let accounts = service()
        let project = try await project()
        for email in ["\u{0}victim@example.com", "victim@example.com\u{0}", "vic\u{7}tim@example.com", "a\u{85}@example.com"] {
            await #expect(throws: AuthFailure.invalidEmail) {
                try await accounts.passwords.signUp(in: project, email: email, password: "secret1")
            }
        }
        let huge = String(repeating: "n", count: 900_000)
        await #expect(throws: AuthFailure.invalidArgument("DISPLAY_NAME must be at most 256 characters, without control characters")) {
            try await accounts.passwords.signUp(in: project, email: "big@example.com", password: "secret1", displayName: huge)
        }
        let user = try await accounts.passwords.signUp(in: project, email: "p@example.com", password: "secret1")
        await #expect(throws: AuthFailure.self) {
            try await accounts.updates.updateAccount(in: project, idToken: user.tokens.idToken,
                                             changes: AccountChanges(photoURL: "https://x/" + huge))
        }
    }

    // MARK: Helpers

    func enrolledTOTPUser(_ accounts: AccountContext, _ project: ProjectContext,
                          signedUp: AccountContext.SignInResult? = nil) async throws -> (UserRecord, Data) {
        let created = if let signedUp { signedUp } else {
            try await accounts.passwords.signUp(in: project, email: "mfa@example.com", password: "secret1")
        }
        var verified = AdminChanges()
        verified.emailVerified = true
        _ = try await accounts.administration.adminUpdate(in: project, localID: created.user.localID, changes: verified)
        let start = try await accounts.secondFactors.startTOTPEnrollment(in: project, idToken: created.tokens.idToken)
        let secret = try #require(Base32.decode(start.sharedSecretKey))
        let done = try await accounts.secondFactors.finalizeEnrollment(
            in: project, idToken: created.tokens.idToken, displayName: nil, phone: nil,
            totp: (sessionInfo: start.sessionInfo, code: TOTP.code(secret: secret, at: clock.now())))
        return (done.user, secret)
    }

    func pendingCredential(_ accounts: AccountContext, _ project: ProjectContext) async throws -> String {
        do {
            _ = try await accounts.passwords.signInWithPassword(in: project, email: "mfa@example.com", password: "secret1").signedIn()
        } catch let required as SecondFactorRequired {
            return required.pendingCredential
        }
        throw AuthFailure.invalidArgument("expected a second factor to be required")
    }
}

/// Hashes inline; once armed, the next hash then stops at a gate: `reached` opens, and the work returns only after
/// `release` is opened. That is the window in which the concurrent change of each race lands.
final class GatedRunner: BlockingWorkRunner, @unchecked Sendable {
    let reached = Latch()
    let release = Latch()
    private let lock = NSLock()
    private var armed = false

    func arm() { lock.withLock { armed = true } }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let result = try work()
        if lock.withLock({ defer { armed = false }; return armed }) {
            await reached.open()
            await release.wait()
        }
        return result
    }
}

/// Security events received, in order.
final class EventLog: AuditTrail, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SecurityEvent] = []
    func append(_ event: SecurityEvent) { lock.withLock { events.append(event) } }
    func record(_ event: SecurityEvent) async { append(event) }
    func row(for event: SecurityEvent) -> AuditEvent? {
        AuditEvent(projectID: event.projectID, at: Date(), kind: event.kind.rawValue, localID: event.localID,
                   outcome: event.isFailure ? .failure : .success, clientAddress: nil, details: event.details)
    }
    func committed(_ row: AuditEvent) {
        if let kind = SecurityEvent.Kind(rawValue: row.kind) {
            append(SecurityEvent(kind: kind, projectID: row.projectID, localID: row.localID, details: row.details))
        }
    }
    var all: [SecurityEvent] { lock.withLock { events } }
}

/// Opens once; everyone waiting, or coming later, goes through.
actor Latch {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        waiting.forEach { $0.resume() }
        waiting.removeAll()
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}
