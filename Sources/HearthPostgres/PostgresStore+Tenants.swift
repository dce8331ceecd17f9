import Foundation
import HearthCore
import PostgresNIO

/// Tenants: one row each, the record as JSON, `version` for compare-and-set updates.
extension PostgresStore {
    public func tenant(projectID: String, id: String) async throws -> TenantRecord? {
        try await first("SELECT data FROM tenants WHERE project_id = \(projectID) AND tenant_id = \(id)")
            .map { try codec.decode(TenantRecord.self, from: $0) }
    }

    public func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord] {
        let after = id ?? ""
        let rows = try await run("""
            SELECT data FROM tenants WHERE project_id = \(projectID) AND tenant_id > \(after)
            ORDER BY tenant_id COLLATE "C" LIMIT \(max(0, limit))
            """, logger: logger)
        var tenants: [TenantRecord] = []
        for try await data in rows.decode(String.self) { tenants.append(try codec.decode(TenantRecord.self, from: data)) }
        return tenants
    }

    public func insertTenant(_ tenant: TenantRecord) async throws {
        let data = try codec.encode(tenant)
        let inserted = try await first("""
            INSERT INTO tenants (project_id, tenant_id, version, data)
            VALUES (\(tenant.projectID), \(tenant.id), \(tenant.version), \(data))
            ON CONFLICT (project_id, tenant_id) DO NOTHING RETURNING tenant_id
            """)
        if inserted == nil { throw StoreError.conflict }
    }

    public func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord {
        var next = tenant
        next.version += 1
        let data = try codec.encode(next)
        let updated = try await first("""
            UPDATE tenants SET version = \(next.version), data = \(data)
            WHERE project_id = \(tenant.projectID) AND tenant_id = \(tenant.id) AND version = \(tenant.version)
            RETURNING tenant_id
            """)
        if updated == nil {
            let exists = try await first("SELECT tenant_id FROM tenants WHERE project_id = \(tenant.projectID) AND tenant_id = \(tenant.id)")
            throw exists == nil ? StoreError.notFound : StoreError.conflict
        }
        return next
    }

    public func deleteTenant(projectID: String, id: String) async throws -> Bool {
        let logger = logger
        return try await transaction { [self] db in
            let removed = try await db.query("""
                DELETE FROM tenants WHERE project_id = \(projectID) AND tenant_id = \(id) RETURNING tenant_id
                """, logger: logger).collect().count
            guard removed > 0 else { return false }
            try await db.query("DELETE FROM refresh_tokens WHERE project_id = \(projectID) AND tenant_id = \(id)", logger: logger)
            try await db.query("DELETE FROM user_identities WHERE project_id = \(projectID) AND tenant_id = \(id)", logger: logger)
            try await db.query("DELETE FROM users WHERE project_id = \(projectID) AND tenant_id = \(id)", logger: logger)
            return true
        }
    }
}
