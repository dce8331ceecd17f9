import Foundation
import HearthCore
import Hummingbird

/// Audits every change made with admin credentials: its route, actor (``AuditScope``) and outcome, once the call has
/// been served (a refusal further in is audited as a failure). A GET changes nothing and is not audited; the lines
/// of admin calls that only read by POST sit in a group without this middleware (`adminReads`).
struct AdminAudited: RouterMiddleware {
    typealias Context = HearthRequestContext
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        guard context.isAdmin, request.method != .get else { return try await next(request, context) }
        let projectID = context.project?.id ?? services.configuration.projectID  // v3 names: the body names it
        let details = ["route": context.endpointPath ?? request.uri.path, "method": request.method.rawValue]
        do {
            let response = try await next(request, context)
            await services.audit.record(kind: "admin-call", projectID: projectID, localID: nil,
                                        outcome: response.status.code < 400 ? .success : .failure, details: details)
            return response
        } catch {
            await services.audit.record(kind: "admin-call", projectID: projectID, localID: nil, outcome: .failure, details: details)
            throw error
        }
    }
}
