import Foundation
import HearthCore
import HearthServer
import HearthTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HearthWire
import Testing

/// Every kind of bad input gets Google's envelope and a 4xx: never a 500, a crash or a hang.
@Suite struct BadInputTests {
    static let signIn = Endpoints.signInWithPassword.path
    static let signUp = Endpoints.signUp.path
    static let lookup = Endpoints.lookup.path

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

    /// A client that hangs up halfway through its body (here: closes its sending side after 10 of 200 promised
    /// bytes) gets a 400 on a real connection, and nothing is logged as an internal error.
    @Test func aBodyThatEndsEarlyIsABadRequest() async throws {
        let app = TestApp()
        let built = try await buildApplication(configuration: app.configuration, store: app.store, clock: app.clock,
                                               hashing: InlineWorkRunner(), hashParameters: { .generate(memoryCost: 10) })
        try await built.test(.live) { client in
            let port = try #require(client.port)
            let reply = try await Task.detached {
                Self.halfSentRequest(port: port, path: Self.signUp + "?key=" + TestApp.apiKey, promised: 200,
                                     sent: #"{"email": "#)
            }.value
            #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply)")
            #expect(reply.contains("the request body ended before it was complete"), "\(reply)")
            let after = try await Client(client: client).post(Self.signUp, ["email": "whole@example.com", "password": "secret123"])
            #expect(after.status == 200, "the server goes on serving")
        }
    }

    /// Sends a request's head promising `promised` body bytes, then `sent`, then shuts its sending side; returns
    /// everything the server answers.
    static func halfSentRequest(port: Int, path: String, promised: Int, sent: String) -> String {
        guard let fd = try? connectToLoopback(port: port, receiveTimeout: 20) else { return "cannot connect" }
        defer { close(fd) }
        let request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(promised)\r\n\r\n" + sent
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { answer += buffer[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        return String(decoding: answer, as: UTF8.self)
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

    /// Fields Hearth accepts without acting on them are still read as Google types them (the differential tester
    /// found them passing silently), in both modes.
    @Test func acceptedButUnusedFieldsAreTypeChecked() async throws {
        for mode in [ServerConfiguration.Mode.emulator, .production] {
            try await TestApp(mode: mode).run { client in
                let v1 = "/identitytoolkit.googleapis.com/v1"
                let cases: [(String, [String: Any], String)] = [
                    (Endpoints.signInWithPassword.path, ["email": "e@example.com", "password": "secret123", "clientType": "CLIENT_TYPE_TV"],
                     "/clientType must be equal to one of the allowed values"),
                    (Endpoints.signUp.path, ["recaptchaVersion": 7], "/recaptchaVersion must be equal to one of the allowed values"),
                    (Endpoints.signInWithIdp.path, ["requestUri": "http://localhost", "autoCreate": "yes"], "/autoCreate must be boolean"),
                    (Endpoints.sendVerificationCode.path, ["phoneNumber": "+15555550100", "autoRetrievalInfo": "hash"],
                     "/autoRetrievalInfo must be object"),
                    (Endpoints.startMFAEnrollment.path, ["idToken": "x", "totpEnrollmentInfo": "yes"],
                     "/totpEnrollmentInfo must be object"),
                ]
                for (path, body, message) in cases {
                    let reply = try await client.post(path, body)
                    #expect(reply.status == 400 && reply.errorMessage == "Invalid JSON payload received. " + message, "\(mode) \(path): \(reply.text)")
                }
                let known = try await client.post(Endpoints.signUp.path, ["clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
                                                                            "email": "typed@example.com", "password": "secret123"])
                #expect(known.status == 200, "allowed values pass: \(known.text)")
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
