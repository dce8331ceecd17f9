import Foundation
import HearthCore
import Testing

/// Custom-token sign-in (`CustomTokens`): the token's `uid` signs in (made on first use), its claims ride in the
/// session and survive a refresh, and production takes only signed tokens.
@Suite struct CustomTokensTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    /// The payload of a JWT, as a verifier would read it after checking the signature.
    func payload(_ token: String) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theUidSignsInOnceMadeAndItsClaimsRideInTheSession() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let token = #"{"uid": "u-1", "claims": {"role": "editor"}}"#
        let first = try await accounts.customTokens.signInWithCustomToken(in: project, token: token, allowUnsigned: true).signedIn()
        #expect(first.isNewUser && first.user.localID == "u-1")
        #expect(try payload(first.tokens.idToken)["role"] as? String == "editor")
        #expect(try payload(first.tokens.idToken)["firebase"].flatMap { ($0 as? [String: Any])?["sign_in_provider"] as? String } == "custom")

        let again = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid": "u-1"}"#,
                                                                          allowUnsigned: true).signedIn()
        #expect(!again.isNewUser && again.user.localID == "u-1", "the same account, not a second one")
        #expect(try payload(again.tokens.idToken)["role"] == nil, "claims belong to the session that carried them")

        let refreshed = try await accounts.sessions.refresh(in: project, refreshToken: first.tokens.refreshToken)
        #expect(try payload(refreshed.tokens.idToken)["role"] as? String == "editor", "a refresh keeps the session's claims")
    }

    @Test func productionTakesOnlySignedTokens() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        await #expect(throws: AuthFailure.self) {
            _ = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid": "u-1"}"#, allowUnsigned: false)
        }
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "u-1") == nil, "nothing made")
    }

    @Test func aDisabledAccountOrAnotherTenantsTokenIsRefused() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let made = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid": "u-2"}"#,
                                                                         allowUnsigned: true).signedIn()
        var disabled = made.user
        disabled.disabled = true
        _ = try await store.updateUser(disabled, uniqueEmail: true, revokeRefreshTokens: false)
        await #expect(throws: AuthFailure.userDisabled) {
            _ = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid": "u-2"}"#, allowUnsigned: true)
        }
        await #expect(throws: AuthFailure.tenantIDMismatch) {
            _ = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid": "u-3", "tenant_id": "t-other"}"#,
                                                                      allowUnsigned: true)
        }
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "u-3") == nil)
    }
}
