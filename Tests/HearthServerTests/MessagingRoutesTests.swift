import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthTestSupport
import HTTPTypes
import HearthWire
import Testing

/// `MessagingRoutes`: what an operator checks by hand, through the console's session.
@Suite struct MessagingRoutesTests {
    /// The console's settings tools: an email previewed with the real engine (a draft too, a broken one refused),
    /// and test messages through the configured SMTP server (a real one here) and SMS provider.
    @Test(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd"))
    func previewsAndTestMessages() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var configured = try await ConsoleRoutesTests.app()
        configured.configuration.email = EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 10), from: "noreply@acme.test", appName: "Acme")
        let app = configured
        try await app.run { client in
            let signedIn = try await ConsoleRoutesTests.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"
            let french = try await client.post(base + "/emailTemplates:preview", ["type": "PASSWORD_RESET", "locale": "fr"],
                                               key: nil, headers: console)
            #expect((french["subject"] as? String)?.contains("Acme") == true && french["locale"] as? String == "fr", "\(french.text)")
            #expect((french["locales"] as? [String])?.contains("ja") == true)
            let draft = try await client.post(base + "/emailTemplates:preview", [
                "type": "VERIFY_EMAIL", "locale": "en", "template": ["subject": "Welcome to {{appName}}", "text": "Go: {{link}}"],
            ], key: nil, headers: console)
            #expect(draft["subject"] as? String == "Welcome to Acme" && (draft["text"] as? String)?.hasPrefix("Go: http") == true,
                    "\(draft.text)")
            let broken = try await client.post(base + "/emailTemplates:preview", [
                "type": "VERIFY_EMAIL", "template": ["text": "{{#link}}never closed"]], key: nil, headers: console)
            #expect(broken.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(broken.text)")

            let mail = try await client.post(base + "/emailTest", ["to": "ops@example.com"], key: nil, headers: console)
            #expect(mail["delivered"] as? Bool == true, "\(mail.text)")
            let received = try #require(try await sink.waitForMessages(1).first)
            #expect(received.recipients == ["ops@example.com"] && received.subject.contains("Acme"))
            let sms = try await client.post(base + "/smsTest", ["phoneNumber": "+15555550100"], key: nil, headers: console)
            #expect(sms["delivered"] as? Bool == true && app.sms.messages.last?.phoneNumber == "+15555550100", "\(sms.text)")
            app.sms.fail(true)
            let down = try await client.post(base + "/smsTest", ["phoneNumber": "+15555550100"], key: nil, headers: console)
            #expect(down["delivered"] as? Bool == false && (down["error"] as? String)?.contains("provider down") == true, "\(down.text)")
        }
    }
}
