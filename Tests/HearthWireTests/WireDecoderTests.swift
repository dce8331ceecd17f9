import Foundation
import HearthWire
import Testing

/// Google's REST mapping rules as `WireDecoder` applies them.
@Suite struct WireDecoderTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String, strict: Bool = true) throws -> T {
        try WireDecoder(strict: strict).decode(type, from: Data(json.utf8))
    }

    /// Every primitive the decoder meets, in one shape.
    struct Sample: Decodable, Equatable {
        var s: String?
        var b: Bool?
        var i: Int64?
        var list: [String]?
        var nested: Nested?
        var map: [String: String]?
        var bytes: Data?
        struct Nested: Decodable, Equatable { var a: Bool? }
    }

    @Test func snakeCaseKeysReadAsCamelCase() throws {
        let request = try decode(TokenRequest.self, #"{"grant_type":"refresh_token","refresh_token":"abc"}"#)
        #expect(request == TokenRequest(grantType: "refresh_token", refreshToken: "abc"))
    }

    @Test func numbersAreAcceptedForStrings() throws {
        #expect(try decode(Sample.self, #"{"s": 12345}"#).s == "12345")
        #expect(try decode(Sample.self, #"{"s": 1.5}"#).s == "1.5")
        #expect(try decode(Sample.self, #"{"list": ["a", 7]}"#).list == ["a", "7"])
    }

    @Test func wrongTypesNameTheField() throws {
        #expect(throws: WireDecodingError.wrongType(path: "/b", expected: "boolean")) { try decode(Sample.self, #"{"b": "yes"}"#) }
        #expect(throws: WireDecodingError.wrongType(path: "/s", expected: "string", got: "boolean")) {
            try decode(Sample.self, #"{"s": true}"#)
        }
        #expect(throws: WireDecodingError.wrongType(path: "/list", expected: "array")) { try decode(Sample.self, #"{"list": "x"}"#) }
        #expect(throws: WireDecodingError.wrongType(path: "/list/1", expected: "string", got: "object")) {
            try decode(Sample.self, #"{"list": ["x", {}]}"#)
        }
        #expect(throws: WireDecodingError.wrongType(path: "/nested/a", expected: "boolean")) {
            try decode(Sample.self, #"{"nested": {"a": 1}}"#)
        }
        #expect(throws: WireDecodingError.wrongType(path: "/nested", expected: "object", got: "string")) {
            try decode(Sample.self, #"{"nested": "x"}"#)
        }
        #expect(throws: WireDecodingError.wrongType(path: "/bytes", expected: "base64 bytes")) {
            try decode(Sample.self, #"{"bytes": "not base64!"}"#)
        }
    }

    @Test func integersAcceptNumbersAndNumericStrings() throws {
        #expect(try decode(Sample.self, #"{"i": 42}"#).i == 42)
        #expect(try decode(Sample.self, #"{"i": "1700000000"}"#).i == 1_700_000_000)
        #expect(throws: WireDecodingError.wrongType(path: "/i", expected: "integer")) { try decode(Sample.self, #"{"i": 1.5}"#) }
        #expect(throws: WireDecodingError.wrongType(path: "/i", expected: "integer")) { try decode(Sample.self, #"{"i": "x"}"#) }
    }

    @Test func enumsTakeTheirNameOrProtoNumber() throws {
        #expect(try decode(SendOobCodeRequest.self, #"{"requestType": "EMAIL_SIGNIN"}"#).requestType == .emailSignIn)
        #expect(try decode(SendOobCodeRequest.self, #"{"requestType": 6}"#).requestType == .emailSignIn)
        #expect(try decode(SendOobCodeRequest.self, #"{"requestType": "1"}"#).requestType == .passwordReset)
        #expect(throws: WireDecodingError.wrongType(path: "/requestType", expected: "equal to one of the allowed values")) {
            try decode(SendOobCodeRequest.self, #"{"requestType": "RECOVER_EMAIL"}"#)
        }
        #expect(throws: WireDecodingError.wrongType(path: "/deleteAttribute/1", expected: "equal to one of the allowed values")) {
            try decode(UpdateAccountRequest.self, #"{"deleteAttribute": ["DISPLAY_NAME", "NOPE"]}"#)
        }
    }

    @Test func unknownFieldsAreReportedOnlyWhenStrict() throws {
        let body = #"{"idToken":"t","surprise":1}"#
        #expect(throws: WireDecodingError.unknownField("surprise")) { try decode(LookupRequest.self, body) }
        #expect(try decode(LookupRequest.self, body, strict: false).idToken == "t")
        // Fields a type accepts and ignores are not unknown.
        #expect(try decode(SignInWithPasswordRequest.self, #"{"email":"a","captchaResponse":"x"}"#).email == "a")
    }

    @Test func unknownFieldsOfNestedObjectsAreReportedWithTheirPlace() throws {
        let body = #"{"users":[{"localId":"a"},{"localId":"b","providerUserInfo":[{"providerId":"x","rawId":"1","surprise":2}]}]}"#
        #expect(throws: WireDecodingError.unknownNestedField("surprise", at: "users[1].providerUserInfo[0]")) {
            try decode(BatchCreateRequest.self, body)
        }
        #expect(WireDecodingError.unknownNestedField("surprise", at: "users[1]").message
            == "Invalid JSON payload received. Unknown name \"surprise\" at 'users[1]': Cannot find field.")
        #expect(try decode(BatchCreateRequest.self, body, strict: false).users.count == 2)
        let clean = #"{"users":[{"localId":"a","providerUserInfo":[{"providerId":"x","rawId":"1"}]}]}"#
        #expect(try decode(BatchCreateRequest.self, clean).users.first?.providerUserInfo.count == 1)
        // An object no field reads (TOTP's empty enrolment info) still has its keys checked.
        #expect(throws: WireDecodingError.unknownNestedField("x", at: "totpEnrollmentInfo")) {
            try decode(StartMFAEnrollmentRequest.self, #"{"totpEnrollmentInfo": {"x": 1}}"#)
        }
    }

    @Test func mapKeysAreDataKeptAsSent() throws {
        let sample = try decode(Sample.self, #"{"map": {"snake_key": "v", "n": 5}}"#)
        #expect(sample.map == ["snake_key": "v", "n": "5"])
    }

    @Test func nullMeansAbsentButAListMayNotBeNull() throws {
        #expect(try decode(Sample.self, #"{"s": null}"#).s == nil)
        #expect(try decode(BatchDeleteRequest.self, #"{}"#).localIds == [])
        #expect(throws: WireDecodingError.wrongType(path: "/mfa/enrollments", expected: "array")) {
            try decode(UpdateAccountRequest.self, #"{"mfa": {"enrollments": null}}"#)
        }
    }

    @Test func bytesTakeEitherAlphabetAndTheEmulatorsFakeHash() throws {
        #expect(try decode(Sample.self, #"{"bytes": "-_8"}"#).bytes == Data([0xFB, 0xFF]))
        let fake = try decode(BatchCreateRequest.self, #"{"users":[{"localId":"a","passwordHash":"fakeHash:salt=s:password=p","salt":"fakeSalt_s"}]}"#)
        #expect(fake.users[0].fakePasswordHash?.hash == "fakeHash:salt=s:password=p")
        #expect(fake.users[0].passwordHashBytes == nil)
    }

    @Test(arguments: ["", "{", "[]", "\"x\"", "{\"a\":}", "nul"])
    func malformedBodies(_ text: String) {
        #expect(throws: WireDecodingError.self) { try WireObject(json: Data(text.utf8)) }
    }

    /// One field given twice, by one name or by a name and its aliases, is refused where the body is parsed: readers
    /// that pick a spelling each would otherwise act on different values of one body.
    @Test(arguments: [
        #"{"requestType":"VERIFY_EMAIL","requestType":"PASSWORD_RESET"}"#,
        #"{"request_type":"VERIFY_EMAIL","_request_type":"PASSWORD_RESET"}"#,
        #"{"requestType":"VERIFY_EMAIL","request_type":"PASSWORD_RESET"}"#,
        #"{"phoneEnrollmentInfo":{"recaptchaToken":"a","recaptcha_token":"b"}}"#,
    ])
    func fieldsSpelledTwice(_ text: String) {
        #expect(throws: WireDecodingError.self) { try WireObject(json: Data(text.utf8)) }
        #expect { try WireObject(json: Data(text.utf8)) } throws: { error in
            if case .duplicateField = error as? WireDecodingError { true } else { false }
        }
    }

    @Test func formFieldsSpelledTwice() {
        for form in ["email=a&email=b", "grant_type=refresh_token&grantType=password"] {
            #expect(throws: WireDecodingError.self, "\(form)") { try WireObject(form: Data(form.utf8)) }
        }
        #expect((try? WireObject(json: Data(#"{"a_b":1,"c":2}"#.utf8))) != nil, "distinct fields pass")
    }

    @Test func formBodies() throws {
        let body = try WireObject(form: Data("grant_type=refresh_token&refresh_token=a%2Bb%3D&empty=".utf8))
        #expect(body.peek("grantType") == "refresh_token")
        #expect(body.peek("refreshToken") == "a+b=")
        #expect(body.peek("empty") == "")
    }

    @Test func errorEnvelopeShape() throws {
        let envelope = ErrorEnvelope.business(.weakPassword, detail: "Password should be at least 6 characters")
        let json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(envelope)) as? [String: Any])
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["code"] as? Int == 400)
        #expect(error["message"] as? String == "WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(error["status"] == nil, "business errors carry no status")
        #expect(envelope.serverCode == "WEAK_PASSWORD")
        let item = try #require((error["errors"] as? [[String: Any]])?.first)
        #expect(item as NSDictionary == ["message": "WEAK_PASSWORD : Password should be at least 6 characters",
                                         "domain": "global", "reason": "invalid"] as NSDictionary)
    }
}

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> WireObject { try WireObject(json: Data(text.utf8)) }

    @Test func parsesWhatJSONAllows() throws {
        let body = try parse(#" { "s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "n": -1.5e3, "z": 0, "t": true, "f": false, "a": [1, "x", null, {}], "o": {"k": []} } "#)
        #expect(body.peek("s") == "a\"b\\c/d\né😀")
        #expect(body.peek("n") == "-1500")
        #expect(body.peek("z") == "0")
        #expect(body.value("t") == .bool(true))
        #expect(body.value("f") == .bool(false))
        #expect(body.value("a") == .array([.number(1), .string("x"), .null, .object([:])]))
        #expect(body.value("o") == .object(["k": .array([])]))
    }

    @Test(arguments: [
        ("", "Unexpected end of JSON input"),
        (#"{"email": "a", "password": "#, "Unexpected end of JSON input"),
        (#"{"a":}"#, "Unexpected token } in JSON at position 5"),
        ("{'a':1}", "Unexpected token ' in JSON at position 1"),
        (#"{"a":1,}"#, "Unexpected token } in JSON at position 7"),
        (#"{"a":01}"#, "Unexpected token 1 in JSON at position 6"),
        (#"{"a":1} x"#, "Unexpected token x in JSON at position 8"),
        (#"{"a":tru}"#, "Unexpected token } in JSON at position 8"),
        ("{\"a\":\"\u{1}\"}", "Unexpected token \\x01 in JSON at position 6"),
    ])
    func reportsWhereItStopped(_ text: String, _ message: String) {
        #expect(throws: WireDecodingError.malformed(message)) { try WireObject(json: Data(text.utf8)) }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: WireDecodingError.self) { try WireObject(json: Data(("{\"a\":" + deep + "}").utf8)) }
    }
}
