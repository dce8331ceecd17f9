import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import Testing

/// The README's quick start runs as written, in the state the README's first command leaves: a second terminal in
/// the checkout, `hearth serve` running from `.build/debug/hearth` (here on a port that is not 9099), and no
/// `hearth` on PATH.
@Suite struct QuickStartTests {
    static func quickStart() throws -> String {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- quickstart:begin -->\n```sh\n"))
        let end = try #require(readme.range(of: "```\n<!-- quickstart:end -->"))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    /// A folder laid out like a checkout after `swift run hearth serve`: `.build/debug/hearth`, and nothing else.
    static func checkoutLikeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-quickstart-\(UUID().uuidString)")
        let debug = folder.appendingPathComponent(".build/debug")
        try FileManager.default.createDirectory(at: debug, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: debug.appendingPathComponent("hearth"),
                                                   withDestinationURL: try #require(hearthBinary))
        return folder
    }

    /// This process's environment without Hearth's settings, and with no `hearth` on PATH.
    static var shellEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .filter { !FileManager.default.isExecutableFile(atPath: "\($0)/hearth") }
        environment["PATH"] = folders.joined(separator: ":")
        return environment
    }

    @Test func theReadmesQuickStartRunsAsWrittenFromTheCheckout() async throws {
        let folder = try Self.checkoutLikeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let shell = Self.shellEnvironment
        var serverEnvironment = shell
        serverEnvironment["HEARTH_PORT"] = String(try freePort())  // the quick start must find it, not assume 9099

        let (server, banner) = try await startServe([], in: folder, environment: serverEnvironment)
        defer { server.terminate(); server.waitUntilExit() }
        try #require(server.isRunning && banner.contains("passwords:"), "hearth serve did not start: \(banner)")
        let script = try Self.quickStart()

        let (status, output) = try await runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", script],
                                                    in: folder, environment: shell)
        #expect(status == 0, "the quick start failed:\n\(output)")
        // Its replies: the sign-in's localId, the refresh's user_id (the same account), and both lookups.
        let lines = output.split(separator: "\n").map(String.init)
        let ids = lines.filter { $0.count == 28 && $0.allSatisfy { $0.isLetter || $0.isNumber } }
        #expect(ids.count == 2 && Set(ids).count == 1, "one account signed in and refreshed: \(output)")
        #expect(lines.filter { $0.contains("'email': 'ada@example.com'") }.count == 2, "lookups by token and by admin: \(output)")
        #expect(!output.contains("note:"), "the running server's address was found: \(output)")

        // No token in the work tree: the checkout holds what it held, and the data folder.
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasPrefix("server-") }  // this test's server log
        #expect(Set(entries) == [".build", "hearth-data"], "\(entries)")

        // Run again, it stops at its first failure (the account exists) with Google's error, and runs nothing after.
        let (again, second) = try await runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", script],
                                                   in: folder, environment: shell)
        #expect(again != 0)
        #expect(second.contains("accounts:signUp refused") && second.contains("EMAIL_EXISTS"), "\(second)")
        #expect(!second.contains("Traceback") && !second.contains("ada@example.com'"), "\(second)")
    }

    /// `project show` and `admin-token` use the running server's address, say when they cannot, and an admin
    /// token signed for another address is refused naming the one expected.
    @Test func theClientCommandsFindTheRunningServerOrSaySo() async throws {
        let folder = try Self.checkoutLikeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let shell = Self.shellEnvironment
        var serverEnvironment = shell
        let port = try freePort()
        serverEnvironment["HEARTH_PORT"] = String(port)
        let base = "http://127.0.0.1:\(port)"
        let (server, banner) = try await startServe([], in: folder, environment: serverEnvironment)
        try #require(server.isRunning && banner.contains("passwords:"), "hearth serve did not start: \(banner)")

        let shown = try await runHearth(["project", "show", "--field", "baseURL"], in: folder, environment: shell)
        #expect(shown.output.hasSuffix("\n" + base + "\n") && !shown.output.contains("note:"), "\(shown.output)")
        _ = try await runHearth(["service-accounts", "create", "backend-api"], in: folder, environment: shell)
        let keyFile = "hearth-data/service-accounts/backend-api.json"
        let token = try await runHearth(["admin-token", "--key-file", keyFile], in: folder, environment: shell)
        let wrong = try await runHearth(["admin-token", "--key-file", keyFile, "--url", "http://127.0.0.1:9099"],
                                        in: folder, environment: shell)
        func lookup(_ bearer: String) async throws -> (Int, String) {
            var request = URLRequest(url: URL(string: base + "/identitytoolkit.googleapis.com/v1/projects/hearth-local/accounts:lookup")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.setValue("Bearer " + bearer.trimmingCharacters(in: .whitespacesAndNewlines), forHTTPHeaderField: "authorization")
            request.httpBody = Data(#"{"email":["nobody@example.com"]}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        #expect(try await lookup(token.output).0 == 200, "\(token.output)")
        let (status, body) = try await lookup(wrong.output)
        #expect(status == 401)
        #expect(body.contains("audience (aud) is http://127.0.0.1:9099") && body.contains("expects \(base)"), "\(body)")

        // Stopped, the record goes, and the commands say which address they assume instead.
        server.terminate()
        server.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("hearth-data/server.json").path))
        let assumed = try await runHearth(["project", "show", "--field", "baseURL"], in: folder, environment: shell)
        #expect(assumed.output.contains("note: no running `hearth serve` recorded") && assumed.output.contains("http://127.0.0.1:9099"),
                "\(assumed.output)")

        // A record left by a server that died (its pid gone) is stale, and said to be.
        let dead = ChildProcess()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let record = #"{"pid":\#(dead.processIdentifier),"baseURL":"http://127.0.0.1:1","startedAt":"x","version":"x"}"#
        try Data(record.utf8).write(to: folder.appendingPathComponent("hearth-data/server.json"))
        let stale = try await runHearth(["admin-token", "--key-file", keyFile], in: folder, environment: shell)
        #expect(stale.output.contains("is no longer running") && stale.output.contains("using http://127.0.0.1:9099"),
                "\(stale.output)")
    }
}
