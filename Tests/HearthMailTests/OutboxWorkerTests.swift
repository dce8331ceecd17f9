import Foundation
import HearthCore
import HearthMail
import HearthTestSupport
import Testing

/// The outbox worker with a real SMTP server: delivery, retries after a failure mid-message, an outage survived by
/// a restart, and giving up on refusals.
@Suite(.enabled(if: SMTPSink.unavailableReason() == nil, "SMTP sink unavailable: \(SMTPSink.unavailableReason() ?? "")"))
struct OutboxWorkerTests {
    let clock = ManualClock()
    let store = InMemoryStore()

    func mailer(port: Int) throws -> ProjectMailer {
        try ProjectMailer(configuration: EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: port, security: .none, timeout: 30),
            from: "noreply@acme.test", appName: "Acme", defaultLocale: "en"))
    }

    func worker(port: Int) throws -> OutboxWorker {
        OutboxWorker(store: store, mailers: ["p1": try mailer(port: port)], clock: clock,
                     retry: RetryPolicy(initialDelay: 30, maximumDelay: 600, maximumAttempts: 5))
    }

    func queue(_ type: ActionCodeType = .passwordReset, locale: String? = "fr", id: String = "m1") async throws {
        try await store.enqueueOutboxMessage(OutboxMessage(
            id: id, projectID: "p1", type: type, recipient: "ana@example.com", code: "CODE",
            link: "http://127.0.0.1:9099/__/auth/action?mode=resetPassword&oobCode=CODE&apiKey=k&lang=fr",
            locale: locale, displayName: "Ana", createdAt: clock.now()))
    }

    @Test func deliversInTheRecipientsLanguageAndEmptiesTheOutbox() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        try await queue()
        #expect(await (try worker(port: sink.port)).deliverDue() == 1)
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail.subject == "Réinitialisez votre mot de passe pour Acme")
        #expect(mail.from == "Acme <noreply@acme.test>" && mail.recipients == ["ana@example.com"])
        #expect(mail.text?.contains("oobCode=CODE") == true && mail.text?.contains("Bonjour Ana,") == true)
        #expect(mail.html?.contains("href=\"http://127.0.0.1:9099/__/auth/action?mode=resetPassword&amp;oobCode=CODE") == true)
        #expect(try await store.outboxMessages(projectID: "p1").isEmpty)
    }

    @Test func aConnectionDroppedMidMessageIsRetriedAfterBackoffAndDeliveredOnce() async throws {
        let sink = try await SMTPSink.start(dropFirst: 1)
        defer { sink.stop() }
        let worker = try worker(port: sink.port)
        try await queue()
        #expect(await worker.deliverDue() == 1)
        #expect(try sink.drops() == 1 && sink.messages().isEmpty)
        #expect(try await store.outboxMessages(projectID: "p1").count == 1, "kept for a retry")
        #expect(await worker.deliverDue() == 0, "not retried before the backoff")
        clock.advance(by: 37)  // 30 s ± 20 %
        #expect(await worker.deliverDue() == 1)
        #expect(try await sink.waitForMessages(1).count == 1)
        #expect(await worker.deliverDue() == 0, "nothing left to send")  // a pass awaits its sends: no late copy
        #expect(try sink.messages().count == 1, "delivered exactly once")
        #expect(try await store.outboxMessages(projectID: "p1").isEmpty)
    }

    @Test func anOutageLosesNothing_aRestartedWorkerDeliversWhatWasQueued() async throws {
        // Nothing listens on this port: every attempt fails to connect.
        let down = try await SMTPSink.start()
        let deadPort = down.port
        down.stop()
        try await queue(.verifyEmail, locale: "ja")
        let first = try worker(port: deadPort)
        #expect(await first.deliverDue() == 1)
        clock.advance(by: 40)
        #expect(await first.deliverDue() == 1, "retried")
        #expect(try await store.outboxMessages(projectID: "p1").count == 1)

        // The server comes back; a new worker (a restarted Hearth) on the same store delivers it.
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        clock.advance(by: 80)
        #expect(await (try worker(port: sink.port)).deliverDue() == 1)
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail.subject == "Acme のメールアドレスを確認してください")
    }

    @Test func aPermanentRefusalOrAnExpiredLinkIsGivenUp() async throws {
        let sink = try await SMTPSink.start(rejectWith: 550)
        defer { sink.stop() }
        let worker = try worker(port: sink.port)
        try await queue(id: "refused")
        #expect(await worker.deliverDue() == 1)
        clock.advance(by: 86400 * 30)
        #expect(await worker.deliverDue() == 0, "a 550 is not retried")
        #expect(try await store.outboxMessages(projectID: "p1").map(\.id) == ["refused"], "kept for the operator")

        let down = try await SMTPSink.start()
        let deadPort = down.port
        down.stop()
        try await queue(id: "late")
        let failing = try self.worker(port: deadPort)
        clock.advance(by: 3601)  // a password-reset link lives an hour
        #expect(await failing.deliverDue() == 1)
        clock.advance(by: 86400)
        #expect(await failing.deliverDue() == 0, "a message whose link expired is not retried")
    }

    @Test func backoffDoublesUpToItsCap() {
        let policy = RetryPolicy(initialDelay: 30, maximumDelay: 600, maximumAttempts: 5)
        #expect((1...6).map(policy.delay(afterAttempt:)) == [30, 60, 120, 240, 480, 600])
    }

    @Test func theRunLoopDeliversWhenRungAndStopsWhenCancelled() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        let worker = OutboxWorker(store: store, mailers: ["p1": try mailer(port: sink.port)], clock: clock,
                                  pollInterval: .seconds(3600))
        let running = Task { await worker.run() }
        try await queue()
        worker.ring()  // kept by the doorbell if the loop has not started yet
        #expect(try await sink.waitForMessages(1).count == 1)
        running.cancel()
        await running.value
    }
}
