import Foundation
import HearthCore
import SQLiteNIO

/// Tenants: one row each, the record as JSON, `version` for compare-and-set updates.
extension SQLiteStore {
    public func tenant(projectID: String, id: String) async throws -> TenantRecord? {
        try await read("SELECT version, data FROM tenants WHERE project_id = ? AND tenant_id = ?", [.text(projectID), .text(id)])
            .first.map(tenant(from:))
    }

    public func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord] {
        try await read("""
            SELECT version, data FROM tenants WHERE project_id = ? AND tenant_id > ? ORDER BY tenant_id LIMIT ?
            """, [.text(projectID), .text(id ?? ""), .integer(max(0, limit))]).map(tenant(from:))
    }

    public func insertTenant(_ tenant: TenantRecord) async throws {
        let binds: [SQLiteData] = [.text(tenant.projectID), .text(tenant.id), .integer(tenant.version),
                                   .text(try codec.encode(tenant))]
        let inserted = try await write { [self] db in
            try await db.query("""
                INSERT INTO tenants (project_id, tenant_id, version, data) VALUES (?, ?, ?, ?)
                ON CONFLICT (project_id, tenant_id) DO NOTHING RETURNING tenant_id
                """, binds).count
        }
        if inserted == 0 { throw StoreError.conflict }
    }

    public func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord {
        var next = tenant
        next.version += 1
        let binds: [SQLiteData] = [.integer(next.version), .text(try codec.encode(next)), .text(tenant.projectID),
                                   .text(tenant.id), .integer(tenant.version)]
        try await write { [self] db in
            let updated = try await db.query("""
                UPDATE tenants SET version = ?, data = ? WHERE project_id = ? AND tenant_id = ? AND version = ?
                RETURNING tenant_id
                """, binds)
            guard updated.isEmpty else { return }
            let exists = try await db.query("SELECT 1 FROM tenants WHERE project_id = ? AND tenant_id = ?",
                                             [binds[2], binds[3]])
            throw exists.isEmpty ? StoreError.notFound : StoreError.conflict
        }
        return next
    }

    public func deleteTenant(projectID: String, id: String) async throws -> Bool {
        let binds: [SQLiteData] = [.text(projectID), .text(id)]
        return try await write { [self] db in
            let removed = try await db.query("DELETE FROM tenants WHERE project_id = ? AND tenant_id = ? RETURNING tenant_id", binds)
            guard !removed.isEmpty else { return false }
            for table in ["refresh_tokens", "user_identities", "users"] {
                _ = try await db.query("DELETE FROM \(table) WHERE project_id = ? AND tenant_id = ?", binds)
            }
            return true
        }
    }

    private func tenant(from row: SQLiteRow) throws -> TenantRecord {
        var tenant = try codec.decode(TenantRecord.self, from: row.column("data")?.string ?? "")
        tenant.version = row.column("version")?.integer ?? tenant.version
        return tenant
    }
}
