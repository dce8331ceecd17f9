import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Blocking functions written with the unmodified firebase-functions SDK (`blocking_functions.py`), served by
/// functions-framework: Hearth calls them as Identity Platform does. In production the SDK verifies Hearth's
/// signature against the keys Hearth publishes; in emulator mode it skips the check, as against Firebase's emulator.
/// A tenant's users pass the project's functions.
@Suite(.serialized, .enabled(if: TestBlockingFunctions.unavailableReason() == nil,
                             "\(TestBlockingFunctions.unavailableReason() ?? "")"))
struct BlockingFunctionsEndToEndTests {
    static let apiKey = "hooks-key"
    static let project = "hooks-project"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    static func claims(_ token: Any?) throws -> [String: Any] {
        let parts = try #require(token as? String).split(separator: ".")
        var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func theAppsUnmodifiedHandlersShapeSignUpsAndSignIns(_ mode: ServerConfiguration.Mode) async throws {
        let functions = try TestBlockingFunctions(project: Self.project)
        defer { functions.stop() }
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        // The project's triggers, as `PATCH …/config` with `blockingFunctions.triggers` stores them.
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: Self.project, apiKey: Self.apiKey).record
        var blocking = BlockingFunctions()
        blocking.triggers = ["beforeCreate": .init(functionURI: functions.beforeCreate, updatedAt: Date()),
                             "beforeSignIn": .init(functionURI: functions.beforeSignIn, updatedAt: Date())]
        record.settings.blockingFunctions = blocking
        try await store.updateProject(record)
        try await store.insertTenant(TenantRecord(projectID: Self.project, id: "acme-a1b2c", allowPasswordSignup: true))

        var configuration = ServerConfiguration(mode: mode, port: 0, projectID: Self.project, initialAPIKey: Self.apiKey)
        configuration.rateLimits.enabled = false
        let app = try await buildApplication(configuration: configuration, store: store,
                                             hashing: ThreadPoolWorkRunner(threads: 1), hashParameters: { .generate(memoryCost: 10) })
        try await app.test(.live) { client in
            try await functions.start(emulated: mode == .emulator, hearth: "http://127.0.0.1:\(try #require(client.port))")
            func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
                let response = try await client.execute(
                    uri: Self.v1 + path + "?key=" + Self.apiKey, method: .post,
                    headers: [.contentType: "application/json", .userAgent: "hooks-test/1.0"],
                    body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
                return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
            }
            func error(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

            // beforeCreate names the account and gives it claims; beforeSignIn adds claims to the session.
            let created = try await post("/accounts:signUp", ["email": "ada@example.com", "password": "secret123", "returnSecureToken": true])
            let first = try Self.claims(try #require(created["idToken"] as? String, "\(created) \(functions.log)"))
            #expect(first["plan"] as? String == "free" && first["created_by"] as? String == "password", "\(created) \(functions.log)")
            #expect(first["from_ip"] as? String == "127.0.0.1")
            #expect(first["name"] as? String == "Named by the hook")
            #expect(first["session_method"] as? String == "password" && first["session_agent"] as? String == "hooks-test/1.0")
            let stored = try #require(try await store.user(projectID: Self.project, tenantID: nil, email: "ada@example.com"))
            #expect(stored.displayName == "Named by the hook" && stored.customAttributes?.contains("\"plan\":\"free\"") == true)

            let again = try await post("/accounts:signInWithPassword", ["email": "ada@example.com", "password": "secret123", "returnSecureToken": true])
            let second = try Self.claims(again["idToken"])
            #expect(second["session_method"] as? String == "password" && second["plan"] as? String == "free", "\(again)")
            let refreshed = try await client.execute(
                uri: "/securetoken.googleapis.com/v1/token?key=" + Self.apiKey, method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["grant_type": "refresh_token", "refresh_token": again["refreshToken"]!])))
            let later = try Self.claims((try JSONSerialization.jsonObject(with: Data(buffer: refreshed.body)) as? [String: Any])?["id_token"])
            #expect(later["session_method"] as? String == "password", "session claims stay with the session")

            // A tenant's users pass the project's functions, which see the tenant.
            let tenantUser = try await post("/accounts:signUp", ["email": "tia@example.com", "password": "secret123",
                                                                 "tenantId": "acme-a1b2c", "returnSecureToken": true])
            let tenantClaims = try Self.claims(try #require(tenantUser["idToken"] as? String, "\(tenantUser)"))
            #expect(tenantClaims["tenant"] as? String == "acme-a1b2c" && tenantClaims["plan"] as? String == "free")
            #expect((tenantClaims["firebase"] as? [String: Any])?["tenant"] as? String == "acme-a1b2c")

            // A handler's refusal reaches the client in Firebase's words; nothing is stored.
            let blocked = try await post("/accounts:signUp", ["email": "eve@blocked.example", "password": "secret123"])
            #expect(error(blocked) == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Error: 403, Unauthorized email eve@blocked.example",
                    "\(blocked)")
            #expect(try await store.user(projectID: Self.project, tenantID: nil, email: "eve@blocked.example") == nil)
            let refusal = try await store.auditEvents(projectID: Self.project, AuditQuery(kinds: ["blocking-function-refused"], limit: 5)).first
            #expect(refusal?.outcome == .failure && refusal?.details["event"] == "beforeCreate", "an audit event says why")

            // A handler that disables the account: stored disabled, then refused, as Firebase does.
            let disabled = try await post("/accounts:signUp", ["email": "disable-me@example.com", "password": "secret123"])
            #expect(error(disabled) == "USER_DISABLED", "\(disabled)")
            #expect(try await store.user(projectID: Self.project, tenantID: nil, email: "disable-me@example.com")?.disabled == true)

            // Functions down: the call fails closed, fast, and nothing is half-made.
            functions.stop()
            let down = try await post("/accounts:signUp", ["email": "bob@example.com", "password": "secret123"])
            #expect(error(down)?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to") == true, "\(down)")
            #expect(try await store.user(projectID: Self.project, tenantID: nil, email: "bob@example.com") == nil)
            let signInDown = try await post("/accounts:signInWithPassword", ["email": "ada@example.com", "password": "secret123"])
            #expect(error(signInDown)?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true, "no tokens without the hook")
        }
        try await store.close()
    }
}
