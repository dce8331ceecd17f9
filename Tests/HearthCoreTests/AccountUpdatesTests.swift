import Foundation
import HearthCore
import Testing

/// Account updates (`AccountUpdates`): what a change revokes, and tokens minted across a second boundary.
@Suite struct AccountUpdatesTests {
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
