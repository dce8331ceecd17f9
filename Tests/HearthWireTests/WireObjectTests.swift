import Foundation
import HearthWire
import Testing

/// Google's REST mapping rules as `WireObject` applies them.
@Suite struct WireObjectTests {
    func object(_ json: String) throws -> WireObject { try WireObject(json: Data(json.utf8)) }

    @Test func snakeCaseKeysReadAsCamelCase() throws {
        let request = try TokenRequest.decode(from: try object(#"{"grant_type":"refresh_token","refresh_token":"abc"}"#),
                                              strict: true)
        #expect(request == TokenRequest(grantType: "refresh_token", refreshToken: "abc"))
    }

    @Test func numbersAreAcceptedForStrings() throws {
        var body = try object(#"{"email": 12345, "big": 1.5}"#)
        #expect(try body.string("email") == "12345")
        #expect(try body.string("big") == "1.5")
    }

    @Test func wrongTypesNameTheField() throws {
        var body = try object(#"{"returnSecureToken": "yes", "email": true, "list": "x", "nested": {"a": 1}}"#)
        #expect(throws: WireDecodingError.wrongType(path: "/returnSecureToken", expected: "boolean")) {
            try body.bool("returnSecureToken")
        }
        #expect(throws: WireDecodingError.wrongType(path: "/email", expected: "string", got: "boolean")) {
            try body.string("email")
        }
        #expect(throws: WireDecodingError.wrongType(path: "/list", expected: "array")) { try body.strings("list") }
        var nested = try #require(try body.object("nested"))
        #expect(throws: WireDecodingError.wrongType(path: "/nested/a", expected: "boolean")) { try nested.bool("a") }
    }

    @Test func integersAcceptNumbersAndNumericStrings() throws {
        var body = try object(#"{"a": 42, "b": "1700000000", "c": 1.5, "d": "x"}"#)
        #expect(try body.int64("a") == 42)
        #expect(try body.int64("b") == 1_700_000_000)
        #expect(throws: WireDecodingError.self) { try body.int64("c") }
        #expect(throws: WireDecodingError.self) { try body.int64("d") }
    }

    @Test func unknownFieldsAreReportedOnlyWhenStrict() throws {
        let body = try object(#"{"idToken":"t","surprise":1}"#)
        #expect(throws: WireDecodingError.unknownField("surprise")) { try LookupRequest.decode(from: body, strict: true) }
        #expect(try LookupRequest.decode(from: body, strict: false).idToken == "t")
    }

    @Test func unknownFieldsOfNestedObjectsAreReportedWithTheirPlace() throws {
        let body = try object(#"{"users":[{"localId":"a"},{"localId":"b","providerUserInfo":[{"providerId":"x","rawId":"1","surprise":2}]}]}"#)
        #expect(throws: WireDecodingError.unknownNestedField("surprise", at: "users[1].providerUserInfo[0]")) {
            try BatchCreateRequest.decode(from: body, strict: true)
        }
        #expect(WireDecodingError.unknownNestedField("surprise", at: "users[1]").message
            == "Invalid JSON payload received. Unknown name \"surprise\" at 'users[1]': Cannot find field.")
        #expect(try BatchCreateRequest.decode(from: body, strict: false).users.count == 2)
        let clean = try object(#"{"users":[{"localId":"a","providerUserInfo":[{"providerId":"x","rawId":"1"}]}]}"#)
        #expect(try BatchCreateRequest.decode(from: clean, strict: true).users.first?.providerUserInfo.count == 1)
    }

    @Test func nullMeansAbsent() throws {
        var body = try object(#"{"email": null}"#)
        #expect(try body.string("email") == nil)
        #expect(!body.has("email"))
    }

    @Test(arguments: ["", "{", "[]", "\"x\"", "{\"a\":}", "nul"])
    func malformedBodies(_ text: String) {
        #expect(throws: WireDecodingError.self) { try WireObject(json: Data(text.utf8)) }
    }

    @Test func formBodies() throws {
        var body = WireObject(form: Data("grant_type=refresh_token&refresh_token=a%2Bb%3D&empty=".utf8))
        #expect(try body.string("grantType") == "refresh_token")
        #expect(try body.string("refreshToken") == "a+b=")
        #expect(try body.string("empty") == "")
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
        var body = try parse(#" { "s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "n": -1.5e3, "z": 0, "t": true, "f": false, "a": [1, "x", null, {}], "o": {"k": []} } "#)
        #expect(try body.string("s") == "a\"b\\c/d\né😀")
        #expect(try body.string("n") == "-1500")
        #expect(try body.int64("z") == 0)
        #expect(try body.bool("t") == true)
        #expect(try body.bool("f") == false)
        var nested = try #require(try body.object("o"))
        #expect(try nested.strings("k") == [])
        #expect(throws: WireDecodingError.wrongType(path: "/a/2", expected: "string")) { try body.strings("a") }
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
