import Foundation
import HearthCore
import HTTPTypes
import Hummingbird
import Testing

/// Every kind of bad input gets Google's envelope and a 4xx: never a 500, a crash or a hang.
@Suite struct BadInputTests {
    static let signIn = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"
    static let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp"
    static let lookup = "/identitytoolkit.googleapis.com/v1/accounts:lookup"

    @Test func missingAPIKey() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.signUp, ["email": "nokey@example.com", "password": "secret123"], key: nil)
            let fixture = try Fixture("error-missing-api-key")
            #expect(reply.status == 403)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
        }
    }

    @Test func wrongAPIKeyInProductionButAnyKeyInEmulatorMode() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.signUp, ["email": "k@example.com", "password": "secret123"], key: "AIzaWrong")
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "API key not valid. Please pass a valid API key.")
            let error = try #require(try reply.object()["error"] as? [String: Any])
            #expect((error["errors"] as? [[String: Any]])?.first?["reason"] as? String == "keyInvalid")
            let header = try await client.post(Self.signUp, ["email": "h@example.com", "password": "secret123"], key: nil,
                                               headers: [HTTPField.Name("X-Goog-Api-Key")!: TestApp.apiKey])
            #expect(header.status == 200, "the key is also accepted in X-Goog-Api-Key")
        }
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.post(Self.signUp, ["email": "k@example.com", "password": "secret123"], key: "fake-api-key")
            #expect(reply.status == 200)
        }
    }

    @Test func malformedJSON() async throws {
        try await TestApp().run { client in
            for raw in [#"{"email": "err@example.com", "password": "#, "[1,2]", "not json", "\u{0}", "{\"a\":}"] {
                let reply = try await client.post(Self.signIn, raw: raw)
                #expect(reply.status == 400, "body \(raw.debugDescription)")
                let error = try #require(try reply.object()["error"] as? [String: Any])
                #expect(error["status"] as? String == "INVALID_ARGUMENT")
                #expect((error["message"] as? String)?.hasPrefix("Invalid JSON payload received.") == true)
            }
            let truncated = try await client.post(Self.signIn, raw: #"{"email": "err@example.com", "password": "#)
            let fixture = try Fixture("error-malformed-json")
            let ours = try #require(try truncated.object()["error"] as? [String: Any])
            let theirs = try #require((fixture.body as? [String: Any])?["error"] as? [String: Any])
            #expect(ours["status"] as? String == theirs["status"] as? String)
            #expect((ours["errors"] as? [[String: Any]])?.first?["reason"] as? String == "parseError")
        }
    }

    @Test func emptyBody() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.signIn, raw: "")
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "Invalid JSON payload received. Unexpected end of JSON input")
        }
    }

    @Test func wrongTypes() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.signIn, ["email": "e@example.com", "password": "secret123",
                                                            "returnSecureToken": "yes"])
            let fixture = try Fixture("error-wrong-field-type-boolean")
            #expect(reply.status == 400)
            #expect(try reply.object() as NSDictionary == fixture.body as! NSDictionary)
            for body: [String: Any] in [["email": ["a"], "password": "x"], ["email": ["x": 1], "password": "y"],
                                        ["email": "e@example.com", "password": true]] {
                let bad = try await client.post(Self.signIn, body)
                #expect(bad.status == 400)
                #expect(bad.errorMessage?.hasPrefix("Invalid JSON payload received. /") == true, "\(bad.text)")
            }
        }
    }

    @Test func unknownFieldsAreRefusedInProductionAndIgnoredInEmulatorMode() async throws {
        let body = #"{"email": "u@example.com", "password": "secret123", "bogusField": 1}"#
        try await TestApp().run { client in
            let reply = try await client.post(Self.signUp, raw: body)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == #"Invalid JSON payload received. Unknown name "bogusField": Cannot find field."#)
        }
        try await TestApp(mode: .emulator).run { client in
            let reply = try await client.post(Self.signUp, raw: body)
            #expect(reply.status == 200)
        }
    }

    @Test func snakeCaseKeysAreAccepted() async throws {
        try await TestApp().run { client in
            let reply = try await client.post(Self.signUp, ["email": "s@example.com", "password": "secret123",
                                                            "return_secure_token": true, "display_name": "Snake"])
            #expect(reply.status == 200)
            #expect(reply["displayName"] as? String == "Snake")
        }
    }

    @Test func oversizedBody() async throws {
        var app = TestApp()
        app.configuration.maxBodySize = 4096
        try await app.run { client in
            let reply = try await client.post(Self.signUp, ["email": "big@example.com",
                                                            "password": String(repeating: "x", count: 10_000)])
            #expect(reply.status == 413)
            #expect(reply.errorMessage?.contains("exceeds the limit") == true)
        }
        try await TestApp().run { client in
            let reply = try await client.post(Self.signUp, ["email": "long@example.com",
                                                            "password": String(repeating: "x", count: 5000)])
            #expect(reply.errorMessage?.hasPrefix("WEAK_PASSWORD") == true, "overlong passwords are not hashed")
        }
    }

    @Test func unknownOperationAndWrongMethod() async throws {
        try await TestApp().run { client in
            let unknown = try await client.post("/identitytoolkit.googleapis.com/v1/accounts:doesNotExist", ["foo": "bar"])
            let fixture = try Fixture("error-unknown-operation-path")
            #expect(unknown.status == 404)
            #expect(try unknown.object() as NSDictionary == fixture.body as! NSDictionary)
            let wrongMethod = try await client.send(.get, Self.signUp)
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.errorMessage == "Method GET not allowed for \(Self.signUp)")
            let emulatorOnly = try await client.send(.get, "/emulator/v1/projects/demo-project/config")
            #expect(emulatorOnly.status == 404, "emulator endpoints do not exist in production")
        }
    }

    @Test func garbageTamperedUnsignedAndForeignTokens() async throws {
        try await TestApp().run { client in
            let created = try await client.signUp("t@example.com")
            let token = created["idToken"] as! String
            let parts = token.split(separator: ".").map(String.init)
            var payload = try #require(JSONSerialization.jsonObject(with: Base64URL.decode(parts[1])!) as? [String: Any])
            payload["sub"] = "someone-else"
            payload["user_id"] = "someone-else"
            let tampered = parts[0] + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload)) + "." + parts[2]
            let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
            let cases: [Any] = ["", "garbage", tampered, none, parts[0] + "." + parts[1], 42, String(repeating: "a.", count: 20000)]
            for idToken in cases {
                let reply = try await client.post(Self.lookup, ["idToken": idToken])
                #expect(reply.status == 400)
                #expect(["INVALID_ID_TOKEN", "MISSING_ID_TOKEN"].contains(reply.errorMessage ?? ""), "\(reply.text)")
            }
            let missing = try await client.post(Self.lookup, [String: String]())
            #expect(missing.errorMessage == "MISSING_ID_TOKEN")
        }
    }

    @Test func corsPreflightAndReflectedOrigin() async throws {
        try await TestApp().run { client in
            let preflight = try await client.send(.options, Self.signUp, key: nil, headers: [
                .origin: "http://localhost:3000", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "content-type,x-client-version",
            ])
            #expect(preflight.status == 204)
            #expect(preflight.headers[.accessControlAllowOrigin] == "http://localhost:3000")
            #expect(preflight.headers[.accessControlAllowHeaders] == "content-type,x-client-version")
            let reply = try await client.post(Self.signUp, ["email": "c@example.com", "password": "secret123"],
                                              headers: [.origin: "https://app.example.com"])
            #expect(reply.headers[.accessControlAllowOrigin] == "https://app.example.com")
        }
    }
}
