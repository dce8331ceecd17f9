import Foundation
import HearthTestSupport
import Testing

/// Against the real binary on a dual-stack listener (`--host ::`): IPv4 clients arrive as `::ffff:a.b.c.d`, and each
/// is limited as its own IPv4 address. Before, all of them shared one IPv6 /64 bucket, so one client that failed 100
/// sign-ins locked every IPv4 client out.
@Suite(.enabled(if: hearthBinary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
                "needs the built hearth binary and curl"))
struct DualStackLimitTests {
    @Test func oneIPv4ClientsFailuresDoNotLockOutAnother() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-dual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, banner) = try await startServe(["--host", "::", "--port", "0", "--store", "memory:"], in: folder,
                                                    environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") })
        defer { server.terminate(); server.waitUntilExit() }
        func field(_ name: String) -> String? {
            banner.split(separator: "\n").first { $0.contains(name) }
                .map { String($0.split(separator: " ").last ?? "") }
        }
        let port = try #require(field("base URL:")?.split(separator: ":").last.map(String.init), "\(banner)")
        let key = try #require(field("API key:"), "\(banner)")
        let url = "http://127.0.0.1:\(port)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=\(key)"

        /// Failed sign-ins (each with its own unknown email, so only the per-address limit adds up) from `source`.
        func failures(from source: String, count: Int, first: Int) async throws -> [String] {
            var arguments: [String] = []
            for index in first..<(first + count) {
                arguments += ["--interface", source, "-s", "-H", "content-type: application/json",
                              "-d", #"{"email":"u\#(index)@example.com","password":"wrong-pass"}"#, "-w", "\n", url, "--next"]
            }
            let (_, output) = try await runProcess(URL(fileURLWithPath: "/usr/bin/curl"), Array(arguments.dropLast()))
            return output.split(separator: "\n").map { line in
                line.contains("TOO_MANY_ATTEMPTS") ? "TOO_MANY" : line.contains("INVALID_LOGIN_CREDENTIALS") ? "INVALID" : String(line)
            }
        }
        // The 101st is refused; a run that straddles an hour boundary may need a few more, since the sliding
        // estimate weighs the previous hour by the share of it still covered (the wall clock, in a real server).
        let guesser = try await failures(from: "127.0.0.2", count: 110, first: 0)
        #expect(guesser.prefix(100).allSatisfy { $0 == "INVALID" }, "\(Set(guesser))")
        #expect(guesser.last == "TOO_MANY", "the guesser's own address reached its limit: \(guesser.suffix(10))")
        let neighbour = try await failures(from: "127.0.0.1", count: 1, first: 1000)
        #expect(neighbour == ["INVALID"], "another IPv4 client is not locked out: \(neighbour)")
    }
}
