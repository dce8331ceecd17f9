import Foundation
import HearthCore
import Hummingbird

/// Hearth's own admin calls for a project's lazy password migration (``LazyPasswordMigration``): read it, set it
/// (`PATCH`, every field at once), turn it off (`DELETE`). `hearth auth:migrate --lazy-until` sets it after a move.
///
/// ```sh
/// curl -X PATCH "$HEARTH/identitytoolkit.googleapis.com/v1/projects/$PROJECT/lazyPasswordMigration" \
///   -H "Authorization: Bearer $ADMIN" -d '{"sourceUrl": "https://identitytoolkit.googleapis.com",
///   "apiKey": "AIza…", "expireTime": "2027-03-01T00:00:00Z"}'
/// ```
enum LazyMigrationRoutes {
    struct Resource: Codable {
        var sourceUrl: String?
        var apiKey: String?
        var expireTime: String?
        var tenants: [String: String]?
    }

    /// What is set (the API key left out), or `{}`.
    static func resource(_ migration: LazyPasswordMigration?) -> Resource {
        guard let migration else { return Resource() }
        return Resource(sourceUrl: migration.sourceURL, expireTime: migration.expiresAt.ISO8601Format(), tenants: migration.tenants)
    }

    static func get(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        return json(resource(project.record.settings.lazyPasswordMigration))
    }

    static func patch(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let body = try call.decode(Resource.self)
        let now = call.services.accounts.clock.now()
        guard let url = body.sourceUrl, let scheme = URL(string: url)?.scheme, ["http", "https"].contains(scheme),
              URL(string: url)?.host != nil
        else { throw APIError.business(.invalidArgument, "sourceUrl must be the source's Identity Toolkit root, like https://identitytoolkit.googleapis.com") }
        guard let key = body.apiKey, !key.isEmpty, key.count <= 200 else {
            throw APIError.business(.invalidArgument, "apiKey must be the source project's web API key")
        }
        guard let text = body.expireTime, let expires = try? Date(text, strategy: .iso8601), expires > now,
              expires <= now + 366 * 86_400
        else { throw APIError.business(.invalidArgument, "expireTime must be RFC 3339, in the future and within a year: the switch is temporary") }
        let migration = LazyPasswordMigration(sourceURL: url, apiKey: key, expiresAt: expires, tenants: body.tenants)
        let updated = try await call.services.projects.modify(project.id) { $0.settings.lazyPasswordMigration = migration }
        return json(resource(updated.record.settings.lazyPasswordMigration))
    }

    static func delete(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        _ = try await call.services.projects.modify(project.id) { $0.settings.lazyPasswordMigration = nil }
        return json(Resource())
    }
}
