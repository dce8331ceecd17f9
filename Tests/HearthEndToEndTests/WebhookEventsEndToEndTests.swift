import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Account events reach an app's receiver as Standard Webhooks, verified by the `standardwebhooks` package from PyPI:
/// queued while the receiver is down and delivered once it is up, each user's in order, and sent again by
/// `hearth events replay` with their original ids. The endpoint is added and the replay asked with the `hearth`
/// binary, on the store the running server uses.
@Suite(.serialized, .enabled(if: TestWebhookReceiver.unavailableReason() == nil && hearthBinary != nil,
                             "\(TestWebhookReceiver.unavailableReason() ?? "needs the built hearth binary")"))
struct WebhookEventsEndToEndTests {
    static let project = "events-project"
    static let apiKey = "events-key"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    /// Waits until `condition` holds (``HearthTestSupport/eventually(within:_:)``); records what never happened.
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        guard try await HearthTestSupport.eventually(condition) else {
            Issue.record("never happened: \(what)")
            throw CancellationError()
        }
    }

    @Test func eventsReachTheAppSignedInOrderAfterAnOutageAndAgainOnReplay() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let location = "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path
        let store = try await SQLiteStore.open(path: folder.appendingPathComponent("hearth.sqlite").path)
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        _ = try await directory.contextCreatingIfNeeded(for: Self.project, apiKey: Self.apiKey)
        try await store.insertTenant(TenantRecord(projectID: Self.project, id: "acme-a1b2c", allowPasswordSignup: true))

        // The receiver's endpoint, added with the CLI while the receiver is still down.
        let receiver = try TestWebhookReceiver()
        defer { receiver.stop() }
        let cli = ["--store", location, "--project-id", Self.project]
        let added = try await runHearth(["events", "add", receiver.url] + cli, in: folder)
        #expect(added.status == 0, "\(added.output)")
        let secret = try #require(added.output.split(separator: " ").map(String.init)
            .first { $0.hasPrefix("whsec_") }?.trimmingCharacters(in: .whitespacesAndNewlines), "\(added.output)")

        var configuration = ServerConfiguration(mode: .production, port: 0, projectID: Self.project, initialAPIKey: Self.apiKey)
        configuration.rateLimits.enabled = false
        configuration.webhookRetry = RetryPolicy(initialDelay: 0.05, maximumDelay: 0.2, maximumAttempts: 10_000)
        configuration.webhookPollInterval = .milliseconds(100)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) })
        do {
            try await app.test(.live) { client in
                func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
                    let response = try await client.execute(
                        uri: Self.v1 + path + "?key=" + Self.apiKey, method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
                    return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
                }
                let ada = try await post("/accounts:signUp", ["email": "ada@example.com", "password": "secret123", "returnSecureToken": true])
                let adaID = try #require(ada["localId"] as? String, "\(ada)")
                let signedIn = try await post("/accounts:signInWithPassword", ["email": "ada@example.com", "password": "secret123", "returnSecureToken": true])
                let changed = try await post("/accounts:update", ["idToken": signedIn["idToken"]!, "password": "secret456", "returnSecureToken": true])
                let tia = try await post("/accounts:signUp", ["email": "tia@example.com", "password": "secret123", "tenantId": "acme-a1b2c"])
                let tiaID = try #require(tia["localId"] as? String, "\(tia)")
                let deleted = try await post("/accounts:delete", ["idToken": try #require(changed["idToken"], "\(changed)")])
                #expect(deleted["error"] == nil, "\(deleted)")
                let expected = [adaID: ["user.created", "user.signed_in", "user.password_changed", "user.deleted"], tiaID: ["user.created"]]

                // The receiver is down: every event is tried, fails, and waits its turn again.
                // The receiver is down: each user's first event is tried again and again, the later ones wait behind it.
                try await Self.eventually("each user's first event retried while the receiver is down") {
                    let messages = try await store.webhookMessages(projectID: Self.project, limit: 50)
                    let tried = messages.filter { $0.attempts > 0 }
                    return messages.count == 5 && tried.count == 2 && tried.allSatisfy { $0.attempts >= 3 && $0.lastError != nil }
                }
                let waiting = try await store.webhookMessages(projectID: Self.project, limit: 50).filter { $0.attempts == 0 }
                #expect(waiting.count == 3 && waiting.allSatisfy { $0.state == "pending" && $0.event?.localID == adaID },
                        "ada's later events wait for her first")

                try await receiver.start(secret: secret)
                try await Self.eventually("all five delivered") { receiver.received.count == 5 }
                let received = receiver.received
                for (user, types) in expected {
                    let theirs = received.filter { (($0.event["data"] as? [String: Any])?["uid"] as? String) == user }
                    #expect(theirs.map { $0.event["type"] as? String ?? "" } == types, "in order for \(user): \(received)")
                }
                let created = try #require(received.first { $0.event["type"] as? String == "user.created" })
                #expect((created.event["data"] as? [String: Any])?["ipAddress"] as? String == "127.0.0.1")
                #expect((created.event["data"] as? [String: Any])?["projectId"] as? String == Self.project)
                // The receiver may log an event a moment before Hearth records its answer.
                try await Self.eventually("all five recorded as delivered") {
                    try await store.webhookMessages(projectID: Self.project, limit: 50).allSatisfy { $0.state == "delivered" }
                }

                // A replay sends the log's events again, under their original ids.
                let replay = try await runHearth(["events", "replay", "--since", "1h"] + cli, in: folder)
                #expect(replay.status == 0 && replay.output.contains("queued 5 events"), "\(replay.output)")
                try await Self.eventually("the replay delivered") { receiver.received.count == 10 }
                let ids = receiver.received.map(\.id)
                #expect(Set(ids.prefix(5)) == Set(ids.suffix(5)) && Set(ids).count == 5, "same webhook-ids: \(ids)")

                let deliveries = try await runHearth(["events", "deliveries", "--json"] + cli, in: folder)
                #expect(deliveries.output.contains("\"state\" : \"delivered\"") && deliveries.output.contains("user.password_changed"),
                        "\(deliveries.output)")
            }
        } catch {
            try await store.close()
            throw error
        }
        try await store.close()
    }
}
