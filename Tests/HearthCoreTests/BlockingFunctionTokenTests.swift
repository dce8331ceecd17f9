import Foundation
import HearthCore
import Testing

/// What Hearth sends a blocking function and how it reads the answer (the round trip with the real
/// firebase-functions SDK is `BlockingFunctionsEndToEndTests`).
@Suite struct BlockingFunctionTokenTests {
    static func reply(_ json: String, event: String = "beforeSignIn") throws -> BlockingFunctionReply {
        try BlockingFunctionReply(body: Data(json.utf8), event: event)
    }

    @Test func onlyTheMaskedFieldsAreApplied() throws {
        let reply = try Self.reply(#"{"userRecord":{"updateMask":"displayName,customClaims,sessionClaims","displayName":"Ada","photoURL":"https://x","customClaims":{"a":1},"sessionClaims":{"s":true}}}"#)
        var user = UserRecord(projectID: "p", localID: "u", validSince: 0, createdAt: Date())
        user.photoURL = "https://kept"
        let session = reply.apply(to: &user)
        #expect(user.displayName == "Ada" && user.photoURL == "https://kept" && user.customAttributes == #"{"a":1}"#)
        #expect(session == #"{"s":true}"#)
        let created = try Self.reply(#"{"userRecord":{"updateMask":"sessionClaims","sessionClaims":{"s":true}}}"#, event: "beforeCreate")
        #expect(created.sessionClaims == nil, "session claims are for sign-ins only")
        #expect(try Self.reply("{}").apply(to: &user) == nil, "an empty answer changes nothing")
    }

    @Test(arguments: [
        ("not json", "((Response body is not valid JSON.))"),
        (#"{"userRecord":{"displayName":"x"}}"#, "((Response UserRecord is missing updateMask.))"),
        (#"{"userRecord":{"updateMask":"customClaims","customClaims":"text"}}"#, "((Response has malformed customClaims.))"),
        (#"{"userRecord":{"updateMask":"customClaims","customClaims":{"iss":"me"}}}"#, "((customClaims uses the reserved claim iss.))"),
        (#"{"userRecord":{"updateMask":"sessionClaims","sessionClaims":{"firebase":{}}}}"#, "((sessionClaims uses the reserved claim firebase.))"),
    ])
    func unusableAnswersAreRefused(_ body: String, _ detail: String) {
        #expect(throws: AuthFailure.blockingFunctionError(detail)) { try Self.reply(body) }
    }

    @Test func claimsAreLimitedAloneAndTogether() throws {
        let long = String(repeating: "x", count: 600)
        #expect(throws: AuthFailure.blockingFunctionError("((customClaims exceed 1000 characters.))")) {
            try Self.reply(#"{"userRecord":{"updateMask":"customClaims","customClaims":{"a":"\#(long)\#(long)"}}}"#)
        }
        #expect(throws: AuthFailure.blockingFunctionError("((customClaims and sessionClaims exceed 1000 characters combined.))")) {
            try Self.reply(#"{"userRecord":{"updateMask":"customClaims,sessionClaims","customClaims":{"a":"\#(long)"},"sessionClaims":{"b":"\#(long)"}}}"#)
        }
    }

    /// The JWT carries Firebase's claims, signed with the project's key under its `kid`, and forwards the
    /// provider's credentials only as the project says.
    @Test func theTokenCarriesFirebasesClaims() async throws {
        let store = InMemoryStore()
        let directory = ProjectDirectory(store: store, clock: SystemClock(), defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        let project = try await directory.contextCreatingIfNeeded(for: "hooks")
        var user = UserRecord(projectID: "hooks", localID: "u-1", email: "ada@example.com", validSince: 0, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        user.customAttributes = #"{"role":"admin"}"#
        var facts = AccountEvent(signInMethod: "google.com", isNewUser: true)
        facts.oauthIDToken = "idp-id-token"
        facts.oauthAccessToken = "idp-access-token"
        var forwarding = BlockingFunctions()
        forwarding.forwardIDToken = true
        let jwt = try CallerInfo.$current.withValue(CallerInfo(ipAddress: "203.0.113.9", userAgent: "ua/1", locale: "fr")) {
            try BlockingFunctionToken.sign(event: "beforeCreate", user: user, facts: facts, functionURI: "https://fn.run.app",
                                           forwarding: forwarding, project: project,
                                           issuerPrefix: "https://securetoken.google.com/", now: Date(timeIntervalSince1970: 1_800_000_000))
        }
        let payload = try JWS.verify(jwt, keys: project.keys)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(claims["iss"] as? String == "https://securetoken.google.com/hooks" && claims["aud"] as? String == "https://fn.run.app")
        #expect(claims["event_type"] as? String == "beforeCreate" && claims["sign_in_method"] as? String == "google.com")
        #expect(claims["ip_address"] as? String == "203.0.113.9" && claims["user_agent"] as? String == "ua/1" && claims["locale"] as? String == "fr")
        #expect(claims["oauth_id_token"] as? String == "idp-id-token" && claims["oauth_access_token"] == nil, "only what is forwarded")
        let record = try #require(claims["user_record"] as? [String: Any])
        #expect(record["uid"] as? String == "u-1" && record["email"] as? String == "ada@example.com")
        #expect((record["metadata"] as? [String: Any])?["creation_time"] as? Int64 == 1_700_000_000_000)
        #expect((record["custom_claims"] as? [String: String]) == ["role": "admin"])
    }

    /// An email or SMS event's token names the address or number and the message type, and (as Identity
    /// Platform's) no `sub` or `user_record`; the answer's `recaptchaActionOverride` is read and checked.
    @Test func sendEventsCarryTheMessageAndReadTheOverride() async throws {
        let directory = ProjectDirectory(store: InMemoryStore(), clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        let project = try await directory.contextCreatingIfNeeded(for: "hooks")
        let message = OutgoingMessage(.email(type: "PASSWORD_RESET", address: "ada@example.com"), localID: "u-1", tenantID: "acme-1")
        let jwt = try BlockingFunctionToken.sign(message: message, functionURI: "https://fn.run.app", project: project,
                                                 issuerPrefix: "https://securetoken.google.com/", now: Date())
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(try JWS.verify(jwt, keys: project.keys))) as? [String: Any])
        #expect(claims["event_type"] as? String == "beforeSendEmail" && claims["email_type"] as? String == "PASSWORD_RESET")
        #expect(claims["email"] as? String == "ada@example.com" && claims["tenant_id"] as? String == "acme-1")
        #expect(claims["sub"] == nil && claims["user_record"] == nil)
        let sms = OutgoingMessage(.sms(type: "MULTI_FACTOR_SIGN_IN", phoneNumber: "+15555550100"), localID: nil, tenantID: nil)
        let smsJWT = try BlockingFunctionToken.sign(message: sms, functionURI: "https://fn.run.app", project: project,
                                                    issuerPrefix: "https://securetoken.google.com/", now: Date())
        let smsClaims = try #require(try JSONSerialization.jsonObject(with: Data(try JWS.verify(smsJWT, keys: project.keys))) as? [String: Any])
        #expect(smsClaims["event_type"] as? String == "beforeSendSms" && smsClaims["sms_type"] as? String == "MULTI_FACTOR_SIGN_IN")
        #expect(smsClaims["phone_number"] as? String == "+15555550100")

        #expect(try Self.reply(#"{"recaptchaActionOverride":"BLOCK"}"#, event: "beforeSendEmail").recaptchaAction == "BLOCK")
        #expect(try Self.reply("{}", event: "beforeSendSms").recaptchaAction == nil)
        #expect(throws: AuthFailure.blockingFunctionError("((Response has an invalid recaptchaActionOverride.))")) {
            try Self.reply(#"{"recaptchaActionOverride":"MAYBE"}"#, event: "beforeSendSms")
        }
        let ignored = try Self.reply(#"{"userRecord":{"updateMask":"displayName","displayName":"x"}}"#, event: "beforeSendEmail")
        #expect(ignored.displayName == nil, "an email's answer changes no account")
    }
}
