import Foundation
import HearthCore
@testable import HearthServer
import HearthWire
import Testing

/// SMS pumping: codes to one number prefix are budgeted per hour, and many distinct numbers of one prefix in a short
/// window halt it — refused with `QUOTA_EXCEEDED`, audited, listed for the console and liftable by an operator.
@Suite struct SMSHaltRoutesTests {
    static let send = Endpoints.sendVerificationCode.path
    static let halts = "/identitytoolkit.googleapis.com/v1/projects/demo-project/smsHalts"

    static func app(distinct: Int = 3, perPrefix: Int = 100) -> TestApp {
        var app = CredentialGuardsTests.productionApp()
        app.configuration.rateLimits.smsPumping = .init(distinctNumbersPerPrefix: .init(limit: distinct, window: 600), halt: 3600)
        app.configuration.rateLimits.smsPerPrefix = .init(limit: perPrefix, window: 3600)
        return app
    }

    @Test func manyNumbersOfOnePrefixHaltItUntilLifted() async throws {
        let app = Self.app()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            for number in ["+16505550101", "+16505550102", "+16505550102", "+16505550103"] {
                let sent = try await client.post(Self.send, ["phoneNumber": number])
                #expect(sent["sessionInfo"] != nil, "\(number): \(sent.text)")
            }
            let refused = try await client.post(Self.send, ["phoneNumber": "+16505550104"])
            #expect(refused.errorMessage == "QUOTA_EXCEEDED", "\(refused.text)")
            let known = try await client.post(Self.send, ["phoneNumber": "+16505550101"])
            #expect(known.errorMessage == "QUOTA_EXCEEDED", "a number sent to before is in the prefix too: \(known.text)")
            let tenant = try await client.post(Self.send, ["phoneNumber": "+16505550105", "tenantId": "acme-a1b2c"])
            #expect(tenant.errorMessage == "QUOTA_EXCEEDED", "the project pays for its tenants' SMS: \(tenant.text)")
            let elsewhere = try await client.post(Self.send, ["phoneNumber": "+14155550100"])
            #expect(elsewhere["sessionInfo"] != nil, "another prefix is not halted: \(elsewhere.text)")
            #expect(app.sms.messages.count == 5, "nothing sent while halted")

            let audited = try await app.store.auditEvents(projectID: "demo-project",
                                                          AuditQuery(kinds: [SMSPumpingWatch.auditKind], limit: 10))
            #expect(audited.count == 1 && audited.first?.details["prefix"] == "+1650555" && audited.first?.details["numbers"] == "3",
                    "\(audited)")
            let listed = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get, Self.halts, nil)
            let halts = try #require(listed["halts"] as? [[String: Any]], "\(listed.text)")
            #expect(halts.count == 1 && halts.first?["prefix"] as? String == "+1650555" && halts.first?["numbers"] as? Int == 3)
            let anonymous = try await client.send(.get, Self.halts, nil, key: TestApp.apiKey)
            #expect(anonymous.errorMessage?.hasPrefix("INSUFFICIENT_PERMISSION") == true, "admin only: \(anonymous.text)")

            let lifted = try await PasswordPolicyRoutesTests.admin(client, app, signer, .delete, Self.halts + "/1650555", nil)
            #expect(lifted.status == 200, "\(lifted.text)")
            let again = try await PasswordPolicyRoutesTests.admin(client, app, signer, .delete, Self.halts + "/1650555", nil)
            #expect(again.status == 404, "nothing left to lift")
            let bad = try await PasswordPolicyRoutesTests.admin(client, app, signer, .delete, Self.halts + "/16%2F50", nil)
            #expect(bad.status == 404)
            let resumed = try await client.post(Self.send, ["phoneNumber": "+16505550106"])
            #expect(resumed["sessionInfo"] != nil, "sent again after the lift: \(resumed.text)")
            let liftAudit = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["sms-prefix-lifted"], limit: 5))
            #expect(liftAudit.count == 1)
        }
    }

    @Test func aHaltEndsByItself() async throws {
        let app = Self.app(distinct: 2)
        _ = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            for number in ["+447700900101", "+447700900102"] { _ = try await client.post(Self.send, ["phoneNumber": number]) }
            #expect(try await client.post(Self.send, ["phoneNumber": "+447700900103"]).errorMessage == "QUOTA_EXCEEDED")
            app.clock.advance(by: 3601)
            let after = try await client.post(Self.send, ["phoneNumber": "+447700900103"])
            #expect(after["sessionInfo"] != nil, "\(after.text)")
        }
    }

    /// A number's budget is keyed by its E.164 form: two spellings of one number share it, and the code goes to the
    /// normalized number.
    @Test func oneNumberHowEverItIsWrittenHasOneBudget() async throws {
        var configured = Self.app(distinct: 100)
        configured.configuration.rateLimits.smsPerNumber = .init(limit: 1, window: 3600)
        let app = configured
        _ = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let first = try await client.post(Self.send, ["phoneNumber": "+44 07700 900123"])
            #expect(first["sessionInfo"] != nil, "\(first.text)")
            let second = try await client.post(Self.send, ["phoneNumber": "+447700900123"])
            #expect(second.errorMessage == "QUOTA_EXCEEDED", "the same number: \(second.text)")
            #expect(app.sms.messages.map(\.phoneNumber) == ["+447700900123"])
        }
    }

    /// The hourly budget per prefix holds however the numbers are spread; test numbers count towards nothing.
    @Test func aPrefixHasAnHourlyBudget() async throws {
        let app = Self.app(distinct: 100, perPrefix: 3)
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, config + "?updateMask=signIn.phoneNumber.testPhoneNumbers",
                                                    ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+16505550199": "123456"]]]])
            for _ in 0..<5 { #expect(try await client.post(Self.send, ["phoneNumber": "+16505550199"])["sessionInfo"] != nil) }
            for number in ["+16505550101", "+16505550102", "+16505550103"] {
                #expect(try await client.post(Self.send, ["phoneNumber": number])["sessionInfo"] != nil)
            }
            #expect(try await client.post(Self.send, ["phoneNumber": "+16505550104"]).errorMessage == "QUOTA_EXCEEDED")
            #expect(try await client.post(Self.send, ["phoneNumber": "+16505560104"])["sessionInfo"] != nil, "another prefix")
            #expect(app.sms.messages.count == 4)
        }
    }
}
