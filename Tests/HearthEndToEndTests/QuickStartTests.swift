import Foundation
import HearthTestSupport
import Testing

/// The README's quick start runs as written: its block, as a bash script with `set -euo pipefail`, against a fresh
/// `hearth serve` in an empty folder, with the built `hearth` first on PATH.
@Suite struct QuickStartTests {
    static func quickStart() throws -> String {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- quickstart:begin -->\n```sh\n"))
        let end = try #require(readme.range(of: "```\n<!-- quickstart:end -->"))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test func theReadmesQuickStartRunsAsWritten() async throws {
        let binary = try #require(hearthBinary)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-quickstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment["HEARTH_PORT"] = String(try freePort())
        environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        // The README's first command, in the folder the quick start then runs in.
        let (server, banner) = try await startServe([], in: folder, environment: environment)
        defer { server.terminate(); server.waitUntilExit() }
        try #require(server.isRunning && banner.contains("passwords:"), "hearth serve did not start: \(banner)")

        let (status, output) = try await runProcess(URL(fileURLWithPath: "/bin/bash"),
                                                    ["-euo", "pipefail", "-c", try Self.quickStart()],
                                                    in: folder, environment: environment)
        #expect(status == 0, "the quick start failed:\n\(output)")
        // Its replies: the sign-in's localId, the refresh's user_id (the same account), and the admin lookup's user.
        let lines = output.split(separator: "\n").map(String.init)
        let ids = lines.filter { $0.count == 28 && $0.allSatisfy { $0.isLetter || $0.isNumber } }
        #expect(ids.count == 2 && Set(ids).count == 1, "one account signed in and refreshed: \(output)")
        #expect(lines.filter { $0.contains("'email': 'ada@example.com'") }.count == 2, "lookups by token and by admin: \(output)")
    }
}
