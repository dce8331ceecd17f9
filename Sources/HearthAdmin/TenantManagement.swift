import Foundation
import HearthWire
import NIOHTTP1

/// A tenant's sign-in switches, for ``HearthAdmin/createTenant(_:)`` and ``HearthAdmin/updateTenant(_:_:)``: each
/// `nil` field is left as it is (on create: Firebase's default, off). The wire's own tenant patch.
public typealias TenantChanges = TenantPatch

/// Identity Platform tenants, as firebase-admin's `tenant_mgt`: manage them, and get a handle on one tenant's users.
///
/// ```swift
/// let acme = try await admin.createTenant(TenantChanges(displayName: "Acme", allowPasswordSignup: true))
/// let acmeUsers = admin.forTenant(acme.tenantId)
/// let ada = try await acmeUsers.createUser(AdminCreateAccountRequest(email: "ada@acme.example", password: "…"))
/// try await acmeUsers.verifyIDToken(token)   // refuses tokens of other tenants
/// ```
extension HearthAdmin {
    /// The same credentials, managing `tenantID`'s users: every user call, custom token and token check is that
    /// tenant's.
    public func forTenant(_ tenantID: String) -> HearthAdmin {
        var scoped = self
        scoped.tenantID = tenantID
        return scoped
    }

    public func createTenant(_ tenant: TenantChanges) async throws -> TenantResource {
        try await call(Endpoints.createTenant, tenant)
    }

    public func getTenant(_ id: String) async throws -> TenantResource {
        try await call(Endpoints.getTenant, nil, parameters: ["tenantID": id])
    }

    /// Applies the fields `changes` sets, and only those.
    public func updateTenant(_ id: String, _ changes: TenantChanges) async throws -> TenantResource {
        try await call(Endpoints.updateTenant, changes, parameters: ["tenantID": id],
                       query: "?updateMask=" + changes.presentPaths.sorted().joined(separator: ","))
    }

    /// Deletes the tenant and its users.
    public func deleteTenant(_ id: String) async throws {
        _ = try await call(Endpoints.deleteTenant, nil, parameters: ["tenantID": id])
    }

    /// One page of tenants in id order; pass the returned token to get the next (`nil` at the end).
    public func listTenants(pageSize: Int = 100, pageToken: String? = nil) async throws
        -> (tenants: [TenantResource], nextPageToken: String?) {
        var query = "?pageSize=\(pageSize)"
        if let pageToken { query += "&pageToken=" + Self.escaped(pageToken) }
        let page = try await call(Endpoints.listTenants, nil, query: query)
        return (page.tenants, page.nextPageToken)
    }

    static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? value
    }
}
