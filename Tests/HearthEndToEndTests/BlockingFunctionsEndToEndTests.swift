import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import HTTPTypes
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
        try await Self.serving(mode, functions: functions,
                               events: ["beforeCreate": functions.beforeCreate, "beforeSignIn": functions.beforeSignIn]) { store, send in
            func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] { try await send(Self.v1 + path, body, [:]) }
            func error(_ reply: [String: Any]) -> String? { Self.error(reply) }

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
            let refreshed = try await send("/securetoken.googleapis.com/v1/token",
                                           ["grant_type": "refresh_token", "refresh_token": again["refreshToken"]!], [:])
            let later = try Self.claims(refreshed["id_token"])
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
    }

    final class CapturedSMS: SMSSender, @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [SMSMessage] = []
        func send(_ message: SMSMessage) async throws { lock.withLock { messages.append(message) } }
        var numbers: [String] { lock.withLock { messages.map(\.phoneNumber) } }
    }

    /// A server for `mode` whose project names `functions` for `events`, with a tenant; `body` gets a JSON poster.
    static func serving(_ mode: ServerConfiguration.Mode, functions: TestBlockingFunctions, events: [String: String],
                        sms: CapturedSMS = CapturedSMS(), configure: (inout ServerConfiguration) -> Void = { _ in },
                        _ body: @escaping @Sendable (SQLiteStore, _ post: @escaping @Sendable (String, [String: Any], [String: String]) async throws -> [String: Any]) async throws -> Void)
        async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: Self.project, apiKey: Self.apiKey).record
        var blocking = BlockingFunctions()
        blocking.triggers = events.mapValues { .init(functionURI: $0, updatedAt: Date()) }
        record.settings.blockingFunctions = blocking
        try await store.updateProject(record)
        try await store.insertTenant(TenantRecord(projectID: Self.project, id: "acme-a1b2c", allowPasswordSignup: true,
                                                  enableEmailLinkSignin: true))
        var configuration = ServerConfiguration(mode: mode, port: 0, projectID: Self.project, initialAPIKey: Self.apiKey)
        configuration.rateLimits.enabled = false
        configuration.phoneSignIn = true
        configure(&configuration)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) }, sms: sms)
        do {
            try await app.test(.live) { client in
            try await functions.start(emulated: mode == .emulator, hearth: "http://127.0.0.1:\(try #require(client.port))")
            try await body(store) { path, json, headers in
                var fields: HTTPFields = [.contentType: "application/json", .userAgent: "hooks-test/1.0"]
                for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
                let response = try await client.execute(uri: path + (path.contains("?") ? "&" : "?") + "key=" + Self.apiKey,
                                                        method: .post, headers: fields,
                                                        body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
                return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
            }
            }
        } catch {
            try await store.close()
            throw error
        }
        try await store.close()
    }

    static func error(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

    /// `beforeSendEmail` and `beforeSendSms` reach the app's handler (checked as firebase-functions' identity.ts
    /// checks them) for each action email and SMS code, in the project and a tenant; `BLOCK` stops the message,
    /// a handler's error reaches the client, and neither leaves a code behind.
    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func emailsAndCodesAskTheirFunctionsFirst(_ mode: ServerConfiguration.Mode) async throws {
        let functions = try TestBlockingFunctions(project: Self.project)
        defer { functions.stop() }
        let sms = CapturedSMS()
        try await Self.serving(mode, functions: functions,
                               events: ["beforeSendEmail": functions.beforeSendEmail, "beforeSendSms": functions.beforeSendSms],
                               sms: sms) { store, post in
            let ada = try await post(Self.v1 + "/accounts:signUp", ["email": "ada@example.com", "password": "secret123"], [:])
            #expect(ada["idToken"] != nil, "\(ada)")
            let reset = try await post(Self.v1 + "/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"],
                                       ["X-Firebase-Locale": "de"])
            #expect(reset["email"] as? String == "ada@example.com", "\(reset) \(functions.log)")
            let link = try await post(Self.v1 + "/accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "tia@example.com",
                                                                          "tenantId": "acme-a1b2c", "continueUrl": "http://localhost/done"], [:])
            #expect(link["email"] as? String == "tia@example.com", "\(link)")
            let code = try await post(Self.v1 + "/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"], [:])
            #expect(code["sessionInfo"] != nil, "\(code)")

            let seen = functions.sentPayloads
            #expect(seen.map { $0["email_type"] as? String ?? $0["sms_type"] as? String ?? "" }
                    == ["PASSWORD_RESET", "EMAIL_SIGN_IN", "SIGN_IN_OR_SIGN_UP"], "\(seen) \(functions.log)")
            #expect(seen.first?["email"] as? String == "ada@example.com" && seen.first?["locale"] as? String == "de")
            #expect(seen.first?["user_agent"] as? String == "hooks-test/1.0" && seen.first?["ip_address"] as? String == "127.0.0.1")
            #expect(seen.dropFirst().first?["tenant_id"] as? String == "acme-a1b2c")
            #expect(seen.last?["phone_number"] as? String == "+15555550100" && seen.last?["event_type"] as? String == "beforeSendSms")
            #expect(sms.numbers == ["+15555550100"])

            // BLOCK stops the message; a handler's error reaches the client in Firebase's words.
            let queued = try await store.outboxMessages(projectID: Self.project).count
            let blocked = try await post(Self.v1 + "/accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "eve@blocked.example",
                                                                             "continueUrl": "http://localhost/done"], [:])
            #expect(Self.error(blocked) == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendEmail function blocked the message.))", "\(blocked)")
            let refused = try await post(Self.v1 + "/accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "bob@refused.example",
                                                                             "continueUrl": "http://localhost/done"], [:])
            #expect(Self.error(refused) == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Error: 400, No mail for bob@refused.example", "\(refused)")
            #expect(try await store.outboxMessages(projectID: Self.project).count == queued, "no email queued")
            let blockedSMS = try await post(Self.v1 + "/accounts:sendVerificationCode", ["phoneNumber": "+15555550666"], [:])
            #expect(Self.error(blockedSMS) == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendSms function blocked the message.))")
            #expect(sms.numbers == ["+15555550100"], "no SMS sent")
            let refusals = try await store.auditEvents(projectID: Self.project, AuditQuery(kinds: ["blocking-function-refused"], limit: 5))
            #expect(refusals.map { $0.details["event"] } == ["beforeSendSms", "beforeSendEmail", "beforeSendEmail"])
        }
    }

    /// Accounts the admin API makes skip `beforeCreate`, as in Firebase, unless `blockingFunctionsOnAdminCreate`
    /// says otherwise; then an administrator's and an import's new accounts pass it too.
    @Test(arguments: [false, true])
    func adminCreatedAccountsPassBeforeCreateOnlyWhenSwitchedOn(_ on: Bool) async throws {
        let functions = try TestBlockingFunctions(project: Self.project)
        defer { functions.stop() }
        try await Self.serving(.emulator, functions: functions, events: ["beforeCreate": functions.beforeCreate],
                               configure: { $0.blockingFunctionsOnAdminCreate = on }) { store, post in
            let owner = ["Authorization": "Bearer owner"]
            let made = try await post(Self.v1 + "/projects/\(Self.project)/accounts", ["email": "eve@blocked.example", "password": "secret123"], owner)
            let imported = try await post(Self.v1 + "/projects/\(Self.project)/accounts:batchCreate",
                                          ["users": [["localId": "imp-1", "email": "mallory@blocked.example"]]], owner)
            let stored = try await store.user(projectID: Self.project, tenantID: nil, email: "eve@blocked.example")
            let importedUser = try await store.user(projectID: Self.project, tenantID: nil, localID: "imp-1")
            if on {
                #expect(Self.error(made) == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Error: 403, Unauthorized email eve@blocked.example", "\(made)")
                #expect(stored == nil && importedUser == nil)
                let failures = try #require(imported["error"] as? [[String: Any]], "\(imported)")
                #expect(failures.first?["index"] as? Int == 0
                        && failures.first?["message"] as? String == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Error: 403, Unauthorized email mallory@blocked.example",
                        "the import names the refused record: \(imported)")
            } else {
                #expect(made["localId"] != nil && stored?.displayName == nil, "\(made): no function ran")
                #expect((imported["error"] as? [Any])?.isEmpty == true && importedUser != nil, "\(imported)")
            }
        }
    }
}
