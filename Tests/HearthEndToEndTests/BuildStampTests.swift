import Foundation
import Testing

/// `hearth --version`'s stamp depends on the checkout's commit alone, so an unchanged checkout builds nothing the
/// second time (`scripts/test` also runs `swift build` twice and checks that the second compiles and links nothing).
@Suite struct BuildStampTests {
    /// The plugin's tool, built beside `hearth` for the host.
    static let tool: URL? = hearthBinary.map { $0.deletingLastPathComponent().appendingPathComponent("EmbedFilesTool") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    @Test(.enabled(if: tool != nil && FileManager.default.fileExists(atPath: checkout.appendingPathComponent(".git/HEAD").path),
                   "needs the built EmbedFilesTool and a git checkout"))
    func theStampIsTheCommitsAndAnUnchangedOneIsNotRewritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("BuildInfo.swift")
        let git = Self.checkout.appendingPathComponent(".git").path

        let (first, firstOutput) = try await runProcess(try #require(Self.tool), ["--build-info", output.path, git])
        #expect(first == 0, "\(firstOutput)")
        let written = try String(contentsOf: output, encoding: .utf8)
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date)

        // The commit and its committer date, as git itself reports them.
        let (_, commit) = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "--git-dir", git, "rev-parse", "HEAD"])
        let (_, epoch) = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "--git-dir", git, "show", "-s", "--format=%ct", "HEAD"])
        let seconds = try #require(TimeInterval(epoch.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(written.contains("static let commit = \"\(commit.prefix(12))\""), "\(written)")
        #expect(written.contains("static let date = \"\(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)))\""), "\(written)")

        // A second run for the same commit leaves the file as it was, time included: nothing downstream recompiles.
        try await Task.sleep(for: .milliseconds(20))
        let (second, _) = try await runProcess(try #require(Self.tool), ["--build-info", output.path, git])
        #expect(second == 0)
        #expect(try String(contentsOf: output, encoding: .utf8) == written)
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date == modified)
    }
}
