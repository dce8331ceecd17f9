import Foundation
import HearthWire
import Testing

/// The reply writer against Foundation's `JSONEncoder` with the options replies were written with: the same bytes.
@Suite struct WireJSONEncoderTests {
    func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func written(_ value: some Encodable) throws -> String {
        String(decoding: try WireJSONEncoder.encode(value), as: UTF8.self)
    }

    @Test func aFullUserWritesAsFoundationWritesIt() throws {
        let json = """
            {"kind": "identitytoolkit#GetAccountInfoResponse", "users": [{"localId": "u1", "email": "ada@example.com", "emailVerified": true, "displayName": "Ada \\"A\\" Lovelace",
             "photoUrl": "https://example.com/a/b.png?x=1&y=2", "phoneNumber": "+15555550100", "disabled": false,
             "passwordHash": "UkVEQUNURUQ=", "salt": "c2FsdA==", "passwordUpdatedAt": 1700000000123, "validSince": "1700000000",
             "lastLoginAt": "1700000000456", "createdAt": "1690000000000", "lastRefreshAt": "2026-11-29T07:00:00.123Z",
             "customAttributes": "{\\"role\\":\\"admin\\",\\"n\\":[1,2]}", "tenantId": "t-1", "screenName": "ada",
             "initialEmail": "old@example.com", "emailLinkSignin": true, "customAuth": true,
             "providerUserInfo": [{"providerId": "password", "rawId": "ada@example.com", "federatedId": "ada@example.com",
                                   "email": "ada@example.com"},
                                  {"providerId": "google.com", "rawId": "123", "displayName": "Ada Ü 😀", "screenName": "a"}],
             "mfaInfo": [{"mfaEnrollmentId": "e1", "displayName": "phone", "phoneInfo": "+1555***0100",
                          "enrolledAt": "2026-11-29T07:00:00Z"},
                         {"mfaEnrollmentId": "e2", "totpInfo": {}}],
             "passkeyInfo": [{"credentialId": "cred", "name": "laptop"}]}]}
            """
        let response = try JSONDecoder().decode(LookupResponse.self, from: Data(json.utf8))
        #expect(try written(response) == foundation(response))
        #expect(try written(LookupResponse(users: nil)) == foundation(LookupResponse(users: nil)))
        #expect(try written(LookupResponse(users: [])) == foundation(LookupResponse(users: [])))
    }

    /// Keys in every case and with digits, at several depths: `.sortedKeys`' order.
    @Test func keysComeInFoundationsOrder() throws {
        let keys = ["b", "a", "B", "A", "_x", "Z9", "a10", "a9", "a1", "aB", "ab", "Ab", "kind", "localId", "lastLoginAt",
                    "", "z", "~", "0", " "]
        let inner = Dictionary(uniqueKeysWithValues: keys.map { ($0, $0.count) })
        let outer = Dictionary(uniqueKeysWithValues: keys.map { ($0, inner) })
        #expect(try written(outer) == foundation(outer))
        #expect(try written([outer, [:]]) == foundation([outer, [:]]))
    }

    /// Every ASCII character, quotes, backslashes, slashes, and text beyond ASCII.
    @Test func stringsAreEscapedAsFoundationEscapesThem() throws {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let strings = [ascii, "", "/a/b/", "\\\"", "Ünïcödé", "😀 \u{2028} \u{2029} \u{7F}", "a\u{0}b"]
        #expect(try written(strings) == foundation(strings))
        #expect(try written(["k": ascii]) == foundation(["k": ascii]))
    }

    /// Doubles, floats and integers at their edges.
    @Test func numbersAreWrittenAsFoundationWritesThem() throws {
        let doubles: [Double] = [0, -0.0, 1, -1, 1.5, 0.1 + 0.2, 1e20, 1e21, 1e-7, 123456789012345680000, 1700000000000,
                                 1700000000123.5, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -2.5e-300]
        #expect(try written(doubles) == foundation(doubles))
        let floats: [Float] = [0, 1.25, 3.4e38, 1e-10, 16777216]
        #expect(try written(floats) == foundation(floats))
        let integers: [Int64] = [.min, -1, 0, 1, .max]
        #expect(try written(integers) == foundation(integers))
        #expect(try written([UInt64.max, 0]) == foundation([UInt64.max, 0]))
        #expect(try written([Int8.min, Int8.max]) == foundation([Int8.min, Int8.max]))
    }

    struct Mixed: Encodable {
        var optionals: [String?] = ["a", nil, "b"]
        var bytes = Data([0, 1, 2, 250, 255])
        var url = URL(string: "https://example.com/path?q=1")!
        var nested: [[Int]] = [[], [1], [2, 3]]
        var empty: [String: String] = [:]
        var flag = false
        var missing: String? = nil
        var when = Date(timeIntervalSinceReferenceDate: 12.5)
    }

    @Test func dataURLsOptionalsAndNestingAsFoundation() throws {
        #expect(try written(Mixed()) == foundation(Mixed()))
    }

    struct Explicit: Encodable {
        enum CodingKeys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeNil(forKey: .b)
            try container.encode(1, forKey: .a)
        }
    }

    struct Twice: Encodable {
        enum CodingKeys: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .a)
            try container.encode(2, forKey: .a)
        }
    }

    struct Nested: Encodable {
        enum CodingKeys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .a)
            try inner.encode(1, forKey: .b)
        }
    }

    /// What it does not cover it refuses, so that the caller asks Foundation; nothing is written half right.
    @Test func whatItDoesNotCoverItRefuses() throws {
        #expect(try written(Explicit()) == foundation(Explicit()))
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode([Double.nan]) }
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode(Twice()) }
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode(Nested()) }
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode([Decimal(1)]) }
        // Keys are compared as bytes: one beyond ASCII, or one to escape, is left to Foundation.
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode(["é": 1, "e": 2]) }
        #expect(throws: WireJSONEncoder.Unsupported.self) { try WireJSONEncoder.encode(["a\"b": 1]) }
    }
}
