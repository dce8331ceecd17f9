import Foundation
import HearthWire

/// Sends one call of the endpoint list (``Endpoints``) and decodes its typed reply, or throws an `NSError` from
/// ``ServerErrorTable``.
struct AuthBackend: Sendable {
    var apiKey: String
    var endpoints: AuthEndpoints
    var transport: any AuthTransport
    var clientVersion = "Hearth/Swift/1.0"

    /// The endpoint's path under the configured hosts: its first segment names Google's host
    /// (`/identitytoolkit.googleapis.com/v1/accounts:signUp`), which ``AuthEndpoints`` maps.
    func url(_ path: String) -> URL {
        let key = apiKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? apiKey
        let segments = path.split(separator: "/", maxSplits: 1)
        let rest = segments.count > 1 ? "/" + segments[1] : ""
        let base = segments.first == "securetoken.googleapis.com" ? endpoints.secureToken : endpoints.identityToolkit
        return URL(string: base.absoluteString + rest + "?key=" + key)!
    }

    /// POSTs `request` as JSON. `locale` travels as `X-Firebase-Locale`.
    func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ request: Request, locale: String? = nil) async throws
        -> Reply {
        let data: Data
        do { data = try JSONEncoder().encode(request) } catch {
            throw AuthErrorFactory.make(.internalError, detail: "The request could not be encoded.", underlying: error)
        }
        var headers = ["Content-Type": "application/json", "X-Client-Version": clientVersion]
        // Google checks API keys restricted to an iOS app against this header.
        if let bundleID = Bundle.main.bundleIdentifier { headers["X-Ios-Bundle-Identifier"] = bundleID }
        if let locale, !locale.isEmpty { headers["X-Firebase-Locale"] = locale }
        let response: AuthHTTPResponse
        do {
            response = try await transport.send(AuthHTTPRequest(url: url(endpoint.path), headers: headers, body: data))
        } catch {
            throw AuthErrorFactory.make(.networkError, underlying: error)
        }
        return try Self.interpret(response, as: Reply.self)
    }

    /// GETs an endpoint that takes no body, with `query` added to the URL (`tenantId`).
    func get<Reply>(_ endpoint: Endpoint<NoBody, Reply>, query: [String: String] = [:]) async throws -> Reply {
        var components = URLComponents(url: url(endpoint.path), resolvingAgainstBaseURL: false)
        let existing = components?.queryItems ?? []
        components?.queryItems = existing + query.sorted(by: { $0.key < $1.key }).map { URLQueryItem(name: $0.key, value: $0.value) }
        guard let target = components?.url else {
            throw AuthErrorFactory.make(.internalError, detail: "The request URL could not be built.")
        }
        let response: AuthHTTPResponse
        do {
            response = try await transport.send(AuthHTTPRequest(url: target, method: "GET", headers: ["X-Client-Version": clientVersion]))
        } catch {
            throw AuthErrorFactory.make(.networkError, underlying: error)
        }
        return try Self.interpret(response, as: Reply.self)
    }

    /// The reply as `Reply` (read as Google's clients read it: absent fields as defaults), or the error it carries.
    static func interpret<Reply: Decodable>(_ response: AuthHTTPResponse, as type: Reply.Type) throws -> Reply {
        guard let body = try? WireObject(json: response.body) else {
            throw AuthErrorFactory.make(.internalError,
                                        detail: "The server's answer (HTTP \(response.status)) was not a JSON object.")
        }
        guard (200..<300).contains(response.status) else {
            guard body.has("error"), let envelope = try? WireDecoder.replies.decode(ErrorEnvelope.self, from: body) else {
                throw AuthErrorFactory.make(.internalError, detail: "HTTP \(response.status) without an error body.")
            }
            throw ServerErrorTable.error(message: envelope.error.message, reasons: envelope.error.errors.map(\.reason))
        }
        do {
            return try WireDecoder.replies.decode(type, from: body)
        } catch {
            throw AuthErrorFactory.make(.internalError, detail: "The server's answer did not have the expected shape: \(error.message)")
        }
    }
}
