import Foundation
import HearthCore
import HearthServer
import Hummingbird
import HummingbirdTesting
import HearthWire
import Testing

/// A Hearth application on the in-memory store with cheap hash parameters and a hand-moved clock.
struct TestApp {
    static let apiKey = "test-api-key"
    let clock = ManualClock(Date())
    let store = InMemoryStore()
    var configuration: ServerConfiguration
    /// Over real HTTP on a loopback port (Hummingbird's `.live`) instead of calling the router in process.
    var live = false
    /// Production's SMS provider in tests: records what would be sent.
    let sms = RecordingSMSSender()

    init(mode: ServerConfiguration.Mode = .production, protection: Bool? = nil) {
        configuration = ServerConfiguration(mode: mode, port: 0, projectID: "demo-project",
                                            emailEnumerationProtection: protection, initialAPIKey: Self.apiKey)
        // Production's defaults are off for both; the tests that need them off say so.
        configuration.phoneSignIn = true
        configuration.anonymousSignIn = true
    }

    func run(_ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        try await TestAppOn(app: self, store: store).run(body)
    }
}

/// A ``TestApp`` on a store shared with other apps: for what must survive a restart.
struct TestAppOn {
    var app: TestApp
    let store: InMemoryStore

    func run(_ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        let built = try await buildApplication(
            configuration: app.configuration, store: store, clock: app.clock, hashing: InlineWorkRunner(),
            hashParameters: { .generate(memoryCost: 10) }, sms: app.configuration.isEmulator ? nil : app.sms)
        try await built.test(app.live ? .live : .router) { client in try await body(Client(client: client)) }
    }
}

/// An SMS provider that keeps the messages, for production-mode tests.
final class RecordingSMSSender: SMSSender, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [SMSMessage] = []
    private var down = false
    var messages: [SMSMessage] { lock.withLock { sent } }
    /// Makes the provider fail, as one that is down.
    func fail(_ failing: Bool) { lock.withLock { down = failing } }
    func send(_ message: SMSMessage) async throws {
        try lock.withLock {
            if down { throw SMSDeliveryFailure(reason: "provider down (test)") }
            sent.append(message)
        }
    }
}

/// A thin client that speaks JSON and remembers the API key.
struct Client: Sendable {
    let client: any TestClientProtocol

    @discardableResult
    func post(_ path: String, _ body: Any? = nil, key: String? = TestApp.apiKey, raw: String? = nil,
              headers: HTTPFields = [:]) async throws -> Reply {
        try await send(.post, path, body, key: key, raw: raw, headers: headers)
    }

    @discardableResult
    func send(_ method: HTTPRequest.Method, _ path: String, _ body: Any? = nil, key: String? = TestApp.apiKey,
              raw: String? = nil, headers: HTTPFields = [:]) async throws -> Reply {
        var uri = path
        if let key { uri += (uri.contains("?") ? "&" : "?") + "key=" + key }
        var headers = headers
        if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let data: Data? = if let raw { Data(raw.utf8) } else if let body { try JSONSerialization.data(withJSONObject: body) } else { nil }
        let response = try await client.execute(uri: uri, method: method, headers: headers,
                                                body: data.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status.code, headers: response.headers, data: Data(buffer: response.body))
    }

    /// Signs up with email and password and returns the response body.
    func signUp(_ email: String, _ password: String = "secret1") async throws -> [String: Any] {
        let reply = try await post(Endpoints.signUp.path,
                                   ["email": email, "password": password, "returnSecureToken": true])
        try #require(reply.status == 200, "sign-up failed: \(reply.text)")
        return try reply.object()
    }
}

struct Reply: Sendable {
    let status: Int
    let headers: HTTPFields
    let data: Data

    var text: String { String(decoding: data, as: UTF8.self) }

    func object() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object: \(text)")
    }

    /// `error.message` of an error envelope.
    var errorMessage: String? {
        ((try? object())?["error"] as? [String: Any])?["message"] as? String
    }

    subscript(key: String) -> Any? { (try? object())?[key] }
}

/// A captured Firebase emulator exchange (see shared/fixtures/firebase-emulator/README.md).
struct Fixture {
    let json: [String: Any]

    init(_ name: String) throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
        json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    var request: [String: Any] { json["request"] as! [String: Any] }
    var response: [String: Any] { json["response"] as! [String: Any] }
    var status: Int { response["status"] as! Int }
    var body: Any { response["body"]! }
    var requestBody: Any? { request["body"] }
    var path: String {
        let full = request["path"] as! String
        return String(full.split(separator: "?", maxSplits: 1)[0])
    }
}

/// Checks that `ours` has the fixture's shape: the same keys at every level (minus `ignoring`) and the same JSON
/// types; values are not compared (tokens, ids and times differ on every run).
func expectSameShape(_ ours: Any, _ theirs: Any, ignoring: Set<String> = [], path: String = "$",
                     sourceLocation: SourceLocation = #_sourceLocation) {
    switch (ours, theirs) {
    case (let a as [String: Any], let b as [String: Any]):
        let keysA = Set(a.keys).subtracting(ignoring)
        let keysB = Set(b.keys).subtracting(ignoring)
        #expect(keysA == keysB, "keys differ at \(path): ours \(keysA.sorted()), Firebase \(keysB.sorted())",
                sourceLocation: sourceLocation)
        for key in keysA.intersection(keysB) {
            expectSameShape(a[key]!, b[key]!, ignoring: ignoring, path: path + "." + key, sourceLocation: sourceLocation)
        }
    case (let a as [Any], let b as [Any]):
        if let first = a.first, let other = b.first {
            expectSameShape(first, other, ignoring: ignoring, path: path + "[0]", sourceLocation: sourceLocation)
        }
    default:
        #expect(jsonType(ours) == jsonType(theirs), "type differs at \(path): \(jsonType(ours)) vs \(jsonType(theirs))",
                sourceLocation: sourceLocation)
    }
}

private func jsonType(_ value: Any) -> String {
    switch value {
    case is String: "string"
    case let number as NSNumber:
        String(describing: type(of: number)).contains("Boolean") || String(cString: number.objCType) == "c"
            ? "boolean" : "number"
    case is NSNull: "null"
    default: "\(type(of: value))"
    }
}
