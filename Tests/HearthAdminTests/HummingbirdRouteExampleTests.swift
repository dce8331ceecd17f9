import Foundation
import HearthAdmin
import Hummingbird
import HummingbirdTesting
import HearthTestSupport
import HearthWire
import Testing

// The README's example: a Hummingbird API whose `/api/*` routes need a valid Hearth ID token.

/// The request context carries the verified caller.
struct APIContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var caller: VerifiedToken?

    init(source: Source) {
        coreContext = .init(source: source)
    }
}

/// Accepts `Authorization: Bearer <ID token>`, verified by HearthAdmin (signature, expiry, revocation).
struct RequireHearthUser: RouterMiddleware {
    let admin: HearthAdmin

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, message: "sign in first")
        }
        var context = context
        do {
            context.caller = try await admin.verifyIDToken(String(header.dropFirst(7)), checkRevoked: true)
        } catch is HearthAdminError {
            throw HTTPError(.unauthorized, message: "invalid or revoked ID token")
        }
        return try await next(request, context)
    }
}

func exampleRouter(admin: HearthAdmin) -> Router<APIContext> {
    let router = Router(context: APIContext.self)
    router.group("api").add(middleware: RequireHearthUser(admin: admin))
        .get("me") { _, context in
            let role = context.caller?.claims["role"].flatMap { if case .string(let s) = $0 { s } else { nil } }
            return "uid=\(context.caller?.uid ?? "") role=\(role ?? "none")"
        }
    return router
}

@Suite struct HummingbirdRouteExampleTests {
    @Test func aRouteAcceptsOnlyValidUnrevokedHearthTokens() async throws {
        try await LiveHearth.run { hearth in
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile))
            _ = try await admin.createUser(.init(localId: "api-user"))
            try await admin.setCustomUserClaims(uid: "api-user", claims: ["role": .string("editor")])
            let signedIn = try await hearth.client(Endpoints.signInWithCustomToken.path,
                                                   ["token": try await admin.createCustomToken(uid: "api-user")])
            let idToken = try #require(signedIn["idToken"] as? String)

            let app = Application(router: exampleRouter(admin: admin))
            try await app.test(.router) { client in
                try await client.execute(uri: "/api/me", method: .get) { response in
                    #expect(response.status == .unauthorized)
                }
                try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(idToken)"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "uid=api-user role=editor")
                }
                try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer not-a-token"]) { response in
                    #expect(response.status == .unauthorized)
                }
                let nextSecond = nextWholeSecond(after: Date())  // revocation is to the second, as Firebase's
                await eventually { Date() >= nextSecond }
                try await admin.revokeRefreshTokens(uid: "api-user")
                try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(idToken)"]) { response in
                    #expect(response.status == .unauthorized, "a revoked session is refused")
                }
            }
        }
    }
}
