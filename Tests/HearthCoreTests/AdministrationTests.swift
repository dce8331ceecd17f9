import Foundation
import HearthCore
import Testing

/// What an administrator does to accounts (`Administration`): creates without a sign-in, deletes in batches only
/// what may go, and turns an ID token into a session cookie within Firebase's bounds.
@Suite struct AdministrationTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    @Test func anAdministratorsAccountSignsInAndItsEmailStaysUnique() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let made = try await accounts.administration.adminCreate(in: project, AdminNewUser(email: "Ada@Example.com", password: "secret1"))
        #expect(made.email == "ada@example.com" && made.lastLoginAt == nil, "made without a sign-in")
        let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "ada@example.com", password: "secret1").signedIn()
        #expect(signedIn.user.localID == made.localID)
        await #expect(throws: AuthFailure.emailExists) {
            _ = try await accounts.administration.adminCreate(in: project, AdminNewUser(email: "ada@example.com", password: "secret2"))
        }
    }

    @Test func aBatchDeleteWithoutForceTakesOnlyDisabledAccounts() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        _ = try await accounts.administration.adminCreate(in: project, AdminNewUser(localID: "enabled"))
        var disabled = AdminNewUser(localID: "disabled")
        disabled.disabled = true
        _ = try await accounts.administration.adminCreate(in: project, disabled)
        let refused = try await accounts.administration.batchDelete(in: project, localIDs: ["enabled", "disabled", "nobody"], force: false)
        #expect(refused.map(\.index) == [0] && refused.map(\.localID) == ["enabled"], "unknown ids are skipped, as Firebase does")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "disabled") == nil)
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "enabled") != nil)
        #expect(try await accounts.administration.batchDelete(in: project, localIDs: ["enabled"], force: true).isEmpty)
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "enabled") == nil)
    }

    @Test func aSessionCookieHasTheSessionIssuerAndFirebasesBounds() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let signedUp = try await accounts.passwords.signUp(in: project, email: "c@example.com", password: "secret1")
        await #expect(throws: AuthFailure.invalidDuration, "under five minutes") {
            _ = try await accounts.administration.createSessionCookie(in: project, idToken: signedUp.tokens.idToken, validDuration: 60)
        }
        await #expect(throws: AuthFailure.missingIDToken) {
            _ = try await accounts.administration.createSessionCookie(in: project, idToken: nil, validDuration: 300)
        }
        let cookie = try await accounts.administration.createSessionCookie(in: project, idToken: signedUp.tokens.idToken,
                                                                           validDuration: nil)
        let data = try #require(Base64URL.decode(String(cookie.split(separator: ".")[1])))
        let claims = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(claims["iss"] as? String == SessionCookie.issuerPrefix + project.id)
        let lifetime = try #require(claims["exp"] as? Int64) - (try #require(claims["iat"] as? Int64))
        #expect(lifetime == SessionCookie.allowedDuration.upperBound, "no duration: two weeks, as Firebase's emulator")
        #expect(claims["sub"] as? String == signedUp.user.localID)
    }
}
