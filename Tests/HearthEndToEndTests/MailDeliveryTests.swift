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
        do {
            try await serving(configuration, store: store, clock: clock, mailPollInterval: .milliseconds(200),
                              hashMemoryCost: 12, body)
        } catch {
            try await store.close()
            throw error
        }
        try await store.close()
    }

    @Test func anEmailQueuedDuringAnOutageIsDeliveredAfterARestart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-mail-\(UUID().uuidString).sqlite").path
        // The outage: an SMTP server that cuts every connection, so the test sees when the worker has tried.
        let down = try await SMTPSink.start(dropFirst: 1_000)
        defer { down.stop() }

        try await Self.runHearth(file: file, smtpPort: down.port) { base in
            _ = try await ActionPageBrowserTests.call(base, "accounts:signUp", ["email": "later@example.com", "password": "secret123"])
            let sent = try await ActionPageBrowserTests.call(base, "accounts:sendOobCode",
                                                             ["requestType": "PASSWORD_RESET", "email": "later@example.com"],
                                                             locale: "ko")
            #expect(sent.status == 200, "the request succeeds although mail is down: the outbox holds the email")
            await eventually { down.drops() > 0 }
            #expect(down.drops() >= 1, "the worker tried")
            // Stopping now may catch the worker recording the failure: it finishes that write all the same.
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
            var left = -1
            await eventually {
                left = (try? await reader.outboxMessages(projectID: "mail-project").count) ?? left
                return left == 0
            }
            try await reader.close()
            #expect(left == 0, "delivered, so removed")
        }
    }

    /// A worker stopped in the middle of an attempt still records it (on a real SQLite store, whose writes notice
    /// cancellation): the message comes back after the retry delay, not only when its five-minute lease runs out.
    @Test func aWorkerStoppedMidAttemptRecordsTheFailure() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let entered = AsyncStream<Void>.makeStream()
        let mailer = try ProjectMailer(configuration: EmailConfiguration(from: "noreply@hearth.test", appName: "Stop Test"),
                                       transport: StuckTransport(entered: entered.continuation))
        let worker = OutboxWorker(store: store, mailers: ["p1": mailer])
        try await store.enqueueOutboxMessage(OutboxMessage(projectID: "p1", type: .verifyEmail, recipient: "a@example.com",
                                                           code: "C", link: "http://127.0.0.1/x", createdAt: Date()))
        let attempt = Task { await worker.deliverDue() }
        var iterator = entered.stream.makeAsyncIterator()
        await iterator.next()  // the worker is sending
        attempt.cancel()
        #expect(await attempt.value == 1)
        let back = try await store.claimOutboxMessages(dueAt: Date() + 60, leaseUntil: Date() + 120, limit: 10)
        #expect(back.count == 1 && back.first?.attempts == 1, "rescheduled for a retry, not left under its lease")
        try await store.close()
    }
}

/// A mail server that never answers: the send waits until its task is cancelled.
struct StuckTransport: MailTransport {
    let entered: AsyncStream<Void>.Continuation
    func send(_ message: MailMessage) async throws {
        entered.yield()
        try await Task.sleep(for: .seconds(600))
    }
}
