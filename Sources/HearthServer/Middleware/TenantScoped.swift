import Foundation
import HearthCore
import Hummingbird

/// Puts the call in its tenant (``TenantScope``: the path's `{tenant}`, the body's `tenantId`, or the tenant its
/// token, code or session belongs to) before the rules, limits and handler after it on the line run, and tags the
/// call's audit events with that tenant.
struct TenantScoped: RouterMiddleware {
    typealias Context = HearthRequestContext
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        var scoped = context
        try await TenantScope.apply(to: &scoped, services: services)
        var audit = AuditScope.current
        audit?.tenantID = scoped.project?.tenantID
        return try await AuditScope.$current.withValue(audit) { [scoped] in try await next(request, scoped) }
    }
}
