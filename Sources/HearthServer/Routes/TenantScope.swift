import Foundation
import HearthCore
import HearthWire
import Hummingbird
import NIOCore

/// Puts a call in the tenant it names: the path's `{tenant}` (the admin API's `…/tenants/{tenant}/accounts`) or the
/// body's `tenantId` (every client call of a tenant-aware SDK). Handlers then see a ``ProjectContext`` scoped to the
/// tenant: its users, its switches (which the route's ``RouteRules`` then check). Production refuses a tenant that does not exist (`TENANT_NOT_FOUND`) rather
/// than acting in the project; emulator mode creates it with every sign-in method on, as Firebase's emulator does.
enum TenantScope {
    static func apply(to context: inout HearthRequestContext, services: HearthServices) async throws {
        let fromPath = context.parameters.get("tenant")?.removingPercentEncoding
        let body = context.body
        // A `tenantId` that is not a string is refused here: read as absent, it would put the call in the project.
        // A call that names none but carries a tenant's ID token acts on that token's user, in its tenant; the
        // token's tenant is checked where the token is verified (`AccountContext.authenticate`).
        let value = (try? body.object.get())?.value("tenantId")
        let named = value.flatMap(WireObject.text)
        if let value, named == nil {
            throw APIError.invalidArgument(.wrongType(path: "/tenantId", expected: "string", got: value.typeName))
        }
        if let fromPath, let named, fromPath != named { throw APIError.business(.tenantIDMismatch) }
        guard let id = fromPath ?? named, !id.isEmpty else { return }
        // An Admin SDK on a client path (a bearer, no key): the project its handler would pick.
        var resolved = context.project
        if resolved == nil { resolved = try await adminProject(context, body.peek("targetProjectId"), services) }
        guard let project = resolved else { return }
        let scoped = try await services.project(project, inTenant: id)
        if let idToken = body.peek("idToken"), let claims = IDTokenPeek.claims(of: idToken), claims.firebase?.tenant != id {
            throw APIError.business(.tenantIDMismatch)
        }
        context.project = scoped
    }

    static func adminProject(_ context: HearthRequestContext, _ target: String?, _ services: HearthServices)
        async throws -> ProjectContext? {
        guard context.isAdmin else { return nil }
        guard let target else { return try await services.defaultProject() }
        return ProjectID.isValid(target) ? try await services.emulatorProject(target) : nil
    }
}

/// The claims of an ID token, read without verifying it: only to refuse a token of another tenant early
/// (`TENANT_ID_MISMATCH`); the token is verified, and its tenant checked again, where it is used. `nil` when it
/// does not parse (the handler then says `INVALID_ID_TOKEN`).
enum IDTokenPeek {
    static func claims(of token: String) -> IDTokenClaims? {
        let parts = token.split(separator: ".")
        guard parts.count >= 2, let data = WireObject.base64(String(parts[1])),
              let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: data)
        else { return nil }
        return claims
    }
}

extension HearthServices {
    /// `project` acting in tenant `id` (see ``tenant(_:in:)``). Firebase: a disabled tenant's users cannot sign in,
    /// and its administrators cannot manage them (`PROJECT_DISABLED`).
    func project(_ project: ProjectContext, inTenant id: String) async throws -> ProjectContext {
        let tenant = try await tenant(id, in: project)
        if tenant.disableAuth { throw APIError.business(.projectDisabled) }
        return project.scoped(to: tenant)
    }

    /// A project's tenant: `TENANT_NOT_FOUND` in production, created on first use in emulator mode (a deleted one
    /// too, as Firebase's emulator does: its own tests reuse tenant ids after deleting them).
    func tenant(_ id: String, in project: ProjectContext) async throws -> TenantRecord {
        if let tenant = try await accounts.tenants.tenant(id, in: project) { return tenant }
        guard configuration.isEmulator else { throw APIError.business(.tenantNotFound) }
        guard TenantRecord.isValidID(id) else { throw APIError.business(.invalidTenantID) }
        return try await accounts.tenants.creatingIfNeeded(TenantRecord(
            projectID: project.id, id: id, allowPasswordSignup: true, enableEmailLinkSignin: true,
            enableAnonymousUser: true, mfa: MFASettings(state: .enabled, providers: [.phoneSMS])))
    }
}
