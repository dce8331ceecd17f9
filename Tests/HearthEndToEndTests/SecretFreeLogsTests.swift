import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import HearthWire
import Testing

/// The logs of a real `hearth serve` at trace level, in JSON lines, while it runs the flows that handle secrets:
/// sign-up, sign-in (right and wrong), refresh, password change, a reset email over authenticated SMTP, the
/// reset itself, and a metrics scrape. No password, token, code or credential may appear in them; nor may the
/// secret settings, given by config file and by environment, whose reads the start logs.
@Suite(.serialized, .enabled(if: hearthBinary != nil && SMTPSink.unavailableReason() == nil,
                             "needs the built hearth binary and aiosmtpd: \(SMTPSink.unavailableReason() ?? "hearth not built")"))
struct SecretFreeLogsTests {
    @Test func traceLevelLogsCarryNoSecrets() async throws {
        let smtpPassword = "smtp-Pa55-\(UUID().uuidString.prefix(8))"
        let metricsToken = "scrape-\(UUID().uuidString.prefix(8))"
        let webhookSecret = "hook-\(UUID().uuidString.prefix(8))"  // given by environment, the others by file
        let sink = try await SMTPSink.start(security: .startTLS, users: ["mailer": smtpPassword])
        defer { sink.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("hearth.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let settings: [String: Any] = [
            "logLevel": "trace", "logFormat": "json", "rateLimits": true,
            "metrics": ["expose": "main", "token": metricsToken],
            "email": ["from": "noreply@hearth.test", "smtp": [
                "host": "127.0.0.1", "port": sink.port, "security": "starttls", "username": "mailer",
                "password": smtpPassword, "caFile": sink.certificateFile]],
        ]
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(
            store: "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path, settings: settings, log: log,
            environment: ["HEARTH_SMS_WEBHOOK_URL": "http://127.0.0.1:9/sms", "HEARTH_SMS_WEBHOOK_SECRET": webhookSecret])
        defer { stop() }
        typealias T = TwoInstanceRaceTests

        var secrets = [smtpPassword, metricsToken, webhookSecret, "first-Pa55word", "second-Pa55word", "third-Pa55word", "wrong-Pa55word"]
        let user = try await T.call(base, "accounts:signUp", ["email": "logs@example.com", "password": "first-Pa55word", "returnSecureToken": true])
        let idToken = try #require(user["idToken"] as? String, "\(user)")
        secrets += [idToken, try #require(user["refreshToken"] as? String)]
        _ = try await T.call(base, "accounts:signInWithPassword", ["email": "logs@example.com", "password": "wrong-Pa55word"])
        let signedIn = try await T.call(base, "accounts:signInWithPassword", ["email": "logs@example.com", "password": "first-Pa55word"])
        let refreshToken = try #require(signedIn["refreshToken"] as? String)
        secrets += [try #require(signedIn["idToken"] as? String), refreshToken]
        let refreshed = try await T.call(base, "token", ["grant_type": "refresh_token", "refresh_token": refreshToken],
                                         host: "securetoken.googleapis.com", version: "v1")
        secrets.append(try #require(refreshed["id_token"] as? String, "\(refreshed)"))
        let changed = try await T.call(base, "accounts:update", ["idToken": idToken, "password": "second-Pa55word", "returnSecureToken": true])
        secrets += [changed["idToken"] as? String, changed["refreshToken"] as? String].compactMap { $0 }
        _ = try await T.call(base, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "logs@example.com"])
        let mail = try #require(try await sink.waitForMessages(1).first, "the reset email arrives over SMTP")
        let code = try #require(mail.text.flatMap { text in
            text.range(of: #"oobCode=([A-Za-z0-9_-]+)"#, options: .regularExpression).map { String(text[$0].dropFirst(8)) }
        }, "a code in \(mail.text ?? "")")
        secrets.append(code)
        let reset = try await T.call(base, "accounts:resetPassword", ["oobCode": code, "newPassword": "third-Pa55word"])
        #expect(reset["email"] as? String == "logs@example.com", "\(reset)")
        var scrape = URLRequest(url: URL(string: base + "/metrics")!)
        scrape.setValue("Bearer \(metricsToken)", forHTTPHeaderField: "Authorization")
        let (metrics, _) = try await URLSession.shared.data(for: scrape)
        #expect(String(decoding: metrics, as: UTF8.self).contains("hearth_sign_ins_total"))
        // The last request's line has reached the file (the log is written as requests finish).
        #expect(await eventually { (try? String(contentsOf: log, encoding: .utf8))?.contains(#""path":"\/metrics""#) == true
                                   || (try? String(contentsOf: log, encoding: .utf8))?.contains(#""path":"/metrics""#) == true })
        stop()

        let text = try String(contentsOf: log, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count > 20, "trace level logs plenty: \(lines.count) lines")
        let requests = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
            .filter { $0["message"] == "request" }
        #expect(requests.contains { $0["route"] == Endpoints.signUp.path && $0["status"] == "200"
            && $0["hb.request.id"] != nil && $0["ms"] != nil }, "one JSON line per request with route, status, latency, id")
        let settingReads = lines.filter { $0.contains("setting read") }
        #expect(settingReads.contains { $0.contains("sms.webhook.secret") && $0.contains("<REDACTED>") },
                "each setting read is logged at debug, its secrets redacted: \(settingReads.prefix(3))")
        for secret in secrets where !secret.isEmpty {
            #expect(!text.contains(secret), "a secret reached the log: \(secret.prefix(12))…")
        }
    }
}
