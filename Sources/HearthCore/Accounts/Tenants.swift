import Foundation

/// A project's tenants: created with a fresh id, read, listed, changed compare-and-set, deleted with their users.
///
/// ```swift
/// let tenant = try await accounts.tenants.modify("t-1", in: project) { $0.displayName = "Shop" }
/// ```
public struct Tenants: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any ConfigStore { context.store }
    public init(context: AccountContext) { self.context = context }

    public func tenant(_ id: String, in project: ProjectContext) async throws -> TenantRecord? {
        try await store.tenant(projectID: project.id, id: id)
    }

    /// Tenants in id order after `id`, at most `limit`.
    public func list(in project: ProjectContext, after id: String?, limit: Int) async throws -> [TenantRecord] {
        try await store.tenants(projectID: project.id, after: id, limit: limit)
    }

    /// Stores `tenant`, under a new id from `newID` when its id is taken (a random suffix that collided); `nil`
    /// after five collisions in a row.
    public func create(_ tenant: TenantRecord, newID: () -> String) async throws -> TenantRecord? {
        var tenant = tenant
        for _ in 0..<5 {
            do {
                try await store.insertTenant(tenant)
                return tenant
            } catch StoreError.conflict {
                tenant.id = newID()
            }
        }
        return nil
    }

    /// `implicit` as stored: inserted unless a tenant with its id exists (Firebase's emulator makes the tenants it
    /// is asked for), so concurrent first uses agree on one.
    public func creatingIfNeeded(_ implicit: TenantRecord) async throws -> TenantRecord {
        if let tenant = try await store.tenant(projectID: implicit.projectID, id: implicit.id) { return tenant }
        do { try await store.insertTenant(implicit) } catch StoreError.conflict {}  // made by a concurrent call
        return try await store.tenant(projectID: implicit.projectID, id: implicit.id) ?? implicit
    }

    /// Applies `change` to the tenant as stored and writes it compare-and-set; a write that lost a race reads again
    /// and applies `change` again, so racing changes all land. `nil` when there is no such tenant.
    public func modify(_ id: String, in project: ProjectContext, _ change: (inout TenantRecord) throws -> Void)
        async throws -> TenantRecord? {
        for _ in 0..<20 {
            guard var tenant = try await store.tenant(projectID: project.id, id: id) else { return nil }
            try change(&tenant)
            do {
                return try await store.updateTenant(tenant)
            } catch StoreError.conflict {
                continue
            } catch StoreError.notFound {
                return nil
            }
        }
        throw AuthFailure.tooManyAttempts
    }

    /// Deletes a tenant with its users; `false` when there was none.
    public func delete(_ id: String, in project: ProjectContext) async throws -> Bool {
        try await store.deleteTenant(projectID: project.id, id: id)
    }
}
