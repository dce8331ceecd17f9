import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An identity provider for tests: `test_idp.py` in a child process, with keys and ID tokens from authlib (a JOSE
/// library we did not write). It serves OIDC discovery and JWKS, Graph-, GitHub- and X-like profile endpoints, and a
/// `/slow` endpoint; tests mint tokens and register access tokens through it.
///
/// ```swift
/// let idp = try await TestIdentityProvider.start()
/// defer { idp.stop() }
/// let token = try await idp.mint(["aud": "client", "sub": "u1", "exp": Date().timeIntervalSince1970 + 600])
/// ```
public final class TestIdentityProvider: @unchecked Sendable {
    public let port: Int
    public var issuer: String { "http://127.0.0.1:\(port)" }
    private let process: ChildProcess

    /// Why it cannot run here (python3 with authlib), or `nil`.
    public static func unavailableReason() -> String? {
        Python.has("authlib.jose") ? nil : "python3 with authlib is missing (pip install authlib; .ci/run does)"
    }

    public static func start() async throws -> TestIdentityProvider {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-idp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let script = Bundle.module.url(forResource: "test_idp", withExtension: "py") else {
            throw NSError(domain: "TestIdentityProvider", code: 1, userInfo: [NSLocalizedDescriptionKey: "test_idp.py is missing"])
        }
        let portFile = directory.appendingPathComponent("port")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, portFile.path]
        let log = directory.appendingPathComponent("idp.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        if let port = try await process.whileRunning(until: { (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) } }) {
            return TestIdentityProvider(port: port, process: process)
        }
        throw NSError(domain: "TestIdentityProvider", code: 2, userInfo: [NSLocalizedDescriptionKey:
            "the test IdP did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"])
    }

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    deinit { stop() }

    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// An ID token with `claims` (`iss` defaults to this issuer), signed with the published key — or, `forged`,
    /// with another key under the same `kid`.
    public func mint(_ claims: [String: Any], forged: Bool = false) async throws -> String {
        let reply = try await post("/mint", ["claims": claims, "forged": forged])
        guard let token = reply["id_token"] as? String else { throw NSError(domain: "TestIdentityProvider", code: 3) }
        return token
    }

    /// Makes `token` an access token whose profile endpoints answer `profile` (and, GitHub-like, `emails`).
    public func register(accessToken token: String, profile: [String: Any], emails: [[String: Any]] = []) async throws {
        _ = try await post("/profiles", ["token": token, "profile": profile, "emails": emails])
    }

    /// The OAuth 1.0a consumer its `verify_credentials` accepts (signatures checked by oauthlib).
    public static let consumerKey = "twitter-consumer-key-0001"
    public static let consumerSecret = "twitter-consumer-secret"

    /// Whether the OAuth 1.0a endpoint runs (python3 has oauthlib).
    public static var hasOAuth1: Bool { Python.has("oauthlib.oauth1") }

    /// Makes `token`/`secret` an OAuth 1.0a access token whose `verify_credentials` answers `profile`.
    public func register(oauth1Token token: String, secret: String, profile: [String: Any]) async throws {
        _ = try await post("/oauth1-tokens", ["token": token, "secret": secret, "profile": profile])
    }

    /// A Game Center identity-verification signature for `player` and `bundle`, made as GameKit makes one (by
    /// Python's `cryptography`): the key's URL, the signature and salt (base64), the timestamp (ms).
    public func gameCenterSignature(player: String, bundle: String, timestamp: Int64? = nil) async throws
        -> (publicKeyURL: String, signature: String, salt: String, timestamp: Int64)
    {
        var body: [String: Any] = ["player": player, "bundle": bundle]
        if let timestamp { body["timestamp"] = timestamp }
        let reply = try await post("/gc/sign", body)
        return (reply["publicKeyUrl"] as? String ?? "", reply["signature"] as? String ?? "", reply["salt"] as? String ?? "",
                (reply["timestamp"] as? NSNumber)?.int64Value ?? 0)
    }

    /// The client secret its token endpoint expects.
    public static let clientSecret = "idp-secret"

    /// Follows an authorization URL as a browser would, for the user `login_hint` names: the URL the IdP sends the
    /// browser back to (the app's redirect URI with `code` and `state`).
    public func authorize(_ url: String) async throws -> String {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, _) = try await URLSession.shared.data(for: request)
        let reply = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        guard let location = reply["location"] as? String else {
            throw NSError(domain: "TestIdentityProvider", code: 4, userInfo: [NSLocalizedDescriptionKey: "\(reply)"])
        }
        return location
    }

    /// Sign in with Apple's side: the app's key that Hearth signs client secrets with (team id, key id, PKCS#8 PEM),
    /// served at `/apple/token` and `/apple/revoke`, which accept only client secrets signed with it.
    public func appleKey() async throws -> (teamId: String, keyId: String, privateKey: String) {
        let reply = try await get("/apple/key")
        return (reply["teamId"] as? String ?? "", reply["keyId"] as? String ?? "", reply["privateKey"] as? String ?? "")
    }

    /// What `/apple/revoke` revoked so far: `token`, `hint`, `client`.
    public func appleRevoked() async throws -> [[String: String]] {
        try await get("/apple/revoked")["revoked"] as? [[String: String]] ?? []
    }

    private func get(_ path: String) async throws -> [String: Any] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: issuer + path)!)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    private func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: issuer + path)!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}
