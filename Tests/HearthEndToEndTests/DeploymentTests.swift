import Foundation
import Testing

let systemdAnalyze: URL? = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].map(URL.init(fileURLWithPath:))
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }

/// The systemd unit in `deploy/` is valid as systemd reads it, installs with `[Install]`, and is sandboxed: its
/// exposure, as `systemd-analyze security` scores it, stays "OK" (below 2.0 of 10).
@Suite(.enabled(if: systemdAnalyze != nil && hearthBinary != nil, "needs systemd-analyze (apt-get install systemd) and the built hearth binary"))
struct DeploymentTests {
    static func analyze(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runProcess(try #require(systemdAnalyze), arguments)
    }

    @Test func theSystemdUnitIsValidAndSandboxed() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let unit = try String(contentsOf: repository.appendingPathComponent("deploy/hearth.service"), encoding: .utf8)
        #expect(unit.contains("[Install]") && unit.contains("WantedBy=multi-user.target"))
        // Verified as installed, with the binary systemd would start.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("hearth.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/hearth", with: try #require(hearthBinary).path)
            .write(to: file, atomically: true, encoding: .utf8)
        let verified = try await Self.analyze(["verify", file.path])
        #expect(verified.status == 0 && verified.output.isEmpty, "\(verified.output)")
        let security = try await Self.analyze(["security", "--offline=true", file.path])
        let line = security.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect((score ?? 10) < 2.0, "\(line)")
    }
}
