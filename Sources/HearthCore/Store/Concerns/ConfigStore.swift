import Foundation

/// Projects and their tenants: configuration written compare-and-set on a version, so racing changes all land.
public protocol ConfigStore: Sendable {
    func project(id: String) async throws -> ProjectRecord?
    /// Creates the project unless one with that id exists; returns the stored one either way.
    func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord
    /// Replaces the project if nobody wrote it since `project` was read: the stored ``ProjectRecord/version`` must
    /// equal `project.version`, and the write moves it on by one. Returns what is now stored. Throws
    /// ``StoreError/conflict`` when another write came first (nothing is written), ``StoreError/notFound`` when
    /// there is no such project. Changes go through `ProjectDirectory.modify`, which reads again and retries.
    @discardableResult
    func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord
    /// A project's tenant, if it exists.
    func tenant(projectID: String, id: String) async throws -> TenantRecord?
    /// A project's tenants in id order, after `id`, at most `limit`.
    func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord]
    /// Adds a tenant (its `version` is stored as given); ``StoreError/conflict`` when the id is taken.
    func insertTenant(_ tenant: TenantRecord) async throws
    /// Replaces a tenant if it is still at `tenant.version`, and returns it at the next version:
    /// ``StoreError/conflict`` when another write came first, ``StoreError/notFound`` when it is gone.
    func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord
    /// Removes a tenant with its users and their tokens, codes and identities; `false` if there was none.
    func deleteTenant(projectID: String, id: String) async throws -> Bool
}
