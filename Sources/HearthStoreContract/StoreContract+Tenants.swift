import Foundation
import HearthCore

extension StoreContract {
    static func sampleTenant(_ id: String, project: String = "p-one") -> TenantRecord {
        var tenant = TenantRecord(projectID: project, id: id, displayName: "Tenant \(id)", allowPasswordSignup: true,
                                  mfa: MFASettings(state: .enabled, providers: [.totp]), testPhoneNumbers: ["+15555550100": "123456"])
        tenant.identityProviders = ["oidc.partner": IdentityProviderConfig(clientId: "partner", issuer: "https://partner.example")]
        tenant[.inheritsEmailSending] = true
        tenant[.enableImprovedEmailPrivacy] = true
        return tenant
    }

    /// Tenants, and the isolation of their users: the tenant is part of every key.
    public static let tenants: [StoreCheck] = [
        StoreCheck("tenants round-trip, list in id order page by page, and an id is taken once") { store in
            for id in ["t-c", "t-a", "t-b"] { try await store.insertTenant(sampleTenant(id)) }
            try await store.insertTenant(sampleTenant("t-a", project: "p-two"))
            try expect(try await store.tenant(projectID: "p-one", id: "t-a") == sampleTenant("t-a"), "reads back equal")
            try expect(try await store.tenant(projectID: "p-one", id: "t-z") == nil, "no such tenant")
            try await expectThrows(.conflict) { try await store.insertTenant(sampleTenant("t-b")) }
            let first = try await store.tenants(projectID: "p-one", after: nil, limit: 2).map(\.id)
            try expect(first == ["t-a", "t-b"], "first page \(first)")
            let rest = try await store.tenants(projectID: "p-one", after: "t-b", limit: 2).map(\.id)
            try expect(rest == ["t-c"], "second page \(rest)")
            try expect(try await store.tenants(projectID: "p-two", after: nil, limit: 10).map(\.id) == ["t-a"], "per project")
        },
        StoreCheck("a tenant update lands only on the version it read: racing read-modify-writes keep every change") { store in
            try await store.insertTenant(sampleTenant("t-race"))
            let stale = try await store.tenant(projectID: "p-one", id: "t-race")!
            var changed = stale
            changed.displayName = "renamed"
            let written = try await store.updateTenant(changed)
            try expect(written.version == stale.version + 1, "the version moves")
            var late = stale
            late[.disableAuth] = true
            try await expectThrows(.conflict) { _ = try await store.updateTenant(late) }
            try expect(try await store.tenant(projectID: "p-one", id: "t-race")?[.disableAuth] == false, "the stale write wrote nothing")
            // Eight writers each add their own test number, re-reading whenever another came first.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        while true {
                            var tenant = try await store.tenant(projectID: "p-one", id: "t-race")!
                            tenant.testPhoneNumbers["+1555555020\(index)"] = "00000\(index)"
                            do { _ = try await store.updateTenant(tenant); return } catch StoreError.conflict { continue }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let final = try await store.tenant(projectID: "p-one", id: "t-race")!
            try expect(final.testPhoneNumbers.count == 9 && final.displayName == "renamed", "every change kept: \(final)")
            try await expectThrows(.notFound) {
                _ = try await store.updateTenant(sampleTenant("t-none"))
            }
        },
        StoreCheck("one email, phone, identity and local id live in the project and in two tenants; no lookup crosses") { store in
            for tenant in [nil, "t-a", "t-b"] as [String?] {
                var user = sampleUser("same-id", email: "same@example.com")
                user.tenantID = tenant
                user.phoneNumber = "+15555550111"
                user.displayName = tenant ?? "project"
                try await store.insertUser(user, uniqueEmail: true)
            }
            for tenant in [nil, "t-a", "t-b"] as [String?] {
                let name = tenant ?? "project"
                let byEmail = try await store.user(projectID: "p-one", tenantID: tenant, email: "SAME@example.com")
                let byID = try await store.user(projectID: "p-one", tenantID: tenant, localID: "same-id")
                let byPhone = try await store.user(projectID: "p-one", tenantID: tenant, phoneNumber: "+15555550111")
                let byIdentity = try await store.user(projectID: "p-one", tenantID: tenant, providerID: "google.com", rawID: "g-same-id")
                let byIdentityEmail = try await store.users(projectID: "p-one", tenantID: tenant, identityEmail: "same@example.com", limit: 5)
                let listed = try await store.users(projectID: "p-one", tenantID: tenant, after: nil, limit: 10)
                let queried = try await store.queryUsers(projectID: "p-one", UserQuery(filter: .email("same@example.com"), tenantID: tenant))
                for found in [byEmail, byID, byPhone, byIdentity] + byIdentityEmail + listed + queried.users {
                    try expect(found?.displayName == name && found?.tenantID == tenant, "\(name) finds its own: \(String(describing: found))")
                }
                try expect(listed.count == 1 && queried.count == 1 && byIdentityEmail.count == 1, "one each in \(name)")
            }
            try expect(try await store.user(projectID: "p-one", tenantID: "t-c", email: "same@example.com") == nil, "not in another tenant")
        },
        StoreCheck("deleting a tenant removes it with its users, tokens and identities, and nothing of others") { store in
            for tenant in [nil, "t-a", "t-b"] as [String?] {
                if let tenant { try await store.insertTenant(sampleTenant(tenant)) }
                var user = sampleUser("u-\(tenant ?? "p")", email: "gone@example.com")
                user.tenantID = tenant
                user.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-shared", email: "gone@example.com")]
                try await store.insertUser(user, uniqueEmail: true)
                var refresh = token("r-\(tenant ?? "p")", user: user.localID)
                refresh.tenantID = tenant
                try await store.insertRefreshToken(refresh)
            }
            try expect(try await store.deleteTenant(projectID: "p-one", id: "t-a"), "deleted")
            try expect(try await !store.deleteTenant(projectID: "p-one", id: "t-a"), "already gone")
            try expect(try await store.tenant(projectID: "p-one", id: "t-a") == nil, "the tenant is gone")
            try expect(try await store.user(projectID: "p-one", tenantID: "t-a", localID: "u-t-a") == nil, "its user is gone")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "r-t-a") == nil, "its token is gone")
            try expect(try await store.user(projectID: "p-one", tenantID: "t-b", email: "gone@example.com") != nil, "another tenant's stays")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, email: "gone@example.com") != nil, "the project's stays")
            try expect(try await store.refreshToken(projectID: "p-one", digest: "r-t-b") != nil, "another tenant's token stays")
            // The identity is free again in the deleted tenant only: a new user there may take it.
            var again = sampleUser("u-again", email: "gone@example.com")
            again.tenantID = "t-a"
            again.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g-shared")]
            try await store.insertUser(again, uniqueEmail: true)
        },
    ]
}
