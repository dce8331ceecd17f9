import Foundation
import HearthCore
import HearthWire
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// The HTTP front of Hearth: CORS, route lookup, API-key check, body limit, and the one place where every
/// thrown error becomes Google's error envelope.
public struct HearthAPI: HTTPResponder {
    public typealias Context = HearthRequestContext

    let services: HearthServices
    private let exact: [String: [Route]]
    private let patterns: [Route]

    public init(services: HearthServices) {
        self.services = services
        let routes = Self.routes(emulator: services.configuration.isEmulator)
        exact = Dictionary(grouping: routes.filter { !$0.isPattern }, by: \.path)
        patterns = routes.filter(\.isPattern)
    }

    public func respond(to request: Request, context: HearthRequestContext) async throws -> Response {
        var response: Response
        do {
            response = try await dispatch(request, peer: context.peerAddress)
        } catch let error as APIError {
            response = Self.errorResponse(error)
        } catch let failure as AuthFailure {
            response = Self.errorResponse(failure.apiError)
        } catch let required as SecondFactorRequired {
            // Not an error on the wire: 200 with a pending credential and the factors, no tokens.
            let user = required.user
            response = json(SecondFactorRequiredResponse(
                localId: user.localID, email: user.email, displayName: user.displayName,
                mfaPendingCredential: required.pendingCredential,
                mfaInfo: user.enrollments.map { MFAInfoWire($0, obfuscated: true) }))
        } catch {
            services.logger.error("internal error", metadata: [
                "path": .string(request.uri.path), "error": .string(String(reflecting: error)),
            ])
            response = Self.errorResponse(.internalError)
        }
        Self.addCORS(to: &response, for: request)
        return response
    }

    private func dispatch(_ request: Request, peer: String?) async throws -> Response {
        let path = request.uri.path
        if request.method == .options { return Self.preflight(request) }
        let segments = path.split(separator: "/")
        // Exact paths first; otherwise every matching pattern, in table order, each with its own parameters.
        var candidates = (exact["/" + segments.joined(separator: "/")] ?? []).map { (route: $0, parameters: [String: String]()) }
        if candidates.isEmpty {
            candidates = patterns.compactMap { route in route.match(segments).map { (route: route, parameters: $0) } }
        }
        guard !candidates.isEmpty else { throw APIError.notFound }
        guard let (route, parameters) = candidates.first(where: { $0.route.method == request.method }) else {
            throw APIError.methodNotAllowed(request.method, path)
        }

        var project: ProjectContext?
        switch route.access {
        case .client: project = try await clientProject(for: request)
        case .admin: project = try await adminProject(for: request, id: parameters["project"])
        case .open: break
        }
        let limit = services.configuration.maxBodySize
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit)
        } catch {
            // Not ours to fix: logged quietly, answered (if anyone still listens) as a bad request.
            services.logger.info("request body ended early", metadata: [
                "path": .string(path), "error": .string(String(describing: error))])
            throw APIError.incompleteBody
        }
        return try await route.handler(Call(request: request, body: body, parameters: parameters,
                                            project: project, services: services,
                                            clientAddress: clientAddress(request, peer: peer)))
    }

    /// Resolves the API key (`?key=` or `X-Goog-Api-Key`) to the client project. Emulator mode accepts any key,
    /// as Firebase's emulator does; a missing key is refused in both modes.
    private func clientProject(for request: Request) async throws -> ProjectContext {
        let key = request.uri.queryParameters["key"].map(String.init)
            ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
        guard let key, !key.isEmpty else { throw APIError.missingAPIKey }
        let project = try await services.defaultProject()
        if services.configuration.isEmulator { return project }
        guard project.record.apiKeys.contains(where: { constantTimeEquals(Array($0.utf8), Array(key.utf8)) }) else {
            throw APIError.invalidAPIKey
        }
        return project
    }

    /// Checks an admin call's bearer credential and resolves the project of its path (`nil` when the path names
    /// none). The credential is a JWT signed by one of the project's service accounts (see ``AdminAssertion``);
    /// emulator mode also accepts `Bearer owner`, as Firebase's emulator does. Anything else is a 401 in Google's
    /// shape; why is logged (never the token).
    private func adminProject(for request: Request, id: String?) async throws -> ProjectContext? {
        guard let authorization = request.headers[.authorization] else {
            let key = request.uri.queryParameters["key"] ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!].map { Substring($0) }
            throw key == nil ? APIError.missingAPIKey : APIError.adminNeedsCredentials
        }
        if services.configuration.isEmulator,
           constantTimeEquals(Array(authorization.utf8), Array("Bearer owner".utf8)) {
            guard let id else { return nil }
            guard ProjectID.isValid(id) else { throw APIError.notFound }
            return try await services.emulatorProject(id)
        }
        guard authorization.lowercased().hasPrefix("bearer ") else { throw APIError.unauthenticated }
        let token = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let project: ProjectContext
        if services.configuration.isEmulator, let id {
            guard ProjectID.isValid(id) else { throw APIError.notFound }
            project = try await services.emulatorProject(id)
        } else {
            project = try await services.defaultProject()
        }
        do {
            let account = try await AdminAssertion.verify(
                token, project: project.record, audiences: services.adminAudiences, store: services.store,
                now: services.accounts.clock.now())
            services.logger.debug("admin call", metadata: ["serviceAccount": "\(account.clientEmail)",
                                                           "path": "\(request.uri.path)"])
        } catch let failure as AdminAssertion.Failure {
            services.logger.notice("admin credential refused", metadata: [
                "reason": "\(failure)", "path": "\(request.uri.path)",
                "hint": "sign a fresh JWT per call with a key from `hearth service-accounts create` (aud = \(services.adminAudiences.first ?? ""))",
            ])
            throw APIError.unauthenticated
        }
        if let id, id != project.id { throw APIError.permissionDenied }
        return project
    }

    /// The caller's address for per-address limits: the peer, or the first `X-Forwarded-For` hop when configured.
    private func clientAddress(_ request: Request, peer: String?) -> String {
        if services.configuration.trustForwardedFor, let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
           let first = forwarded.split(separator: ",").first {
            return first.trimmingCharacters(in: .whitespaces)
        }
        return peer ?? "unknown"
    }

    static func errorResponse(_ error: APIError) -> Response {
        json(error.envelope, status: error.status, contentType: "application/json; charset=utf-8")
    }

    /// Browsers call the API from any origin (the APIs use no cookies): reflect the origin, as Google does.
    private static func addCORS(to response: inout Response, for request: Request) {
        guard let origin = request.headers[.origin] else { return }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
    }

    private static func preflight(_ request: Request) -> Response {
        var response = Response(status: .noContent)
        response.headers[.accessControlAllowMethods] = "GET,HEAD,PUT,PATCH,POST,DELETE"
        if let headers = request.headers[.accessControlRequestHeaders] {
            response.headers[.accessControlAllowHeaders] = headers
        }
        response.headers[.accessControlMaxAge] = "3600"
        response.headers[.vary] = "Origin, Access-Control-Request-Headers"
        return response
    }
}

/// A JSON response. Encoding one of our own `Encodable` types cannot fail; if it ever did, the fallback is an
/// empty object rather than a crash.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, contentType: String = "application/json",
          headers extra: HTTPFields = [:]) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    var headers = extra
    headers[.contentType] = contentType
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}
