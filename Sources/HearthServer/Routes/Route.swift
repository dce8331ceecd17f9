import Foundation
import HearthCore
import NIOFoundationCompat
import HearthWire
import Hummingbird

/// One entry of the route table: method, path pattern (`{name}` matches one segment, `{name}:verb` one ending in
/// `:verb`), who may call it, handler.
struct Route: Sendable {
    enum Access: Sendable {
        /// Client API: needs an API key; runs in the key's project.
        case client
        /// No credentials (key distribution, emulator control).
        case open
        /// Admin API: a bearer credential (emulator mode: `Bearer owner`); runs in the `{project}` of the path, or
        /// in the body's `targetProjectId` for the v3 names.
        case admin
    }

    typealias Handler = @Sendable (Call) async throws -> Response

    var method: HTTPRequest.Method
    var segments: [Substring]
    var access: Access
    var handler: Handler

    init(_ method: HTTPRequest.Method, _ path: String, _ access: Access, _ handler: @escaping Handler) {
        self.method = method
        self.segments = path.split(separator: "/")
        self.access = access
        self.handler = handler
    }

    var isPattern: Bool { segments.contains { $0.hasPrefix("{") } }
    var path: String { "/" + segments.joined(separator: "/") }

    /// Path parameters if `path` matches this pattern.
    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, actual) in zip(segments, path) {
            if pattern.hasPrefix("{"), let close = pattern.firstIndex(of: "}") {
                // `{name}` takes the whole segment; `{name}:verb` (Google's custom methods) a prefix before `:verb`.
                let suffix = pattern[pattern.index(after: close)...]
                guard actual.count > suffix.count, actual.hasSuffix(suffix) else { return nil }
                let name = String(pattern[pattern.index(after: pattern.startIndex)..<close])
                parameters[name] = String(actual.dropLast(suffix.count)).removingPercentEncoding
            } else if pattern != actual {
                return nil
            }
        }
        return parameters
    }
}

extension [Route] {
    /// The same handler under each of `paths` (a v1 name and its legacy v3 alias, say).
    static func post(_ paths: String..., access: Route.Access = .client, to handler: @escaping Route.Handler) -> [Route] {
        paths.map { Route(.post, $0, access, handler) }
    }

    static func get(_ paths: String..., access: Route.Access = .client, to handler: @escaping Route.Handler) -> [Route] {
        paths.map { Route(.get, $0, access, handler) }
    }

    static func route(_ method: HTTPRequest.Method, _ path: String, access: Route.Access = .client,
                      to handler: @escaping Route.Handler) -> [Route] {
        [Route(method, path, access, handler)]
    }
}

/// Everything a handler needs about one call.
struct Call: Sendable {
    let request: Request
    let body: ByteBuffer
    let parameters: [String: String]
    /// The project the call acts in (client routes).
    let project: ProjectContext?
    let services: HearthServices
    /// The caller's IP address (see `ServerConfiguration.trustForwardedFor`).
    let clientAddress: String

    var configuration: ServerConfiguration { services.configuration }

    /// The client project; routes marked `.client` always have one.
    var clientProject: ProjectContext {
        get throws {
            guard let project else { throw APIError.internalError }
            return project
        }
    }

    /// Reads the body as `T`: JSON (whatever the content type says, as curl users expect), or form-encoded where
    /// the API allows it. Unknown fields are refused in production and ignored in emulator mode, as each of
    /// Firebase's servers does.
    func decode<T: WireDecodable>(_ type: T.Type, allowForm: Bool = false) throws(APIError) -> T {
        let data = Data(buffer: body, byteTransferStrategy: .noCopy)
        let contentType = request.headers[.contentType]?.lowercased() ?? "application/json"
        let isForm = allowForm && contentType.hasPrefix("application/x-www-form-urlencoded")
        let result = Result { () throws(WireDecodingError) -> T in
            let object = isForm ? WireObject(form: data) : try WireObject(json: data)
            return try T.decode(from: object, strict: !configuration.isEmulator)
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw APIError.invalidArgument(error)
        }
    }
}
