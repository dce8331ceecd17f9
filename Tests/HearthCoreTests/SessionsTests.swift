import Foundation
import HearthCore
import Testing

/// Sessions (`Sessions`): refresh, revocation, token age and self-deletion.
@Suite struct SessionsTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

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
