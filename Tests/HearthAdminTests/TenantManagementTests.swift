import Foundation
@testable import HearthAdmin
import HearthWire
import Testing

/// HearthAdmin's tenants against a production-mode server: tenants managed with a service account's assertions,
/// and a tenant's handle whose users, custom tokens and token checks stay in that tenant.
@Suite struct TenantManagementTests {
    @Test func tenantsAndTheirUsers() async throws {
        try await LiveHearth.run { hearth in
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile))
            let acme = try await admin.createTenant(TenantChanges(displayName: "Acme", allowPasswordSignup: true))
            let globex = try await admin.createTenant(TenantChanges(displayName: "Globex"))
            #expect(acme.allowPasswordSignup && !globex.allowPasswordSignup && acme.tenantId != globex.tenantId)
            let renamed = try await admin.updateTenant(acme.tenantId, TenantChanges(displayName: "Acme-Corp"))
            #expect(renamed.displayName == "Acme-Corp" && renamed.allowPasswordSignup, "only the named field changes")
            #expect(try await admin.getTenant(acme.tenantId) == renamed)
            let first = try await admin.listTenants(pageSize: 1)
            let second = try await admin.listTenants(pageSize: 1, pageToken: first.nextPageToken)
            #expect(Set((first.tenants + second.tenants).map(\.tenantId)) == [acme.tenantId, globex.tenantId])

            let acmeUsers = admin.forTenant(acme.tenantId)
            let ada = try await acmeUsers.createUser(AdminCreateAccountRequest(localId: "ada", email: "ada@example.com",
                                                                               password: "secret123"))
            #expect(ada.tenantId == acme.tenantId)
            _ = try await admin.createUser(AdminCreateAccountRequest(localId: "ada", email: "ada@example.com", password: "secret123"))
            #expect(try await acmeUsers.listUsers().users.map(\.localId) == ["ada"])
            #expect(try await admin.listUsers().users.map { $0.tenantId } == [nil], "the project's list is its own")

            let custom = try await acmeUsers.createCustomToken(uid: "ada")
            let signedIn = try await hearth.client(Endpoints.signInWithCustomToken.path,
                                                   ["token": custom, "tenantId": acme.tenantId])
            let idToken = try #require(signedIn["idToken"] as? String, "\(signedIn)")
            #expect(try await acmeUsers.verifyIDToken(idToken, checkRevoked: true).uid == "ada")
            await #expect(throws: HearthAdminError.tenantMismatch(expected: nil, found: acme.tenantId)) {
                try await admin.verifyIDToken(idToken)
            }
            await #expect(throws: HearthAdminError.tenantMismatch(expected: globex.tenantId, found: acme.tenantId)) {
                try await admin.forTenant(globex.tenantId).verifyIDToken(idToken)
            }
            let elsewhere = try await hearth.client(Endpoints.signInWithCustomToken.path,
                                                    ["token": custom, "tenantId": globex.tenantId])
            #expect("\(elsewhere)".contains("TENANT_ID_MISMATCH"), "\(elsewhere)")

            try await admin.deleteTenant(acme.tenantId)
            await #expect(throws: HearthAdminError.self) { try await admin.getTenant(acme.tenantId) }
            #expect(try await admin.getUser(uid: "ada").tenantId == nil, "the project's ada stays")
        }
    }
}
