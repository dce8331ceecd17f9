import Foundation
import HearthCore
import HearthWire
import Testing

/// `createAuthUri` for email identifiers: what `fetchSignInMethods(forEmail:)` sees.
@Suite struct CreateAuthUriTests {
    static let path = Endpoints.createAuthUri.path

    @Test func registeredAndUnknownEmailsWithoutProtection() async throws {
        try await TestApp(protection: false).run { client in
            _ = try await client.signUp("alice@example.com")
            let registered = try await client.post(Self.path, ["identifier": "Alice@Example.com", "continueUri": "http://localhost"])
            expectSameShape(try registered.object(), try Fixture("createAuthUri-registered").body)
            #expect(registered["registered"] as? Bool == true)
            #expect(registered["signinMethods"] as? [String] == ["password"])
            let unknown = try await client.post(Self.path, ["identifier": "nobody@example.com", "continueUri": "http://localhost"])
            expectSameShape(try unknown.object(), try Fixture("createAuthUri-unknown").body)
            #expect(unknown["registered"] as? Bool == false)
            #expect(unknown["allProviders"] as? [String] == [])
        }
    }

    @Test func protectionRevealsNothing() async throws {
        try await TestApp(protection: true).run { client in
            _ = try await client.signUp("alice@example.com")
            for email in ["alice@example.com", "nobody@example.com"] {
                let reply = try await client.post(Self.path, ["identifier": email, "continueUri": "http://localhost"])
                #expect(try reply.object().keys.sorted() == ["kind", "sessionId"])
                expectSameShape(try reply.object(), try Fixture("createAuthUri-privacy-on").body)
            }
        }
    }

    @Test func badInput() async throws {
        try await TestApp(protection: false).run { client in
            let cases: [([String: String], String)] = [
                (["continueUri": "http://localhost"], "MISSING_IDENTIFIER"),  // as Firebase answers an absent one
                (["identifier": "not-an-email", "continueUri": "http://localhost"], "INVALID_IDENTIFIER"),
                (["identifier": "a@example.com"], "MISSING_CONTINUE_URI"),
                (["identifier": "a@example.com", "continueUri": "not a url"], "INVALID_CONTINUE_URI"),
                (["identifier": "a@example.com", "continueUri": "javascript:alert(1)"], "INVALID_CONTINUE_URI"),
            ]
            for (body, code) in cases {
                let reply = try await client.post(Self.path, body)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == code, "\(body)")
            }
            let federated = try await client.post(Self.path, ["providerId": "google.com", "continueUri": "http://localhost"])
            #expect(federated.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED : ") == true)
        }
    }
}
