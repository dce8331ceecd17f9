import Foundation
import HearthCore
@testable import HearthServer
import HearthTestSupport
import HearthWire
import Testing

/// `WebhookRoutes`: the account-event endpoints an operator added, listed for administrators only and never with
/// their signing secrets.
@Suite struct WebhookRoutesTests {
    static let webhooks = "/identitytoolkit.googleapis.com/v1/projects/demo-project/webhooks"

    @Test func endpointsAreListedToAdministratorsWithoutTheirSecrets() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        let endpoint = WebhookEndpoint(projectID: "demo-project", url: "https://hooks.example.com/hearth",
                                       types: [.userCreated], now: app.clock.now())
        try await app.store.insertWebhookEndpoint(endpoint)
        try await app.run { client in
            let anonymous = try await client.send(.get, Self.webhooks, key: nil)
            #expect(anonymous.status == 403, "an admin call without credentials is refused as Google refuses it: \(anonymous.text)")
            let listed = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get, Self.webhooks, nil)
            #expect(listed.status == 200, "\(listed.text)")
            let endpoints = try #require(listed["endpoints"] as? [[String: Any]])
            #expect(endpoints.count == 1 && endpoints[0]["url"] as? String == "https://hooks.example.com/hearth")
            #expect(endpoints[0]["eventTypes"] as? [String] == [WebhookEventType.userCreated.rawValue])
            #expect(!listed.text.contains(endpoint.secret), "the signing secret is never shown")
            #expect(listed["deliveries"] as? [Any] != nil)
        }
    }
}
