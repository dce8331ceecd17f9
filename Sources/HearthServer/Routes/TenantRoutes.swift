import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `v2/projects/{project}/tenants` (admin): create, read, list, patch and delete a project's tenants.
enum TenantRoutes {
    static func create(_ call: Call, _ patch: TenantPatch) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        var tenant = TenantRecord(projectID: project.id, id: TenantRecord.newID(displayName: patch.displayName))
        // Email-enumeration protection starts as the project has it; the body may say otherwise.
        tenant[.enableImprovedEmailPrivacy] = project.record.settings[.enableImprovedEmailPrivacy]
        let declared = try DeclaredSettingsPatch(call, scope: .tenant, typed: patch.values)
        try apply(patch, paths: patch.presentPaths, to: &tenant, emulator: call.configuration.isEmulator,
                  captchaProvider: call.services.captcha != nil, now: call.services.accounts.clock.now())
        declared.apply(declared.presentPaths, to: &tenant.declared)
        // A new id on the (unlikely) collision of the random suffix.
        guard let created = try await call.services.accounts.tenants.create(
            tenant, newID: { TenantRecord.newID(displayName: patch.displayName) })
        else { throw APIError.internalError }
        return json(created.wire)
    }

    /// Emulator mode makes a tenant it is asked for, as Firebase's emulator does, except one deleted through this
    /// API (the Admin SDKs read `TENANT_NOT_FOUND` back after a delete); production answers `TENANT_NOT_FOUND`.
    static func get(_ call: Call) async throws -> Response {
        guard call.configuration.isEmulator, let id = call.parameter("tenantID") else {
            return json(try await tenant(call).wire)
        }
        let project = try await call.adminProject(nil)
        if call.services.deletedTenants.contains(id, in: project.id),
           try await call.services.accounts.tenants.tenant(id, in: project) == nil {
            throw APIError.business(.tenantNotFound)
        }
        return json(try await call.services.tenant(id, in: project).wire)
    }

    /// `pageSize` (20 by default, at most 1000) tenants in id order after `pageToken`.
    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let query = call.request.uri.queryParameters
        let pageSize = query["pageSize"].flatMap { Int(String($0)) } ?? 20
        guard (0...1000).contains(pageSize) else {
            throw APIError.business(.invalidArgument, "pageSize must be between 0 and 1000")
        }
        let size = pageSize == 0 ? 20 : pageSize
        let page = try await call.services.accounts.tenants.list(in: project, after: query["pageToken"].map(String.init),
                                                                 limit: size)
        let shown = Array(page.prefix(size))
        // A full page carries a token, as Google's list calls do (the next page may be empty).
        var list: [String: JSONValue] = ["tenants": .array(shown.map(\.wire))]
        if shown.count == size, let last = shown.last { list["nextPageToken"] = .string(last.id) }
        return json(JSONValue.object(list))
    }

    /// Applies the fields `updateMask` names (the fields present without one). The write is compare-and-set:
    /// a patch that lost a race with another re-reads and applies itself again, so neither is lost.
    static func patch(_ call: Call, _ patch: TenantPatch) async throws -> any ResponseGenerator {
        // No mask: the fields present; in emulator mode a full update, absent fields back to production's defaults,
        // as Firebase's emulator does.
        let declared = try DeclaredSettingsPatch(call, scope: .tenant, typed: patch.values)
        let writable = TenantPatch.writablePaths.union(DeclaredSettingsPatch.paths(in: .tenant))
        let paths = try UpdateMask(call).resolved(expand: { TenantPatch.expand($0) + DeclaredSettingsPatch.expand($0, in: .tenant) },
                                                  writable: writable, lenient: call.configuration.isEmulator)
            ?? (call.configuration.isEmulator ? writable : patch.presentPaths.union(declared.presentPaths))
        let project = try await call.adminProject(nil)
        let emulator = call.configuration.isEmulator
        guard let id = call.parameter("tenantID"),
              let tenant = try await call.services.accounts.tenants.modify(id, in: project, { tenant in
                  try apply(patch, paths: paths, to: &tenant, emulator: emulator, captchaProvider: call.services.captcha != nil,
                            now: call.services.accounts.clock.now())
                  declared.apply(paths, to: &tenant.declared)
              })
        else { throw APIError.business(.tenantNotFound) }
        return json(tenant.wire)
    }

    static func delete(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        guard let id = call.parameter("tenantID"),
              try await call.services.accounts.tenants.delete(id, in: project)
        else { throw APIError.business(.tenantNotFound) }
        if call.configuration.isEmulator { call.services.deletedTenants.insert(id, in: project.id) }
        return json([String: String]())
    }

    /// The path's tenant, or `TENANT_NOT_FOUND`.
    static func tenant(_ call: Call) async throws -> TenantRecord {
        let project = try await call.adminProject(nil)
        guard let id = call.parameter("tenantID"),
              let tenant = try await call.services.accounts.tenants.tenant(id, in: project)
        else { throw APIError.business(.tenantNotFound) }
        return tenant
    }

    /// Applies `paths` of a tenant patch: the settings a tenant shares with the project's config, then its own fields.
    static func apply(_ patch: TenantPatch, paths: Set<String>, to tenant: inout TenantRecord, emulator: Bool,
                      captchaProvider: Bool, now: Date) throws {
        let own = try patch.apply(paths, to: &tenant, now: now, captchaProviderConfigured: captchaProvider)
        if own.contains("displayName") {
            if let name = patch.displayName, !TenantRecord.isValidDisplayName(name) {
                throw APIError.business(.invalidArgument, "displayName must start with a letter and hold 4-20 letters, digits or hyphens")
            }
            tenant.displayName = patch.displayName
        }
        if emulator, paths.contains("mfaConfig.enabledProviders") { tenant.mfaProvidersAsGiven = patch.mfa?.enabledProviders }
    }
}
