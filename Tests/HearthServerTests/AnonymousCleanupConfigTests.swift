import Foundation
import HearthCore
@testable import HearthServer
import Testing

/// `autodeleteAnonymousUsers` through the config and a tenant, as Identity Platform's Admin SDKs set it; the cleanup
/// runs at most once a day, however often housekeeping does.
@Suite struct AnonymousCleanupConfigTests {
    @Test func theSwitchRoundTripsOnTheProjectAndATenant() async throws {
        let app = AdminAuthTests.productionApp()
        let signer = try await AdminAuthTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
            let on = try await PasswordPolicyTests.admin(client, app, signer, .patch, config + "?updateMask=autodeleteAnonymousUsers",
                                                         ["autodeleteAnonymousUsers": true])
            #expect(on["autodeleteAnonymousUsers"] as? Bool == true, "\(on.text)")
            #expect(try await app.store.project(id: "demo-project")?.settings.autodeleteAnonymousUsers == true)
            let tenant = try await PasswordPolicyTests.admin(client, app, signer, .patch,
                                                             config.replacingOccurrences(of: "/config", with: "/tenants/acme-a1b2c")
                                                                 + "?updateMask=autodeleteAnonymousUsers",
                                                             ["autodeleteAnonymousUsers": true])
            #expect(tenant["autodeleteAnonymousUsers"] as? Bool == true, "\(tenant.text)")
            #expect(try await app.store.tenant(projectID: "demo-project", id: "acme-a1b2c")?.autodeleteAnonymousUsers == true)
        }
    }

    @Test func theCleanupRunsOnceADay() {
        let last = Housekeeper.LastRun()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(last.claim(start))
        #expect(!last.claim(start + 600) && !last.claim(start + 86_399))
        #expect(last.claim(start + 86_400))
    }
}
