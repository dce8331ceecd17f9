import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// The outbox across a real restart: Hearth on an SQLite file queues an email while its SMTP server is down, stops,
/// and the next Hearth process on the same file delivers it.
@Suite(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd: \(SMTPSink.unavailableReason() ?? "")"))
struct MailDeliveryTests {
    /// A clock a minute ahead, standing for "the restart happened after the retry delay".
    struct LaterClock: HearthClock {
        func now() -> Date { Date() + 60 }
    }

    static func runHearth(file: String, smtpPort: Int, clock: any HearthClock = SystemClock(),
                          _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let store = try await SQLiteStore.open(path: file)
        try await store.migrate()
        let port = try freePort()
        var configuration = ServerConfiguration(port: port, projectID: "mail-project",
                                                initialAPIKey: ActionPageBrowserTests.apiKey)
        configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: smtpPort, security: .none, timeout: 30),
            from: "noreply@hearth.test", appName: "Restart Test")
        let hashing = ThreadPoolWorkRunner(threads: 2)
        let app = try await buildApplication(configuration: configuration, store: store, clock: clock,
                                             hashing: hashing, hashParameters: { .generate(memoryCost: 12) },
                                             mailPollInterval: .milliseconds(200))
        let server = Task { try await app.runService() }
        let base = "http://127.0.0.1:\(port)"
        var failure: (any Error)?
        do {
            try await ActionPageBrowserTests.waitUntilListening(base)
            try await body(base)
        } catch {
            failure = error
        }
        server.cancel()
        _ = await server.result
        try await hashing.shutdown()
        try await store.close()
        if let failure { throw failure }
    }

    @Test func anEmailQueuedDuringAnOutageIsDeliveredAfterARestart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-mail-\(UUID().uuidString).sqlite").path
        let down = try await SMTPSink.start()
        let deadPort = down.port
        down.stop()

        try await Self.runHearth(file: file, smtpPort: deadPort) { base in
            _ = try await ActionPageBrowserTests.call(base, "accounts:signUp", ["email": "later@example.com", "password": "secret123"])
            let sent = try await ActionPageBrowserTests.call(base, "accounts:sendOobCode",
                                                             ["requestType": "PASSWORD_RESET", "email": "later@example.com"],
                                                             locale: "ko")
            #expect(sent.status == 200, "the request succeeds although mail is down: the outbox holds the email")
            try await Task.sleep(for: .milliseconds(600))  // the worker tries, fails, schedules a retry
        }
        let between = try await SQLiteStore.open(path: file)
        #expect(try await between.outboxMessages(projectID: "mail-project").count == 1, "kept through the outage and the stop")
        #expect(try await between.claimOutboxMessages(dueAt: Date(), leaseUntil: Date(), limit: 10).isEmpty,
                "the failed attempt scheduled a retry instead of leaving it due")
        try await between.close()
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        try await Self.runHearth(file: file, smtpPort: sink.port, clock: LaterClock()) { _ in
            let mail = try #require(try await sink.waitForMessages(1).first)
            #expect(mail.recipients == ["later@example.com"])
            #expect(mail.subject == "Restart Test 비밀번호를 재설정하세요")
            // The worker removes a message once the server accepted it: wait for that before stopping (stopping
            // earlier would leave it to be sent again after the next start — at-least-once delivery).
            let reader = try await SQLiteStore.open(path: file)
            var left = try await reader.outboxMessages(projectID: "mail-project").count
            for _ in 0..<100 where left > 0 {
                try await Task.sleep(for: .milliseconds(100))
                left = try await reader.outboxMessages(projectID: "mail-project").count
            }
            try await reader.close()
            #expect(left == 0, "delivered, so removed")
        }
    }
}
