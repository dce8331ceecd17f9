import Foundation
import HearthCore
import HearthWire
import Hummingbird
import NIOCore

/// Puts a call in the tenant it names: the path's `{tenant}` (the admin API's `…/tenants/{tenant}/accounts`) or the
/// body's `tenantId` (every client call of a tenant-aware SDK). Handlers then see a ``ProjectContext`` scoped to the
/// tenant: its users, its switches. Production refuses a tenant that does not exist (`TENANT_NOT_FOUND`) rather
/// than acting in the project; emulator mode creates it with every sign-in method on, as Firebase's emulator does.
enum TenantScope {
    static let marker = Array(#""tenantId""#.utf8)

    static func apply(to context: inout HearthRequestContext, body: ByteBuffer, services: HearthServices) async throws {
        guard let project = context.project else { return }
        let fromPath = context.parameters.get("tenant")?.removingPercentEncoding
        // Most bodies name no tenant: a byte search spares them a second parse.
        let fromBody = body.readableBytesView.firstRange(of: marker) == nil ? nil : tenantID(in: body)
        if let fromPath, let fromBody, fromPath != fromBody { throw APIError.business(.tenantIDMismatch) }
        guard let id = fromPath ?? fromBody, !id.isEmpty else { return }
        let tenant = try await services.tenant(id, in: project)
        if tenant.disableAuth, !context.isAdmin { throw APIError.business(.projectDisabled) }
        context.project = project.scoped(to: tenant)
    }

    static func tenantID(in body: ByteBuffer) -> String? {
        guard var object = try? WireObject(json: Data(buffer: body, byteTransferStrategy: .noCopy)) else { return nil }
        return try? object.string("tenantId")
    }
}

extension HearthServices {
    /// A project's tenant: `TENANT_NOT_FOUND` in production, created on first use in emulator mode.
    func tenant(_ id: String, in project: ProjectContext) async throws -> TenantRecord {
        if let tenant = try await store.tenant(projectID: project.id, id: id) { return tenant }
        guard configuration.isEmulator else { throw APIError.business(.tenantNotFound) }
        guard TenantRecord.isValidID(id) else { throw APIError.business(.invalidTenantID) }
        let implicit = TenantRecord(projectID: project.id, id: id, allowPasswordSignup: true, enableEmailLinkSignin: true,
                                    enableAnonymousUser: true, mfa: MFASettings(state: .enabled, providers: [.phoneSMS]))
        do { try await store.insertTenant(implicit) } catch StoreError.conflict {}  // made by a concurrent call
        return try await store.tenant(projectID: project.id, id: id) ?? implicit
    }
}
