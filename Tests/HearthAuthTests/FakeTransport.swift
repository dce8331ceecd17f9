import Foundation
@testable import HearthAuth
import HearthWire

/// A transport that records every request and answers from a script: what the unit tests use instead of a server.
final class FakeTransport: AuthTransport, @unchecked Sendable {
    struct Recorded: Sendable {
        let request: AuthHTTPRequest
        var path: String { request.url.path }
        var body: [String: Any] {
            (request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
        }
    }

    private let lock = NSLock()
    private var _requests: [Recorded] = []
    private let answer: @Sendable (String, [String: Any]) async throws -> (Int, Any)

    /// `answer(path, body)` → (status, JSON object).
    init(_ answer: @escaping @Sendable (String, [String: Any]) async throws -> (Int, Any)) { self.answer = answer }

    var requests: [Recorded] { lock.withLock { _requests } }

    func requests(to suffix: String) -> [Recorded] { requests.filter { $0.path.hasSuffix(suffix) } }

    func send(_ request: AuthHTTPRequest) async throws -> AuthHTTPResponse {
        let recorded = Recorded(request: request)
        lock.withLock { _requests.append(recorded) }
        let (status, json) = try await answer(recorded.path, recorded.body)
        return AuthHTTPResponse(status: status, body: try JSONSerialization.data(withJSONObject: json))
    }
}

/// An unsigned JWT with the claims the SDK reads.
func fakeIDToken(uid: String, provider: String = "password", lifetime: TimeInterval = 3600, extra: [String: Any] = [:]) -> String {
    let now = Date().timeIntervalSince1970
    var claims: [String: Any] = ["sub": uid, "user_id": uid, "iat": Int(now), "auth_time": Int(now),
                                 "exp": Int(now + lifetime), "firebase": ["sign_in_provider": provider]]
    claims.merge(extra) { _, new in new }
    let encode = { (object: Any) in
        (try! JSONSerialization.data(withJSONObject: object)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return encode(["alg": "none", "typ": "JWT"]) + "." + encode(claims) + ".sig"
}

func errorBody(_ message: String, reason: String = "invalid") -> (Int, Any) {
    (400, ["error": ["code": 400, "message": message, "errors": [["message": message, "domain": "global", "reason": reason]]]])
}

/// A fresh app (its own name, in-memory persistence) on a fake transport.
func makeAuth(_ transport: FakeTransport, persistence: AuthPersistence = .memory, name: String = UUID().uuidString) -> Auth {
    Auth.auth(options: AuthOptions(apiKey: "test-key", projectID: "demo", endpoints: .emulator(host: "127.0.0.1", port: 9099),
                                   appName: name, persistence: persistence, transport: transport))
}

/// A backend that signs users in: accounts:signUp / signInWithPassword / lookup / token all answer for `uid`.
func standardServer(uid: String = "uid-1", email: String? = "ada@example.com", provider: String = "password",
                    lifetime: TimeInterval = 3600,
                    tokenDelay: UInt64 = 0, override: (@Sendable (String, [String: Any]) -> (Int, Any)?)? = nil) -> FakeTransport {
    FakeTransport { path, body in
        if let answer = override?(path, body) { return answer }
        let tokens: [String: Any] = ["idToken": fakeIDToken(uid: uid, provider: provider, lifetime: lifetime), "refreshToken": "refresh-\(uid)",
                                     "expiresIn": String(Int(lifetime)), "localId": uid]
        switch path {
        case _ where path.hasSuffix("accounts:lookup"):
            var user: [String: Any] = ["localId": uid, "createdAt": "1700000000000", "lastLoginAt": "1700000100000",
                                       "emailVerified": false]
            if let email {
                user["email"] = email
                user["providerUserInfo"] = [["providerId": "password", "rawId": email, "email": email, "federatedId": email]]
            }
            return (200, ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [user]])
        case _ where path.hasSuffix("/token"):
            if tokenDelay > 0 { try await Task.sleep(nanoseconds: tokenDelay) }
            return (200, ["id_token": fakeIDToken(uid: uid, provider: provider, lifetime: lifetime), "refresh_token": "refresh-\(uid)-next",
                          "expires_in": String(Int(lifetime)), "token_type": "Bearer", "user_id": uid, "project_id": "1"])
        default:
            return (200, tokens)
        }
    }
}
