import Foundation
import HearthCore
import HearthServer
import HearthWire
import HTTPTypes
import Testing

/// `EmulatorControlRoutes`: the emulator's clock moves what the server decides by time (ID tokens, action codes, the
/// deletion of inactive anonymous users); faults answer the next calls of an endpoint; neither exists in production.
@Suite struct EmulatorControlRoutesTests {
    static let controls = "/emulator/v1/projects/demo-project"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    @Test func theClockMovesTokensCodesAndAnonymousCleanup() async throws {
        try await TestApp(mode: .emulator).run { client in
            let frozen = try await client.post(Self.controls + "/clock:freeze", ["time": "2030-01-01T00:00:00Z"], key: nil)
            #expect(frozen["timeMillis"] as? Int == 1_893_456_000_000 && frozen["frozen"] as? Bool == true, "\(frozen.text)")
            let user = try await client.signUp("clock@example.com")
            let token = try #require(user["idToken"] as? String)
            let refresh = try #require(user["refreshToken"] as? String)
            let reset = try await client.post(Endpoints.sendOobCode.path, ["requestType": "PASSWORD_RESET", "email": "clock@example.com"])
            try #require(reset.status == 200, "\(reset.text)")
            let codes = try await client.send(.get, Self.controls + "/oobCodes", key: nil)
            let code = try #require(((codes["oobCodes"] as? [[String: Any]])?.last)?["oobCode"] as? String, "\(codes.text)")
            #expect(try await client.post(Endpoints.lookup.path, ["idToken": token]).status == 200, "fresh while time stands still")

            let moved = try await client.post(Self.controls + "/clock:advance", ["seconds": 3601], key: nil)
            #expect(moved["timeMillis"] as? Int == 1_893_459_601_000, "\(moved.text)")
            #expect(try await client.post(Endpoints.lookup.path, ["idToken": token]).errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.post(Endpoints.resetPassword.path, ["oobCode": code, "newPassword": "another1"]).errorMessage
                    == "EXPIRED_OOB_CODE", "a reset link lives an hour")
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": refresh])
            let newToken = try #require(refreshed["id_token"] as? String, "\(refreshed.text)")
            let payload = try #require(Base64URL.decode(newToken.split(separator: ".")[1]))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["iat"] as? Int == 1_893_459_601, "a new token is issued at the moved time")

            // Anonymous users inactive for 30 days go when the clock passes them, where the project asks for it.
            let on = try await client.send(.patch, "/identitytoolkit.googleapis.com/v2/projects/demo-project/config?updateMask=autodeleteAnonymousUsers",
                                           ["autodeleteAnonymousUsers": true], key: nil, headers: Self.owner)
            try #require(on.status == 200, "\(on.text)")
            let guest = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let guestID = try #require(guest["localId"] as? String)
            let month = try await client.post(Self.controls + "/clock:advance", ["seconds": 31 * 86_400], key: nil)
            #expect(month["deletedAnonymousUsers"] as? Int == 1, "\(month.text)")
            let gone = try await client.post("/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup",
                                             ["localId": [guestID]], key: nil, headers: Self.owner)
            #expect(gone["users"] == nil, "\(gone.text)")

            let back = try await client.post(Self.controls + "/clock:reset", key: nil)
            #expect(back["frozen"] as? Bool == false)
            let now = try #require(back["timeMillis"] as? Int)
            #expect(now < 1_893_456_000_000, "the wall clock again")
        }
    }

    /// With abuse limits on in emulator mode, a window closes when the clock passes it.
    @Test func rateWindowsCloseWhenTheClockMoves() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.rateLimits = .init(enabled: true)
        try await app.run { client in
            _ = try await client.post(Self.controls + "/clock:freeze", key: nil)
            _ = try await client.signUp("limited@example.com", "secret12")
            let attempt = { (password: String) in
                try await client.post(Endpoints.signInWithPassword.path, ["email": "limited@example.com", "password": password])
            }
            for _ in 0..<10 { _ = try await attempt("wrong-password") }
            #expect(try await attempt("secret12").errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
            _ = try await client.post(Self.controls + "/clock:advance", ["seconds": 601], key: nil)
            #expect(try await attempt("secret12").status == 200, "the ten-minute window has passed")
        }
    }

    @Test func faultsAnswerTheNextCallsThenStop() async throws {
        try await TestApp(mode: .emulator).run { client in
            _ = try await client.signUp("fault@example.com", "secret12")
            let signIn = { try await client.post(Endpoints.signInWithPassword.path, ["email": "fault@example.com", "password": "secret12"]) }
            let added = try await client.post(Self.controls + "/faults", ["endpoint": "accounts:signInWithPassword",
                                                                          "error": "QUOTA_EXCEEDED", "times": 2], key: nil)
            #expect(added.status == 200, "\(added.text)")
            #expect(try await signIn().errorMessage == "QUOTA_EXCEEDED")
            #expect(try await signIn().errorMessage == "QUOTA_EXCEEDED")
            #expect(try await signIn().status == 200, "after two")
            _ = try await client.post(Self.controls + "/faults", ["endpoint": "accounts:signInWithPassword", "error": "UNAVAILABLE"], key: nil)
            let down = try await signIn()
            #expect(down.status == 503 && down.errorMessage != nil, "\(down.text)")
            _ = try await client.post(Self.controls + "/faults", ["endpoint": "token", "delayMillis": 20, "times": 5], key: nil)
            let listed = try await client.send(.get, Self.controls + "/faults", key: nil)
            #expect((listed["faults"] as? [[String: Any]])?.first?["endpoint"] as? String == "token", "\(listed.text)")
            _ = try await client.send(.delete, Self.controls + "/faults", key: nil)
            #expect(((try await client.send(.get, Self.controls + "/faults", key: nil))["faults"] as? [Any])?.isEmpty == true)

            for (what, body) in [("an unknown error", ["endpoint": "token", "error": "NOT_A_CODE"] as [String: Any]),
                                 ("a path for an endpoint", ["endpoint": "v1/accounts:signUp", "error": "QUOTA_EXCEEDED"]),
                                 ("nothing to do", ["endpoint": "token"]),
                                 ("no times at all", ["endpoint": "token", "error": "QUOTA_EXCEEDED", "times": 0])] {
                let refused = try await client.post(Self.controls + "/faults", body, key: nil)
                #expect(refused.status == 400 && refused.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(what): \(refused.text)")
            }
            let backwards = try await client.post(Self.controls + "/clock:advance", ["seconds": -60], key: nil)
            #expect(backwards.status == 400, "time only moves forward: \(backwards.text)")
        }
    }

    @Test func productionHasNoClockAndNoFaults() async throws {
        try await TestApp().run { client in
            for (method, path) in [(HTTPRequest.Method.get, "/clock"), (.post, "/clock:freeze"), (.post, "/clock:advance"),
                                   (.get, "/faults"), (.post, "/faults"), (.delete, "/faults")] {
                let reply = try await client.send(method, Self.controls + path, ["seconds": 60], key: nil, headers: Self.owner)
                #expect(reply.status == 404, "\(method) \(path): \(reply.status)")
            }
        }
    }
}
