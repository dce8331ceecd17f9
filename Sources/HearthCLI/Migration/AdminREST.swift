import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// One side of a move: a Firebase-compatible Admin REST API (Google's, Firebase's emulator, a Hearth server) and
/// how its calls are authorized. Both sides speak the same API, so a move out of Hearth is the same code as a move in.
struct AdminREST: Sendable {
    enum Credential: Sendable {
        /// What Firebase's emulator and Hearth's emulator mode take from every Admin SDK.
        case emulatorOwner
        /// A Google OAuth access token (``GoogleAccessToken``): Google's API.
        case accessToken(String)
        /// A Hearth service-account key file: a fresh single-use assertion per call, for `audience`.
        case hearthKey(Data, audience: String)
    }

    /// The API's root (`https://identitytoolkit.googleapis.com`, or a server's base URL followed by
    /// `/identitytoolkit.googleapis.com`).
    var root: String
    var project: String
    var credential: Credential

    /// Whether the API is an emulator's (Firebase's, or Hearth in emulator mode): what the owner credential opens.
    var isEmulator: Bool {
        if case .emulatorOwner = credential { return true }
        return false
    }

    /// `root` for a base URL: Google's host as it is, any other server with the host in the path, as the Admin
    /// SDKs address an emulator.
    static func root(for baseURL: String) -> String {
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return trimmed.contains("identitytoolkit.googleapis.com") ? trimmed : trimmed + "/identitytoolkit.googleapis.com"
    }

    /// `v2/projects/{project}` with `tenant`'s segment when given.
    func owner(_ version: String, tenant: String? = nil) -> String {
        "\(root)/\(version)/projects/\(project)" + (tenant.map { "/tenants/\($0)" } ?? "")
    }

    enum Verb: String, Sendable { case GET, POST, PATCH }

    struct Failure: Error, CustomStringConvertible {
        var status: Int
        var message: String
        var url: String
        var description: String { "\(url) answered \(status): \(message)" }
        /// Google answers a missing resource 404, Firebase's emulator (and Hearth, as it) 400 `…_NOT_FOUND`.
        /// Firebase's emulator answers 501 for what it does not implement (identity-provider lists among them).
        var isNotImplemented: Bool { status == 501 }
        var isNotFound: Bool { status == 404 || message.hasPrefix("CONFIGURATION_NOT_FOUND") || message.hasPrefix("TENANT_NOT_FOUND") }
    }

    /// Calls the API and returns its JSON object; a refusal is a ``Failure`` carrying Google's `error.message`.
    @discardableResult
    func call(_ method: Verb, _ url: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method.rawValue)
        request.headers.add(name: "Content-Type", value: "application/json")
        switch credential {
        case .emulatorOwner: request.headers.add(name: "Authorization", value: "Bearer owner")
        case .accessToken(let token): request.headers.add(name: "Authorization", value: "Bearer \(token)")
        case .hearthKey(let key, let audience):
            let token = try AdminAssertion.sign(keyFile: key, audience: audience, now: Date(), lifetime: 300)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 64 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: data))) as? [String: Any] ?? [:]
        guard (200..<300).contains(Int(response.status.code)) else {
            let message = (object["error"] as? [String: Any])?["message"] as? String
                ?? String(buffer: data).prefix(300).description
            throw Failure(status: Int(response.status.code), message: message, url: url)
        }
        return object
    }

    /// Every item of a paged list (`pageToken` / `nextPageToken`).
    func list(_ url: String, key: String, pageSize: Int = 100) async throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var token: String?
        repeat {
            let page = try await call(.GET, url + "?pageSize=\(pageSize)" + (token.map { "&pageToken=\($0)" } ?? ""))
            items += page[key] as? [[String: Any]] ?? []
            token = (page["nextPageToken"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        } while token != nil
        return items
    }
}
