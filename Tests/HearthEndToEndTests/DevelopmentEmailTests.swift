import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import Testing

/// Reading emails in development: the docs' two-command SMTP sink, and `hearth outbox list`, which shows links and
/// codes in emulator mode only.
@Suite(.enabled(if: SMTPSink.unavailableReason() == nil, "needs aiosmtpd: \(SMTPSink.unavailableReason() ?? "")"))
struct DevelopmentEmailTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The recipe's two lines, as docs/sign-in-methods.md prints them.
    static func recipe() throws -> (sink: String, serve: String) {
        let page = try String(contentsOf: checkout.appendingPathComponent("docs/sign-in-methods.md"), encoding: .utf8)
        let start = try #require(page.range(of: "<!-- mail-sink:begin -->\n```sh\n"))
        let end = try #require(page.range(of: "```\n<!-- mail-sink:end -->"))
        let lines = page[start.upperBound..<end.lowerBound].split(separator: "\n")
            .map { String($0.split(separator: "#", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces) }
        try #require(lines.count == 2, "two commands: \(lines)")
        return (lines[0], lines[1])
    }

    /// One client call to a `hearth serve` process, with its API key.
    static func call(_ base: String, key: String, _ endpoint: String, _ body: [String: Any]) async throws -> Int {
        var request = URLRequest(url: URL(string: "\(base)/identitytoolkit.googleapis.com/v1/\(endpoint)?key=\(key)")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-dev-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") } }

    @Test func theDocsSMTPSinkPrintsAPasswordResetWithItsLink() async throws {
        let (sinkLine, serveLine) = try Self.recipe()
        #expect(sinkLine == "python3 scripts/mail-sink.py")
        let prefix = "HEARTH_SMTP_URL='"
        #expect(serveLine.hasPrefix(prefix) && serveLine.hasSuffix("' swift run hearth serve"), "\(serveLine)")
        let documentedURL = String(serveLine.dropFirst(prefix.count).prefix { $0 != "'" })
        #expect(documentedURL == "smtp://127.0.0.1:2525?security=none")

        // The same two commands, on a free port instead of 2525 (tests run side by side), and the built hearth.
        let smtpPort = try freePort()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sinkLog = folder.appendingPathComponent("sink.log")
        FileManager.default.createFile(atPath: sinkLog.path, contents: nil)
        let sink = ChildProcess()
        sink.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sink.arguments = sinkLine.split(separator: " ").map(String.init) + ["--port", String(smtpPort)]
        sink.currentDirectoryURL = Self.checkout
        sink.standardOutput = try FileHandle(forWritingTo: sinkLog)
        sink.standardError = sink.standardOutput
        try sink.run()
        defer { sink.terminate(); sink.waitUntilExit() }
        let printed = { (try? String(contentsOf: sinkLog, encoding: .utf8)) ?? "" }
        try #require(try await sink.whileRunning { printed().contains("mail sink on") ? true : nil } == true, "\(printed())")

        var environment = Self.environment
        environment["HEARTH_SMTP_URL"] = documentedURL.replacingOccurrences(of: ":2525", with: ":\(smtpPort)")
        let port = try freePort()
        environment["HEARTH_PORT"] = String(port)
        let (server, banner) = try await startServe([], in: folder, environment: environment)
        defer { server.terminate(); server.waitUntilExit() }
        try #require(banner.contains("email:       SMTP 127.0.0.1:\(smtpPort)"), "\(banner)")
        let key = try await runHearth(["project", "show", "--field", "apiKey"], in: folder, environment: Self.environment)
            .output.split(separator: "\n").last.map(String.init) ?? ""
        let base = "http://127.0.0.1:\(port)"
        #expect(try await Self.call(base, key: key, "accounts:signUp", ["email": "dev@example.com", "password": "secret123"]) == 200)
        #expect(try await Self.call(base, key: key, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "dev@example.com"]) == 200)

        // The sink prints it readably: the subject, the recipient, and the link as plain text, not base64.
        #expect(await eventually { printed().contains("oobCode=") }, "the sink printed no email: \(printed())")
        let mail = printed()
        #expect(mail.contains("To:      dev@example.com"), "\(mail)")
        #expect(mail.contains("Subject: Reset your password"), "\(mail)")
        #expect(mail.contains("\(base)/__/auth/action?mode=resetPassword&oobCode="), "\(mail)")
    }

    @Test func outboxListShowsMetadataInProductionAndLinksInEmulatorMode() async throws {
        for emulator in [false, true] {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            var environment = Self.environment
            let port = try freePort()
            environment["HEARTH_PORT"] = String(port)
            // Emulator mode on a file, so the command can read what the running server queued.
            let arguments = emulator ? ["--emulator", "--store", "sqlite:hearth-data/hearth.sqlite"] : []
            let (server, banner) = try await startServe(arguments, in: folder, environment: environment)
            defer { server.terminate(); server.waitUntilExit() }
            try #require(banner.contains("passwords:"), "\(banner)")
            let key = emulator ? "any-key" : try await runHearth(["project", "show", "--field", "apiKey"], in: folder,
                                                                 environment: Self.environment).output
                .split(separator: "\n").last.map(String.init) ?? ""
            let base = "http://127.0.0.1:\(port)"
            #expect(try await Self.call(base, key: key, "accounts:signUp", ["email": "waiting@example.com", "password": "secret123"]) == 200)
            #expect(try await Self.call(base, key: key, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "waiting@example.com"]) == 200)

            let (status, output) = try await runHearth(["outbox", "list", "--json"], in: folder, environment: Self.environment)
            #expect(status == 0, "\(output)")
            let json = try #require(output.range(of: "[").map { String(output[$0.lowerBound...]) })
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]], "\(output)")
            let row = try #require(rows.first, "\(output)")
            #expect(rows.count == 1 && row["type"] == "PASSWORD_RESET" && row["to"] == "waiting@example.com", "\(rows)")
            #expect(row["state"] == "waiting", "\(row)")
            if emulator {
                #expect(row["link"]?.contains("mode=resetPassword&oobCode=\(row["code"] ?? "?")") == true, "\(row)")
            } else {
                #expect(row["link"] == nil && row["code"] == nil && !output.contains("oobCode"), "no credentials in production: \(output)")
            }
            let table = try await runHearth(["outbox", "list"], in: folder, environment: Self.environment)
            #expect(table.output.contains("QUEUED (UTC)") && table.output.contains("waiting@example.com"), "\(table.output)")
        }
    }
}
