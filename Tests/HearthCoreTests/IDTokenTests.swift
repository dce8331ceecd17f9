import Foundation
import HearthCore
import Testing

@Suite struct IDTokenTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    let issuer = IDTokenIssuer()

    static func ring() async throws -> KeyRing {
        try KeyRing([try await SigningKey.generate(now: now)])
    }

    static let user = UserRecord(projectID: "demo-one", localID: "uid-1", email: "ada@example.com", emailVerified: true,
                                 displayName: "Ada", passwordHash: "x", validSince: 0, createdAt: now,
                                 customAttributes: #"{"role":"admin","level":3,"sub":"evil","firebase":"no"}"#)

    func payload(_ token: String) throws -> [String: Any] {
        let part = token.split(separator: ".")[1]
        return try #require(JSONSerialization.jsonObject(with: Base64URL.decode(part)!) as? [String: Any])
    }

    @Test func mintsFirebaseClaims() async throws {
        let ring = try await Self.ring()
        let session = SignInSession(signInProvider: "password", authTime: Self.now - 30, secondFactor: "totp",
                                    secondFactorID: "enr-1")
        let token = try issuer.mint(for: Self.user, session: session, projectID: "demo-one", keys: ring, now: Self.now)
        let header = try #require(JSONSerialization.jsonObject(with: Base64URL.decode(token.split(separator: ".")[0])!)
            as? [String: String])
        #expect(header == ["alg": "RS256", "kid": ring.active.kid, "typ": "JWT"])
        let claims = try payload(token)
        #expect(claims["iss"] as? String == "https://securetoken.google.com/demo-one")
        #expect(claims["aud"] as? String == "demo-one")
        #expect(claims["sub"] as? String == "uid-1")
        #expect(claims["user_id"] as? String == "uid-1")
        #expect((claims["exp"] as? Int) == 1_700_003_600)
        #expect((claims["iat"] as? Int) == 1_700_000_000)
        #expect((claims["auth_time"] as? Int) == 1_699_999_970)
        #expect(claims["email_verified"] as? Bool == true)
        #expect(claims["name"] as? String == "Ada")
        #expect(claims["role"] as? String == "admin", "custom claims at the top level")
        #expect((claims["level"] as? Int) == 3)
        #expect(claims["provider_id"] == nil, "provider_id is only for anonymous sign-ins")
        let firebase = try #require(claims["firebase"] as? [String: Any])
        #expect(firebase["sign_in_provider"] as? String == "password")
        #expect(firebase["sign_in_second_factor"] as? String == "totp")
        #expect(firebase["second_factor_identifier"] as? String == "enr-1")
        #expect((firebase["identities"] as? [String: [String]]) == ["email": ["ada@example.com"]])
    }

    @Test func verifiesItsOwnTokens() async throws {
        let ring = try await Self.ring()
        let token = try issuer.mint(for: Self.user, session: .init(signInProvider: "password", authTime: Self.now),
                                    projectID: "demo-one", keys: ring, now: Self.now)
        let claims = try issuer.verify(token, projectID: "demo-one", keys: ring, now: Self.now + 3599)
        #expect(claims.sub == "uid-1")
        #expect(claims.firebase?.signInProvider == "password")
        #expect(throws: TokenError.expired) {
            try issuer.verify(token, projectID: "demo-one", keys: ring, now: Self.now + 3600)
        }
        #expect(throws: TokenError.wrongAudience) {
            try issuer.verify(token, projectID: "demo-two", keys: ring, now: Self.now)
        }
        let otherRing = try await Self.ring()
        #expect(throws: TokenError.unknownKey) {
            try issuer.verify(token, projectID: "demo-one", keys: otherRing, now: Self.now)
        }
    }

    @Test func rejectsTamperedAndUnsignedTokens() async throws {
        let ring = try await Self.ring()
        let token = try issuer.mint(for: Self.user, session: .init(signInProvider: "password", authTime: Self.now),
                                    projectID: "demo-one", keys: ring, now: Self.now)
        let parts = token.split(separator: ".").map(String.init)
        var claims = try payload(token)
        claims["sub"] = "someone-else"
        let forged = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        #expect(throws: TokenError.badSignature) {
            try issuer.verify("\(parts[0]).\(forged).\(parts[2])", projectID: "demo-one", keys: ring, now: Self.now)
        }
        let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: TokenError.unsupportedAlgorithm) {
            try issuer.verify("\(none).\(parts[1]).", projectID: "demo-one", keys: ring, now: Self.now)
        }
        let hs = Base64URL.encode(Data(#"{"alg":"HS256","kid":"\#(ring.active.kid)"}"#.utf8))
        #expect(throws: TokenError.unsupportedAlgorithm) {
            try issuer.verify("\(hs).\(parts[1]).\(parts[2])", projectID: "demo-one", keys: ring, now: Self.now)
        }
        for garbage in ["", "garbage", "a.b", "a.b.c.d", "!!!.###.$$$"] {
            #expect(throws: TokenError.malformed) {
                try issuer.verify(garbage, projectID: "demo-one", keys: ring, now: Self.now)
            }
        }
    }

    @Test func anonymousSessionsCarryProviderID() async throws {
        let ring = try await Self.ring()
        let anonymous = UserRecord(projectID: "demo-one", localID: "anon", validSince: 0, createdAt: Self.now)
        let token = try issuer.mint(for: anonymous, session: .init(signInProvider: "anonymous", authTime: Self.now),
                                    projectID: "demo-one", keys: ring, now: Self.now)
        let claims = try payload(token)
        #expect(claims["provider_id"] as? String == "anonymous")
        #expect(claims["email"] == nil)
        #expect((claims["firebase"] as? [String: Any])?["identities"] as? [String: [String]] == [:])
    }
}

@Suite struct Base64URLTests {
    @Test(arguments: 0..<40)
    func roundTripsAndMatchesFoundation(_ length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let encoded = Base64URL.encode(bytes)
        let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(encoded == foundation)
        #expect(Base64URL.decode(encoded) == Data(bytes))
    }

    @Test(arguments: ["a", "ab+c", "ab/c", "a b", "abcde", "é"])
    func rejectsWhatIsNotBase64URL(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

@Suite struct VerifiedTokenCacheTests {
    @Test func cachedTokensStillExpireAndDieWithTheirKey() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let issuer = IDTokenIssuer()
        let record = try await SigningKey.generate(now: now)
        let ring = try KeyRing([record])
        let user = UserRecord(projectID: "demo-one", localID: "u1", validSince: 0, createdAt: now)
        let token = try issuer.mint(for: user, session: .init(signInProvider: "anonymous", authTime: now),
                                    projectID: "demo-one", keys: ring, now: now)
        _ = try issuer.verify(token, projectID: "demo-one", keys: ring, now: now)
        #expect(try issuer.verify(token, projectID: "demo-one", keys: ring, now: now + 10).sub == "u1", "a hit")
        #expect(throws: TokenError.expired) { try issuer.verify(token, projectID: "demo-one", keys: ring, now: now + 3600) }
        #expect(throws: TokenError.wrongAudience) { try issuer.verify(token, projectID: "demo-two", keys: ring, now: now) }
        let rotated = try KeyRing([try await SigningKey.generate(now: now)])
        #expect(throws: TokenError.unknownKey) { try issuer.verify(token, projectID: "demo-one", keys: rotated, now: now) }
    }
}

/// Key rotation as `hearth keys` drives it: a new key is published before it signs, a retired key stops signing at
/// once and keeps verifying until its tokens have expired, and the ring says when it next changes.
@Suite struct KeyRingRotationTests {
    @Test func aKeyIsPublishedBeforeItSignsAndVerifiesAfterItRetires() async throws {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let issuer = IDTokenIssuer()
        let user = UserRecord(projectID: "demo-one", localID: "u1", validSince: 0, createdAt: t0)
        let old = try await SigningKey.generate(now: t0)
        var next = try await SigningKey.generate(now: t0)
        next.activatesAt = t0 + 100
        var records = [old, next]

        let before = try KeyRing(records, now: t0)
        #expect(before.active.kid == old.kid && before.all.map(\.kid) == [old.kid, next.kid], "published, not yet signing")
        #expect(before.nextChange == t0 + 100)
        let oldToken = try issuer.mint(for: user, session: .init(signInProvider: "password", authTime: t0),
                                       projectID: "demo-one", keys: before, now: t0)

        let after = try KeyRing(records, now: t0 + 100)
        #expect(after.active.kid == next.kid && after.nextChange == nil)
        #expect(try issuer.verify(oldToken, projectID: "demo-one", keys: after, now: t0 + 101).sub == "u1")

        records[0].retiredAt = t0 + 200
        let retired = try KeyRing(records, now: t0 + 200)
        #expect(retired.active.kid == next.kid && retired.all.count == 2, "retired, still published")
        #expect(retired.nextChange == t0 + 200 + KeyRing.retention)
        #expect(try issuer.verify(oldToken, projectID: "demo-one", keys: retired, now: t0 + 201).sub == "u1")

        let gone = try KeyRing(records, now: t0 + 200 + KeyRing.retention)
        #expect(gone.all.map(\.kid) == [next.kid] && gone.byKid[old.kid] == nil, "past retention: unpublished")

        // Retiring every key leaves the newest to sign rather than none (the CLI refuses to get here).
        records[1].retiredAt = t0 + 300
        #expect(try KeyRing(records, now: t0 + 300).active.kid == next.kid)
    }
}
