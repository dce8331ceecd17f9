import Foundation
import HearthCore
import HearthWire
import Testing

/// Attacks of the account-security review over HTTP, in production mode.
@Suite struct AccountSecurityRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    @Test func aBackslashUserinfoContinueURLCannotCarryACodeToAnotherHost() async throws {
        try await TestApp().run { client in
            _ = try await client.signUp("victim@example.com")
            for trick in ["https://evil.example\\@localhost/", "https://evil.example%5C@localhost/",
                          "https://evil.example\u{3002}localhost/", "https://localhost%2F@evil.example/"] {
                let reply = try await client.post(Endpoints.sendOobCode.path, [
                    "requestType": "EMAIL_SIGNIN", "email": "victim@example.com", "continueUrl": trick])
                #expect(reply.status == 400, "\(trick.debugDescription): \(reply.text)")
            }
            let fine = try await client.post(Endpoints.sendOobCode.path, [
                "requestType": "EMAIL_SIGNIN", "email": "victim@example.com", "continueUrl": "HTTP://LOCALHOST\\done"])
            #expect(fine.status == 200)
        }
    }

    @Test func theRecipientLimitCountsTheAddressNotTheIDToken() async throws {
        var configured = TestApp(protection: false)
        configured.configuration.rateLimits = .init(enabled: true, emailsPerRecipient: .init(limit: 2, window: 3600))
        let app = configured
        try await app.run { client in
            let user = try await client.signUp("flooded@example.com")
            var sent = 0
            for _ in 0..<4 {  // a fresh ID token for every request, as a refresh gives
                let fresh = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": user["refreshToken"]!])
                let reply = try await client.post(Endpoints.sendOobCode.path, [
                    "requestType": "VERIFY_EMAIL", "idToken": fresh["id_token"]!])
                if reply.status == 200 { sent += 1 } else {
                    #expect(reply.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(reply.text)")
                }
            }
            #expect(sent == 2)
        }
    }

    @Test func aNULInAnEmailIsRefusedAndAHugeNameTooOverHTTP() async throws {
        try await TestApp().run { client in
            let nul = try await client.post(Endpoints.signUp.path, [
                "email": "\u{0}victim@example.com", "password": "secret1", "returnSecureToken": true])
            #expect(nul.errorMessage == "INVALID_EMAIL")
            let user = try await client.signUp("name@example.com")
            let huge = try await client.post(Endpoints.update.path, [
                "idToken": user["idToken"]!, "displayName": String(repeating: "x", count: 900_000)])
            #expect(huge.status == 400 && huge.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(huge.status)")
        }
    }
}
