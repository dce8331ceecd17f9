import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore

/// The source project of a lazy migration, asked over its REST API as its own apps ask it:
/// `accounts:signInWithPassword` with its web API key. A 200 (tokens, or a second factor still to prove) means the
/// password is right; Firebase's answers for a wrong password, an unknown email or a disabled account mean no;
/// anything else (the source down, its quota) is ``PasswordSourceUnavailable``, and nothing changes here.
public struct HTTPPasswordSource: PasswordSource {
    public static let target = OutboundTarget(name: "password-source", cap: 64)
    let timeout: TimeAmount

    public init(timeout: TimeAmount = .seconds(10)) { self.timeout = timeout }

    static let refusals: Set<String> = ["INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS", "EMAIL_NOT_FOUND", "USER_DISABLED"]

    public func check(email: String, password: String, sourceTenantID: String?, migration: LazyPasswordMigration)
        async throws -> String? {
        let root = migration.sourceURL.hasSuffix("/") ? String(migration.sourceURL.dropLast()) : migration.sourceURL
        let key = migration.apiKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? migration.apiKey
        var request = HTTPClientRequest(url: "\(root)/v1/accounts:signInWithPassword?key=\(key)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        var body: [String: Any] = ["email": email, "password": password, "returnSecureToken": true]
        if let sourceTenantID { body["tenantId"] = sourceTenantID }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let (response, data): (HTTPClientResponse, ByteBuffer)
        do {
            (response, data) = try await Self.target.call(request, timeout: timeout, maximumBody: 1 << 16)
        } catch {
            throw PasswordSourceUnavailable(reason: "\(error)")
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: data))) as? [String: Any] ?? [:]
        if response.status.code == 200 {
            guard let localID = object["localId"] as? String else {
                throw PasswordSourceUnavailable(reason: "a 200 without localId")
            }
            return localID
        }
        let message = (object["error"] as? [String: Any])?["message"] as? String ?? "HTTP \(response.status.code)"
        let code = String(message.prefix { $0 != " " && $0 != ":" })
        if Self.refusals.contains(code) { return nil }
        throw PasswordSourceUnavailable(reason: message)
    }
}
