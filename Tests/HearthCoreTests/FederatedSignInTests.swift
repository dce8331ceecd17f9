import Foundation
import HearthCore
import Testing

/// Sign-in with an identity provider (`FederatedSignIn`): an identity makes one account and signs in to it after,
/// an unverified email never claims an account, and an identity links to one account only.
@Suite struct FederatedSignInTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    func signIn(_ accounts: AccountContext, _ project: ProjectContext, _ assertion: FederatedAssertion,
                idToken: String? = nil) async throws -> FederatedOutcome {
        try await accounts.federated.signInWithIdp(in: project, assertion, idToken: idToken, returnIdpCredential: false)
    }

    func signedIn(_ outcome: FederatedOutcome) throws -> AccountContext.SignInResult {
        guard case .signedIn(let result) = outcome else { throw AuthFailure.invalidIDPResponse("expected a sign-in: \(outcome)") }
        return result
    }

    @Test func anIdentityMakesOneAccountAndSignsInToItAfter() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let github = FederatedAssertion(providerID: "github.com", rawID: "gh-1", email: "octo@example.com", displayName: "Octo")
        let first = try signedIn(try await signIn(accounts, project, github))
        #expect(first.isNewUser && first.user.email == "octo@example.com")
        #expect(first.user.providers.map(\.providerID) == ["github.com"])
        let again = try signedIn(try await signIn(accounts, project, github))
        #expect(!again.isNewUser && again.user.localID == first.user.localID)
    }

    @Test func anUnverifiedEmailAsksTheOwnerToSignInFirst() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let owner = try await accounts.passwords.signUp(in: project, email: "ada@example.com", password: "secret1")
        let outcome = try await signIn(accounts, project, FederatedAssertion(providerID: "github.com", rawID: "gh-2",
                                                                            email: "ada@example.com", emailVerified: false))
        guard case .needConfirmation(let existing) = outcome else {
            Issue.record("an unverified email claims no account: \(outcome)")
            return
        }
        #expect(existing.localID == owner.user.localID)
        #expect(try await store.user(projectID: project.id, tenantID: nil, providerID: "github.com", rawID: "gh-2") == nil)
    }

    @Test func anIdentityLinksToOneAccountOnly() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let ada = try await accounts.passwords.signUp(in: project, email: "ada@example.com", password: "secret1")
        let bob = try await accounts.passwords.signUp(in: project, email: "bob@example.com", password: "secret1")
        let identity = FederatedAssertion(providerID: "github.com", rawID: "gh-3")
        let linked = try signedIn(try await signIn(accounts, project, identity, idToken: ada.tokens.idToken))
        #expect(linked.user.localID == ada.user.localID && linked.user.providers.contains { $0.providerID == "github.com" })
        await #expect(throws: AuthFailure.federatedUserIDAlreadyLinked) {
            _ = try await signIn(accounts, project, identity, idToken: bob.tokens.idToken)
        }
        let viaIdentity = try signedIn(try await signIn(accounts, project, identity))
        #expect(viaIdentity.user.localID == ada.user.localID, "the identity signs in to the account it was linked to")
    }
}
