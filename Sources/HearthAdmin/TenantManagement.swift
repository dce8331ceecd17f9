import Foundation
import HearthWire
import NIOHTTP1

/// A tenant's sign-in switches, for ``HearthAdmin/createTenant(_:)`` and ``HearthAdmin/updateTenant(_:_:)``: each
/// `nil` field is left as it is (on create: Firebase's default, off).
public struct TenantChanges: Sendable, Equatable, Encodable {
    public var displayName: String?
    public var allowPasswordSignup: Bool?
    public var enableEmailLinkSignin: Bool?
    public var enableAnonymousUser: Bool?
    public var disableAuth: Bool?

    public init(displayName: String? = nil, allowPasswordSignup: Bool? = nil, enableEmailLinkSignin: Bool? = nil,
                enableAnonymousUser: Bool? = nil, disableAuth: Bool? = nil) {
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
    }

    /// The fields set, as an `updateMask`.
    var mask: String {
        [displayName.map { _ in "displayName" }, allowPasswordSignup.map { _ in "allowPasswordSignup" },
         enableEmailLinkSignin.map { _ in "enableEmailLinkSignin" }, enableAnonymousUser.map { _ in "enableAnonymousUser" },
         disableAuth.map { _ in "disableAuth" }].compactMap { $0 }.joined(separator: ",")
    }
}

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
        try await call(tenantsPath, tenant)
    }

    public func getTenant(_ id: String) async throws -> TenantResource {
        try await call(tenantsPath + "/" + Self.escaped(id), Optional<[String: String]>.none, method: .GET)
    }

    /// Applies the fields `changes` sets, and only those.
    public func updateTenant(_ id: String, _ changes: TenantChanges) async throws -> TenantResource {
        try await call(tenantsPath + "/" + Self.escaped(id) + "?updateMask=" + changes.mask, changes, method: .PATCH)
    }

    /// Deletes the tenant and its users.
    public func deleteTenant(_ id: String) async throws {
        let _: [String: String] = try await call(tenantsPath + "/" + Self.escaped(id), Optional<[String: String]>.none,
                                                 method: .DELETE)
    }

    /// One page of tenants in id order; pass the returned token to get the next (`nil` at the end).
    public func listTenants(pageSize: Int = 100, pageToken: String? = nil) async throws
        -> (tenants: [TenantResource], nextPageToken: String?) {
        var path = tenantsPath + "?pageSize=\(pageSize)"
        if let pageToken { path += "&pageToken=" + Self.escaped(pageToken) }
        let page: ListTenantsResponse = try await call(path, Optional<[String: String]>.none, method: .GET)
        return (page.tenants, page.nextPageToken)
    }

    var tenantsPath: String { "/identitytoolkit.googleapis.com/v2/projects/\(projectID)/tenants" }

    static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? value
    }
}
