import Foundation
import HearthCore
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import HearthWire
import Testing

/// Tenants sign in with their own identity providers, as in Identity Platform: the project's are not theirs, nor
/// another tenant's. The hosted handler takes the tenant from `tid` (what FirebaseAuth sends for `Auth.tenantId`),
/// and only a sign-in in that tenant finishes the session it started.
@Suite(.enabled(if: TestIdentityProvider.unavailableReason() == nil,
                "test IdP unavailable: \(TestIdentityProvider.unavailableReason() ?? "")"))
struct TenantFederationEndToEndTests {
    static let v1 = FederatedEndToEndTests.v1

    static func seedTenants(_ live: FederatedEndToEndTests.Live) async throws {
        var partner = TenantRecord(projectID: "idp-project", id: "t-idp")
        partner.identityProviders["oidc.partner"] = IdentityProviderConfig(
            clientId: FederatedEndToEndTests.clientID, clientSecret: TestIdentityProvider.clientSecret, issuer: live.idp.issuer)
        try await live.store.insertTenant(partner)
        try await live.store.insertTenant(TenantRecord(projectID: "idp-project", id: "t-other"))
    }

    @Test func aTenantSignsInWithItsOwnProvidersOnly() async throws {
        try await FederatedEndToEndTests().withLive(clientSecret: TestIdentityProvider.clientSecret) { live in
            try await Self.seedTenants(live)
            func signIn(_ provider: String, tenant: String?) async throws -> [String: Any] {
                let token = try await live.idToken(["sub": "p-1", "email": "pat@partner.example", "email_verified": true])
                var body: [String: Any] = ["requestUri": "http://localhost", "returnSecureToken": true,
                                           "postBody": "id_token=\(token)&providerId=\(provider)"]
                if let tenant { body["tenantId"] = tenant }
                return try await live.post(Endpoints.signInWithIdp.path, body)
            }
            let signedIn = try await signIn("oidc.partner", tenant: "t-idp")
            #expect(signedIn["tenantId"] as? String == "t-idp" && signedIn["idToken"] is String, "\(signedIn)")
            // The tenant's provider is nobody else's; the project's (oidc.acme) is not the tenant's.
            for (provider, tenant) in [("oidc.partner", nil), ("oidc.partner", "t-other"), ("oidc.acme", "t-idp")] {
                let refused = try await signIn(provider, tenant: tenant)
                #expect(FederatedEndToEndTests.error(refused)?.hasPrefix("OPERATION_NOT_ALLOWED") == true,
                        "\(provider) in \(tenant ?? "the project"): \(refused)")
            }
            #expect(try await live.store.users(projectID: "idp-project", tenantID: "t-idp", after: nil, limit: 5).count == 1)
            #expect(try await live.store.users(projectID: "idp-project", after: nil, limit: 5).isEmpty)
        }
    }

    @Test func theHostedHandlerCarriesTheTenant() async throws {
        try await FederatedEndToEndTests().withLive(clientSecret: TestIdentityProvider.clientSecret) { live in
            try await Self.seedTenants(live)
            let rawSession = "tenant-session-\(UUID().uuidString)"
            let landing = "http://127.0.0.1:\(live.client.port!)/landing"
            let start = "/__/auth/handler?apiKey=\(FederatedEndToEndTests.apiKey)&providerId=oidc.partner"
                + "&sessionId=\(storageDigest(rawSession))&redirectUrl=\(landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                + "&customParameters=\(#"{"login_hint":"tenant-user"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            for refused in [start, start + "&tid=t-other", start + "&tid=t-nowhere"] {
                let response = try await live.client.execute(uri: refused, method: .get)
                #expect(response.status == .badRequest && response.headers[.location] == nil, "\(refused): \(response.status)")
            }
            let started = try await live.client.execute(uri: start + "&tid=t-idp", method: .get)
            let authorize = try #require(started.headers[.location], "\(started.status) \(String(buffer: started.body))")
            let returned = try #require(URLComponents(string: try await live.idp.authorize(authorize)))
            let back = try await live.client.execute(uri: returned.path + "?" + (returned.percentEncodedQuery ?? ""), method: .get)
            let target = try #require(back.headers[.location], "\(back.status)")
            let link = try #require(URLComponents(string: target)?.queryItems?.first { $0.name == "link" }?.value)

            // The app signs in with the link and its session id: in the project or another tenant, the session is
            // unknown (and stays usable); in its tenant it signs in there.
            for elsewhere in [nil, "t-other"] as [String?] {
                var body: [String: Any] = ["requestUri": link, "sessionId": rawSession, "returnSecureToken": true]
                if let elsewhere { body["tenantId"] = elsewhere }
                let refused = try await live.post(Endpoints.signInWithIdp.path, body)
                #expect(FederatedEndToEndTests.error(refused)?.hasPrefix("INVALID_IDP_RESPONSE") == true,
                        "\(elsewhere ?? "the project"): \(refused)")
            }
            let signedIn = try await live.post(Endpoints.signInWithIdp.path, [
                "requestUri": link, "sessionId": rawSession, "returnSecureToken": true, "tenantId": "t-idp"])
            #expect(signedIn["tenantId"] as? String == "t-idp" && signedIn["email"] as? String == "tenant-user@idp.example",
                    "\(signedIn)")
        }
    }
}
