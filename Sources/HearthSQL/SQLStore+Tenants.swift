import Foundation
import HearthCore

/// Tenants: one row each, the record as JSON, `version` for compare-and-set updates.
extension SQLStore {
    public func tenant(projectID: String, id: String) async throws -> TenantRecord? {
        try await read("SELECT data FROM tenants WHERE project_id = \(projectID) AND tenant_id = \(id)")
            .first.map { try decode(TenantRecord.self, $0[0]) }
    }

    public func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord] {
        try await read("""
            SELECT data FROM tenants WHERE project_id = \(projectID) AND tenant_id\(SQLFragment.byteOrder) > \(id ?? "")
            ORDER BY tenant_id\(SQLFragment.byteOrder) LIMIT \(max(0, limit))
            """).map { try decode(TenantRecord.self, $0[0]) }
    }

    public func insertTenant(_ tenant: TenantRecord) async throws {
        let inserted = try await execute("""
            INSERT INTO tenants (project_id, tenant_id, version, data)
            VALUES (\(tenant.projectID), \(tenant.id), \(tenant.version), \(try codec.encode(tenant)))
            ON CONFLICT (project_id, tenant_id) DO NOTHING RETURNING tenant_id
            """)
        if inserted.isEmpty { throw StoreError.conflict }
    }

    public func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord {
        var next = tenant
        next.version += 1
        let (data, version) = (try codec.encode(next), next.version)
        try await transaction { db in
            let updated = try await db.query("""
                UPDATE tenants SET version = \(version), data = \(data)
                WHERE project_id = \(tenant.projectID) AND tenant_id = \(tenant.id) AND version = \(tenant.version)
                RETURNING tenant_id
                """)
            guard updated.isEmpty else { return }
            let exists = try await db.query("SELECT 1 FROM tenants WHERE project_id = \(tenant.projectID) AND tenant_id = \(tenant.id)")
            throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
        }
        return next
    }

    /// The tenant and every account in it.
    public func deleteTenant(projectID: String, id: String) async throws -> Bool {
        try await transaction { db in
            let removed = try await db.query("DELETE FROM tenants WHERE project_id = \(projectID) AND tenant_id = \(id) RETURNING tenant_id")
            guard !removed.isEmpty else { return false }
            for table in ["refresh_tokens", "user_identities", "users"] {
                try await db.query("DELETE FROM \(raw: table) WHERE project_id = \(projectID) AND tenant_id = \(id)")
            }
            return true
        }
    }
}
