import Foundation
import HearthCore
@testable import HearthServer
import Logging
import Synchronization
import HearthWire
import Testing

/// Abuse controls as Identity Platform has them, through the config and a tenant: `autodeleteAnonymousUsers` (the cleanup
/// runs at most once a day, however often housekeeping does) and `smsRegionConfig`.
@Suite struct AbuseControlsConfigTests {
    @Test func theSwitchRoundTripsOnTheProjectAndATenant() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            let on = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, config + "?updateMask=autodeleteAnonymousUsers",
                                                         ["autodeleteAnonymousUsers": true])
            #expect(on["autodeleteAnonymousUsers"] as? Bool == true, "\(on.text)")
            #expect(try await app.store.project(id: "demo-project")?.settings[.autodeleteAnonymousUsers] == true)
            let tenant = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                             config.replacingOccurrences(of: "/config", with: "/tenants/acme-a1b2c")
                                                                 + "?updateMask=autodeleteAnonymousUsers",
                                                             ["autodeleteAnonymousUsers": true])
            #expect(tenant["autodeleteAnonymousUsers"] as? Bool == true, "\(tenant.text)")
            #expect(try await app.store.tenant(projectID: "demo-project", id: "acme-a1b2c")?[.autodeleteAnonymousUsers] == true)
        }
    }

    /// Two instances on one store: each interval one of them purges, and the daily cleanup runs once a day.
    @Test func theCleanupRunsOnceADayAcrossInstances() async throws {
        let store = InMemoryStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.5))
        let runs = Mutex(0)
        func instance() -> Housekeeper {
            var housekeeper = Housekeeper(store: store, clock: clock, interval: .seconds(600), auditRetention: nil,
                                          logger: Logger(label: "test"))
            housekeeper.anonymousCleanup = { _ in runs.withLock { $0 += 1 }; return 0 }
            return housekeeper
        }
        let (a, b) = (instance(), instance())
        for step in 0..<5 {
            async let first = a.pass()
            async let second = b.pass()
            let purged = [await first, await second].compactMap { $0 }
            #expect(purged.count == 1, "step \(step): one instance purges per interval")
            clock.advance(by: 600)
        }
        #expect(runs.withLock { $0 } == 1, "once in the first day")
        clock.advance(by: 86_400)
        _ = await (a.pass(), b.pass())
        #expect(runs.withLock { $0 } == 2, "and once in the next")
    }

    /// `smsRegionConfig` on the project and a tenant: a code for a number outside it is refused with Firebase's
    /// words and nothing is sent; the second factors' codes follow it too (one path sends every code).
    @Test func smsRegionsHoldPhoneCodes() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            let set = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, config + "?updateMask=smsRegionConfig",
                                                          ["smsRegionConfig": ["allowlistOnly": ["allowedRegions": ["us"]]]])
            #expect((set["smsRegionConfig"] as? [String: Any])?["allowlistOnly"] as? [String: [String]] == ["allowedRegions": ["US"]],
                    "\(set.text)")
            let send = Endpoints.sendVerificationCode.path
            let canada = try await client.post(send, ["phoneNumber": "+14165550100"])
            #expect(canada.errorMessage == "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer.",
                    "\(canada.text)")
            let us = try await client.post(send, ["phoneNumber": "+16505550100"])
            #expect(us["sessionInfo"] != nil, "\(us.text)")
            #expect(app.sms.messages.map(\.phoneNumber) == ["+16505550100"], "nothing sent to Canada")

            let tenant = config.replacingOccurrences(of: "/config", with: "/tenants/acme-a1b2c")
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, tenant + "?updateMask=smsRegionConfig",
                                                    ["smsRegionConfig": ["allowByDefault": ["disallowedRegions": ["US"]]]])
            let tenantUS = try await client.post(send, ["phoneNumber": "+16505550101", "tenantId": "acme-a1b2c"])
            #expect(tenantUS.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "the tenant's own list: \(tenantUS.text)")
            let tenantCA = try await client.post(send, ["phoneNumber": "+14165550101", "tenantId": "acme-a1b2c"])
            #expect(tenantCA["sessionInfo"] != nil, "\(tenantCA.text)")

            let both = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, config + "?updateMask=smsRegionConfig",
                                                           ["smsRegionConfig": ["allowByDefault": [:], "allowlistOnly": [:]]])
            #expect(both.errorMessage?.hasPrefix("INVALID_CONFIG") == true, "\(both.text)")
        }
    }
}
