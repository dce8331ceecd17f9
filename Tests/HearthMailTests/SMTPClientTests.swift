import Foundation
import HearthCore
import HearthMail
import HearthTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The SMTP client against a real server (aiosmtpd), in each security mode.
@Suite(.enabled(if: SMTPSink.unavailableReason() == nil, "SMTP sink unavailable: \(SMTPSink.unavailableReason() ?? "")"))
struct SMTPClientTests {
    static func message(subject: String = "Réinitialisez votre mot de passe — テスト") -> MailMessage {
        MailMessage(from: .init("noreply@example.com", name: "Acme Élan"), to: .init("ana@example.com"),
                    subject: subject, text: "Bonjour,\n\n.une ligne qui commence par un point\n\nhttps://x.test/?a=1&b=2\n",
                    html: "<p>Bonjour</p>")
    }

    @Test func deliversOverPlainTCPAndPythonReadsTheMIME() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        let client = SMTPClient(configuration: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 600))
        try await client.send(Self.message())
        let received = try #require(try await sink.waitForMessages(1).first)
        #expect(received.mailFrom == "noreply@example.com" && received.recipients == ["ana@example.com"])
        #expect(received.subject == "Réinitialisez votre mot de passe — テスト")
        #expect(received.rawSubject.contains("=?UTF-8?B?"), "sent encoded: \(received.rawSubject)")
        #expect(received.from == "Acme Élan <noreply@example.com>")
        #expect(received.contentType == "multipart/alternative")
        #expect(received.text?.replacingOccurrences(of: "\r\n", with: "\n") == "Bonjour,\n\n.une ligne qui commence par un point\n\nhttps://x.test/?a=1&b=2\n")
        #expect(received.html?.trimmingCharacters(in: .whitespacesAndNewlines) == "<p>Bonjour</p>")
        #expect(received.messageId?.hasSuffix("@example.com>") == true && received.date != nil)
        #expect(!received.tls && received.login == nil)
    }

    @Test func startTLSThenAuthPlain() async throws {
        let sink = try await SMTPSink.start(security: .startTLS, users: ["mailer": "s3cret"])
        defer { sink.stop() }
        let client = SMTPClient(configuration: .init(host: "localhost", port: sink.port, security: .startTLS,
                                                     username: "mailer", password: "s3cret",
                                                     caFile: sink.certificateFile, timeout: 600))
        try await client.send(Self.message())
        let received = try #require(try await sink.waitForMessages(1).first)
        #expect(received.tls && received.login == "mailer")
    }

    @Test func implicitTLSThenAuthLogin() async throws {
        let sink = try await SMTPSink.start(security: .tls, users: ["mailer": "s3cret"], authMechanisms: ["LOGIN"])
        defer { sink.stop() }
        let client = SMTPClient(configuration: .init(host: "127.0.0.1", port: sink.port, security: .tls,
                                                     username: "mailer", password: "s3cret",
                                                     caFile: sink.certificateFile, timeout: 600))
        try await client.send(Self.message(subject: "plain subject"))
        let received = try #require(try await sink.waitForMessages(1).first)
        #expect(received.tls && received.login == "mailer" && received.subject == "plain subject")
    }

    @Test func wrongPasswordIsAPermanentRefusalThatNamesNoSecret() async throws {
        let sink = try await SMTPSink.start(security: .startTLS, users: ["mailer": "s3cret"])
        defer { sink.stop() }
        let client = SMTPClient(configuration: .init(host: "localhost", port: sink.port, security: .startTLS,
                                                     username: "mailer", password: "wrong-password",
                                                     caFile: sink.certificateFile, timeout: 600))
        do {
            try await client.send(Self.message())
            Issue.record("a wrong password was accepted")
        } catch let error as SMTPError {
            #expect(error.isPermanent)
            #expect(!"\(error)".contains("wrong-password") && !"\(error)".contains(Data("wrong-password".utf8).base64EncodedString()))
        }
        #expect(try sink.messages().isEmpty)
    }

    @Test func neverFallsBackToPlainTextOrTrustsAnUnknownCertificate() async throws {
        let plain = try await SMTPSink.start()
        defer { plain.stop() }
        await #expect(throws: SMTPError.startTLSUnavailable) {
            try await SMTPClient(configuration: .init(host: "127.0.0.1", port: plain.port, security: .startTLS, timeout: 600))
                .send(Self.message())
        }
        await #expect(throws: SMTPError.credentialsNeedTLS) {
            try await SMTPClient(configuration: .init(host: "127.0.0.1", port: plain.port, security: .none,
                                                      username: "u", password: "p", timeout: 600)).send(Self.message())
        }
        let tls = try await SMTPSink.start(security: .tls)
        defer { tls.stop() }
        await #expect(throws: (any Error).self) {
            try await SMTPClient(configuration: .init(host: "localhost", port: tls.port, security: .tls, timeout: 600))
                .send(Self.message())
        }
        #expect(try plain.messages().isEmpty && tls.messages().isEmpty)
    }

    @Test func aDropMidMessageIsAnErrorNotASuccess() async throws {
        let sink = try await SMTPSink.start(dropFirst: 1)
        defer { sink.stop() }
        let client = SMTPClient(configuration: .init(host: "127.0.0.1", port: sink.port, security: .none, timeout: 600))
        await #expect(throws: SMTPError.connectionClosed) { try await client.send(Self.message()) }
        #expect(sink.drops() == 1)
        try await client.send(Self.message())
        #expect(try await sink.waitForMessages(1).count == 1)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        // A socket that listens but never accepts: the connection opens (the kernel's backlog), no byte ever comes.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(listen(fd, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let client = SMTPClient(configuration: .init(host: "127.0.0.1", port: port, security: .none, timeout: 1))
        // It gives up with a timeout, not another error. No bound on how long that took: a loaded CI machine once took
        // 99 s to run this 1 s timer, and a hang would never reach the expectation at all.
        await #expect(throws: SMTPError.timeout) { try await client.send(Self.message()) }
    }
}
