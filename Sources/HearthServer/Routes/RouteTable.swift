import Foundation
import HearthCore
import NIOFoundationCompat
import HearthWire
import Hummingbird

/// A handler of the route table: one call in, one response out.
typealias RouteHandler = @Sendable (Call) async throws -> Response
/// A handler of a typed endpoint: its decoded request in, a reply out (a wire type, encoded by the context's
/// `responseEncoder`, or a built `Response`).
typealias TypedHandler<Request> = @Sendable (Call, Request) async throws -> any ResponseGenerator

/// Registers the route table on Hummingbird's router, each route inside the middleware of its guards, and
/// remembers each path's methods so a known path called with another method answers Google's 405.
final class RouteTable {
    let router: Router<HearthRequestContext>
    let services: HearthServices
    private var methods: [String: Set<HTTPRequest.Method>] = [:]
    private var order: [String] = []
    /// Every route as registered, in order: what the alias test reads.
    private(set) var entries: [Entry] = []

    /// One registered route: its method and path, the guards around it (outermost first) and its rules.
    struct Entry: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let guards: [String]
        let rules: RouteRules
    }

    init(router: Router<HearthRequestContext>, services: HearthServices) {
        self.router = router
        self.services = services
    }

    /// Routes behind `guards`, outermost first.
    func guarded(by guards: any MiddlewareProtocol<Request, Response, HearthRequestContext>...) -> Guarded {
        let routes = router.group()
        for middleware in guards { routes.add(middleware: middleware) }
        return Guarded(table: self, routes: routes, guards: guards.map(Self.label))
    }

    /// A guard's name for the route list: its type, and its policy or provider where it has one.
    static func label(_ middleware: any MiddlewareProtocol<Request, Response, HearthRequestContext>) -> String {
        switch middleware {
        case let limit as RateLimited: "RateLimited(\(limit.policy))"
        case let counter as CountsSignIns: "CountsSignIns(\(counter.label), \(counter.provider))"
        default: String(describing: type(of: middleware))
        }
    }

    /// Registers `handler` under each of `paths`, inside the line's middleware: nothing else runs for it.
    fileprivate func register(_ method: HTTPRequest.Method, _ paths: [String], on guarded: Guarded,
                              _ handler: @escaping RouteHandler) {
        for path in paths {
            if methods[path] == nil { order.append(path) }
            methods[path, default: []].insert(method)
            entries.append(Entry(method: method, path: path, guards: guarded.guards, rules: guarded.rules))
            guarded.routes.on(RouterPath(path), method: method) { [services] request, context in
                try await handler(Call(request: request, context: context, services: services))
            }
        }
    }

    /// Answers 405 for the methods each registered path does not serve.
    func addMethodNotAllowed() {
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]
        for path in order {
            for method in all where methods[path]?.contains(method) != true {
                router.on(RouterPath(path), method: method, responder: MethodNotAllowed())
            }
        }
    }

    /// A handler that serves client calls with `client` and admin calls (``APIKeyOrAdminGuard``) with `admin`.
    static func either(_ client: @escaping RouteHandler, admin: @escaping RouteHandler) -> RouteHandler {
        { call in try await (call.isAdmin ? admin : client)(call) }
    }

    /// The same for typed handlers of one request shape.
    static func either<Request>(_ client: @escaping TypedHandler<Request>, admin: @escaping TypedHandler<Request>)
        -> TypedHandler<Request> {
        { call, request in try await (call.isAdmin ? admin : client)(call, request) }
    }

    /// A set of routes sharing guards.
    struct Guarded {
        let table: RouteTable
        let routes: RouterGroup<HearthRequestContext>
        var guards: [String]
        var rules = RouteRules.none

        /// The same routes with one more guard (a rate limit, say).
        func and(_ middleware: any MiddlewareProtocol<Request, Response, HearthRequestContext>) -> Guarded {
            Guarded(table: table, routes: routes.group().add(middleware: middleware),
                    guards: guards + [RouteTable.label(middleware)], rules: rules)
        }

        /// The same routes under `rules`: their sign-in switch (``SignInSwitch``), then their CAPTCHA check
        /// (``CaptchaChecked``), as middleware after what the line has so far.
        func with(_ rules: RouteRules) -> Guarded {
            var copy = self
            if rules.needs != nil || rules.emulatorRefusesInTenant || rules.emulatorOnly != nil {
                copy = copy.and(SignInSwitch(rules: rules, isEmulator: table.services.configuration.isEmulator))
            }
            if let scope = rules.captcha { copy = copy.and(CaptchaChecked(scope: scope, services: table.services)) }
            copy.rules = rules
            return copy
        }

        /// The same handler under each of `paths` (a v1 name and its legacy v3 alias, say), with the same guards
        /// and rules.
        func post(_ paths: String..., to handler: @escaping RouteHandler) {
            table.register(.post, paths, on: self, handler)
        }

        /// A typed endpoint under each of its paths: its request is decoded from the parsed body (the context's
        /// ``WireRequestDecoder``) before the handler runs. `withTenants` adds the admin API's tenant forms.
        func on<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, withTenants: Bool = false,
                                to handler: @escaping TypedHandler<Request>) {
            table.register(HTTPRequest.Method(endpoint.method), withTenants ? endpoint.pathsWithTenants : endpoint.paths,
                           on: self) { call in
                let request = endpoint.acceptsForm ? try call.decode(Request.self, allowForm: true)
                    : try await call.request.decode(as: Request.self, context: call.context)
                return try await handler(call, request).response(from: call.request, context: call.context)
            }
        }

        /// A typed endpoint whose handler reads no body (a GET), or reads its own (a client-or-admin route whose two
        /// handlers take different shapes).
        func on<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, withTenants: Bool = false, to handler: @escaping RouteHandler) {
            table.register(HTTPRequest.Method(endpoint.method), withTenants ? endpoint.pathsWithTenants : endpoint.paths,
                           on: self, handler)
        }

        func get(_ paths: String..., to handler: @escaping RouteHandler) {
            table.register(.get, paths, on: self, handler)
        }

        func on(_ method: HTTPRequest.Method, _ path: String, to handler: @escaping RouteHandler) {
            table.register(method, [path], on: self, handler)
        }
    }
}

/// Everything a handler needs about one call.
struct Call: Sendable {
    let request: Request
    let context: HearthRequestContext
    let services: HearthServices

    /// The body's bytes, as collected by ``BodyLimit`` (pages and Hearth's own admin calls read them).
    var body: ByteBuffer { context.body.bytes }

    var configuration: ServerConfiguration { services.configuration }

    /// The caller's IP address (see `ServerConfiguration.trustForwardedFor`).
    var clientAddress: String { context.clientAddress(of: request, trustForwardedFor: configuration.trustForwardedFor) }

    /// The body as a plain `Decodable` (Hearth's own admin calls, which have no Firebase wire shape), read from the
    /// parsed body like every request (unknown fields ignored), or nil when it is not that JSON; the caller answers
    /// with its own `INVALID_ARGUMENT`.
    func jsonBody<Body: Decodable>(_ type: Body.Type) -> Body? {
        guard !context.body.isForm, let object = try? context.body.object.get() else { return nil }
        return try? WireDecoder(strict: false).decode(type, from: object)
    }

    /// A path parameter (`{project}`, `{idp}`), percent-decoded.
    func parameter(_ name: String) -> String? { context.parameters.get(name)?.removingPercentEncoding }

    /// The project the call acts in, resolved by the route's guard; routes behind `APIKeyGuard` always have one.
    var clientProject: ProjectContext {
        get throws {
            guard let project = context.project else { throw APIError.internalError }
            return project
        }
    }

    /// The admin guard's project (`nil` for the v3 names, whose body names it).
    var project: ProjectContext? { context.project }

    /// Whether the call carries admin credentials.
    var isAdmin: Bool { context.isAdmin }

    /// Reads the body as `T` (see ``WireRequestDecoder``); a form body only where the API takes one.
    func decode<T: Decodable>(_ type: T.Type, allowForm: Bool = false) throws(APIError) -> T {
        try WireRequestDecoder.decode(type, context: context, strict: context.strictBodies, allowForm: allowForm)
    }
}

extension HTTPRequest.Method {
    init(_ method: EndpointMethod) {
        switch method {
        case .get: self = .get
        case .post: self = .post
        case .patch: self = .patch
        case .delete: self = .delete
        }
    }
}

/// A JSON response, written by ``WireJSONEncoder`` (Foundation's `JSONEncoder` for what that does not cover, with
/// the same bytes). Encoding one of our own `Encodable` types cannot fail; if it ever did, the fallback is an empty
/// object rather than a crash.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, contentType: String = "application/json",
          headers extra: HTTPFields = [:]) -> Response {
    var headers = extra
    headers[.contentType] = contentType
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jsonBytes(value))))
}

func jsonBytes(_ value: some Encodable) -> [UInt8] {
    if let bytes = try? WireJSONEncoder.encode(value) { return bytes }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
}
