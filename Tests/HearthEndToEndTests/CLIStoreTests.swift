import Foundation
import Testing

/// The commands other than `serve` open an existing store and project and name them; run from the wrong folder or
/// for a project the store lacks, they stop and say where they looked instead of creating a new store with new keys.
@Suite(.enabled(if: hearthBinary != nil, "needs the built hearth binary"))
struct CLIStoreTests {
    static func hearth(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        try runHearth(arguments, in: folder, environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") })
    }

    @Test func commandsNameTheirStoreAndCreateNothingUnasked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let exists = { (name: String) in FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) }

        let stray = try Self.hearth(["service-accounts", "create", "backend-api"], in: folder)
        #expect(stray.status != 0 && stray.output.contains("no Hearth store at") && stray.output.contains("--create-project"),
                "\(stray.output)")
        #expect(!exists("hearth-data") && !exists("backend-api.json"), "nothing was created")

        let created = try Self.hearth(["service-accounts", "create", "backend-api", "--create-project"], in: folder)
        #expect(created.status == 0 && created.output.contains("store: SQLite file hearth-data/hearth.sqlite; project: hearth-local"),
                "\(created.output)")
        #expect(exists("backend-api.json"))

        let listed = try Self.hearth(["service-accounts", "list"], in: folder)
        #expect(listed.status == 0 && listed.output.contains("backend-api@hearth-local"), "\(listed.output)")
        let otherProject = try Self.hearth(["auth:export", "users.json", "--project-id", "other-project"], in: folder)
        #expect(otherProject.status != 0 && otherProject.output.contains("project other-project is not in the store"),
                "\(otherProject.output)")
        #expect(!exists("users.json"))
    }
}
