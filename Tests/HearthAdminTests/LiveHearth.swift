import AsyncHTTPClient
import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat

/// A production-mode Hearth on a loopback port and a SQLite file, with one registered service account: what
/// HearthAdmin talks to in these tests, over real HTTP.
struct LiveHearth: Sendable {
    static let apiKey = "admin-sdk-test-key"
    static let projectID = "admin-sdk-test"
    let baseURL: String
    let keyFile: Data
    let store: SQLiteStore

    static func run(_ body: @escaping @Sendable (LiveHearth) async throws -> Void) async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: projectID, apiKey: apiKey).record
        let key = try ServiceAccountKey.generate(name: "backend-api", projectID: projectID, now: Date())
        record.serviceAccounts.append(key.record)
        try await store.updateProject(record)

        let hashing = ThreadPoolWorkRunner(threads: 1)
        let configuration = ServerConfiguration(port: 0, projectID: projectID, initialAPIKey: apiKey)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: hashing,
                                             hashParameters: { .generate(memoryCost: 10) })
        do {
            try await app.test(.live) { client in
                let live = LiveHearth(baseURL: "http://127.0.0.1:\(client.port!)", keyFile: key.keyFileJSON, store: store)
                try await body(live)
            }
        } catch {
            try? await hashing.shutdown()
            try? await store.close()
            throw error
        }
        try await hashing.shutdown()
        try await store.close()
    }

    /// A client-API call (what an app's Firebase SDK sends), JSON in and out.
    func client(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: baseURL + path + "?key=" + Self.apiKey)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
    func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
}
