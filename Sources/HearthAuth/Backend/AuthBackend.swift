import Foundation
import HearthWire

/// A JSON object from the server, read leniently (missing fields are nil; Google sends numbers as strings).
struct Fields: Sendable {
    let object: [String: JSONValue]

    init(_ object: [String: JSONValue]) { self.object = object }

    func string(_ key: String) -> String? {
        switch object[key] {
        case .string(let s): s
        case .number(let n): n.rounded() == n && abs(n) < 9e15 ? String(Int64(n)) : String(n)
        default: nil
        }
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let b) = object[key] { return b }
        return nil
    }

    func int(_ key: String) -> Int? { string(key).flatMap { Int($0) } }

    func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    /// Decodes a member with one of HearthWire's shapes.
    func decode<T: Decodable>(_ type: T.Type, _ key: String) -> T? {
        guard let value = object[key], value != .null, let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }
}

/// Which API a call goes to.
enum AuthAPI: Sendable {
    case v1(String)  // accounts:signUp
    case v2(String)  // accounts/mfaEnrollment:start
    case secureToken
}

/// Sends one call and turns the answer into ``Fields`` or an `NSError` from ``ServerErrorTable``.
struct AuthBackend: Sendable {
    var apiKey: String
    var endpoints: AuthEndpoints
    var transport: any AuthTransport
    var clientVersion = "Hearth/Swift/1.0"

    func url(_ api: AuthAPI) -> URL {
        let key = apiKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? apiKey
        let text = switch api {
        case .v1(let name): endpoints.identityToolkit.absoluteString + "/v1/" + name
        case .v2(let name): endpoints.identityToolkit.absoluteString + "/v2/" + name
        case .secureToken: endpoints.secureToken.absoluteString + "/v1/token"
        }
        return URL(string: text + "?key=" + key)!
    }

    /// POSTs `body` as JSON. `locale` travels as `X-Firebase-Locale`.
    func call(_ api: AuthAPI, _ body: some Encodable, locale: String? = nil) async throws -> Fields {
        let data: Data
        do { data = try JSONEncoder().encode(body) } catch {
            throw AuthErrorFactory.make(.internalError, detail: "The request could not be encoded.", underlying: error)
        }
        var headers = ["Content-Type": "application/json", "X-Client-Version": clientVersion]
        // Google checks API keys restricted to an iOS app against this header.
        if let bundleID = Bundle.main.bundleIdentifier { headers["X-Ios-Bundle-Identifier"] = bundleID }
        if let locale, !locale.isEmpty { headers["X-Firebase-Locale"] = locale }
        let response: AuthHTTPResponse
        do {
            response = try await transport.send(AuthHTTPRequest(url: url(api), headers: headers, body: data))
        } catch {
            throw AuthErrorFactory.make(.networkError, underlying: error)
        }
        return try Self.interpret(response)
    }

    static func interpret(_ response: AuthHTTPResponse) throws -> Fields {
        let parsed = try? JSONDecoder().decode(JSONValue.self, from: response.body)
        guard case .object(let object)? = parsed else {
            throw AuthErrorFactory.make(.internalError,
                                        detail: "The server's answer (HTTP \(response.status)) was not a JSON object.")
        }
        guard (200..<300).contains(response.status) else {
            guard case .object(let error)? = object["error"] else {
                throw AuthErrorFactory.make(.internalError, detail: "HTTP \(response.status) without an error body.")
            }
            let body = Fields(error)
            var reasons: [String] = []
            if case .array(let items)? = error["errors"] {
                for case .object(let item) in items { if let r = Fields(item).string("reason") { reasons.append(r) } }
            }
            throw ServerErrorTable.error(message: body.string("message") ?? "", reasons: reasons)
        }
        return Fields(object)
    }
}

/// A request body built field by field, for the calls whose HearthWire shape is read-only (MFA, phone, IdP).
struct Body: Encodable, Sendable {
    var fields: [String: JSONValue] = [:]

    init(_ fields: [String: JSONValue] = [:]) { self.fields = fields }

    subscript(key: String) -> String? {
        get { nil }
        set { if let newValue { fields[key] = .string(newValue) } }
    }

    mutating func set(_ key: String, _ value: JSONValue?) { if let value { fields[key] = value } }

    func encode(to encoder: any Encoder) throws { try JSONValue.object(fields).encode(to: encoder) }
}
