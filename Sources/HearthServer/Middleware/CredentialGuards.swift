import Foundation
import HearthCore
import HearthWire
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat

/// Client routes: the API key (`?key=` or `X-Goog-Api-Key`) names the project the call acts in. Emulator mode
/// accepts any key, as Firebase's emulator does; a missing key is refused in both modes.
struct APIKeyGuard: RouterMiddleware {
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        let key = request.uri.queryParameters["key"].map(String.init) ?? request.headers[.xGoogAPIKey]
        guard let key, !key.isEmpty else { throw APIError.missingAPIKey }
        let project = try await services.defaultProject()
        if !services.configuration.isEmulator,
           !project.record.apiKeys.contains(where: { constantTimeEquals(Array($0.utf8), Array(key.utf8)) }) {
            throw APIError.invalidAPIKey
        }
        var context = context
        context.project = project
        return try await next(request, context)
    }
}

/// Admin routes: a bearer credential, a JWT signed by one of the project's service accounts (see
/// ``AdminAssertion``); emulator mode also accepts `Bearer owner`, as Firebase's emulator does. The project is
/// the path's `{project}` (`nil` for the v3 names, whose body names it). Anything else is a 401 in Google's
/// shape; why is logged (never the token).
struct AdminGuard: RouterMiddleware {
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        try await handle(request, context: context, projectID: context.parameters.get("project")?.removingPercentEncoding,
                         next: next)
    }

    /// An admin call in `projectID` (the path's, or the body's `targetProjectId` on the client paths).
    func handle(_ request: Request, context: HearthRequestContext, projectID: String?,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        let (project, actor) = try await resolve(request, id: projectID)
        context.project = project
        context.isAdmin = true
        var scope = AuditScope.current ?? AuditScope(clientAddress: context.peerAddress ?? "unknown")
        scope.actor = actor
        // The call's changes are audited where its route's rules say whether it only reads (RouteTable).
        return try await AuditScope.$current.withValue(scope) { try await next(request, context) }
    }

    /// `Bearer owner` in any case, or a Google access token, which the emulator cannot check and takes as the owner.
    static func isEmulatorOwner(_ authorization: String) -> Bool {
        guard authorization.lowercased().hasPrefix("bearer ") else { return false }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.lowercased() == "owner" || token.hasPrefix("ya29.")
    }

    /// The project and the actor (service account or `owner`).
    private func resolve(_ request: Request, id: String?) async throws -> (ProjectContext?, String) {
        // The console: its session cookie and CSRF token stand for an operator of the served project.
        if request.headers[.authorization] == nil, let email = try await ConsoleRoutes.operatorEmail(request, services: services) {
            let project = try await services.defaultProject()
            if let id, id != project.id { throw APIError.permissionDenied }
            return (project, "console:" + email)
        }
        guard let authorization = request.headers[.authorization] else {
            let key = request.uri.queryParameters["key"].map(String.init) ?? request.headers[.xGoogAPIKey]
            throw key == nil ? APIError.missingAPIKey : APIError.adminNeedsCredentials
        }
        let emulator = services.configuration.isEmulator
        // Firebase's emulator takes `owner` in any case, and a production access token (`ya29.…`) as the owner too.
        if emulator, Self.isEmulatorOwner(authorization) {
            guard let id else { return (nil, "owner") }
            guard ProjectID.isValid(id) else { throw APIError.notFound }
            return (try await services.emulatorProject(id), "owner")
        }
        guard authorization.lowercased().hasPrefix("bearer ") else { throw APIError.unauthenticated }
        let token = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        var project: ProjectContext
        if emulator, let id {
            guard ProjectID.isValid(id) else { throw APIError.notFound }
            project = try await services.emulatorProject(id)
        } else {
            project = try await services.defaultProject()
        }
        let actor: String
        do {
            let verify = { [services] (project: ProjectContext) in
                try await AdminAssertion.verify(token, project: project.record, audiences: services.adminAudiences,
                                                store: services.store, now: services.accounts.clock.now())
            }
            do {
                actor = try await verify(project).clientEmail
            } catch AdminAssertion.Failure.token(.unknownKey) {
                // A key the cached project does not know may be a service account created a moment ago: look once
                // past the cache before refusing, so a new key works at once (a deleted one stops within 5 s).
                guard let current = try await services.projects.reloaded(project.id), current.record != project.record else {
                    throw AdminAssertion.Failure.token(.unknownKey)
                }
                project = current
                actor = try await verify(project).clientEmail
            }
        } catch let failure as AdminAssertion.Failure {
            services.logger.notice("admin credential refused", metadata: [
                "reason": "\(failure)", "path": "\(request.uri.path)",
                "hint": "sign a fresh JWT per call with a key from `hearth service-accounts create` (aud = \(services.adminAudiences.first ?? ""))",
            ])
            guard case .wrongAudience(let audience) = failure, let expected = services.adminAudiences.first else {
                throw APIError.unauthenticated
            }
            // The one refusal a caller cannot work out alone: say which address the token must name (no secret).
            throw APIError.wrongAdminAudience(audience, expected: expected)
        }
        if let id, id != project.id { throw APIError.permissionDenied }
        return (project, actor)
    }
}

/// The client paths that Admin SDKs and the emulator's own helpers also call with a bearer credential and no API key
/// (`accounts:lookup`, `update`, `delete`, `sendOobCode`, `signUp` and their v3 names). With an `Authorization`
/// header the call is an admin call — in the project the body's `targetProjectId` names, else the credential's —
/// and the handler acts as the admin endpoint does; without one it is a client call under the API key. Runs after
/// ``BodyLimit``, since the project may be in the body.
struct APIKeyOrAdminGuard: RouterMiddleware {
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        // Only an OAuth 2 bearer makes it an admin call; other schemes are ignored, as Firebase's emulator does.
        guard request.headers[.authorization]?.lowercased().hasPrefix("bearer ") == true else {
            return try await APIKeyGuard(services: services).handle(request, context: context, next: next)
        }
        let target = context.body.peek("targetProjectId")
        return try await AdminGuard(services: services).handle(request, context: context, projectID: target, next: next)
    }
}
