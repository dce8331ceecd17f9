import Foundation
import Testing

/// `hearth serve` refuses log and metrics settings it cannot honour, naming the key, instead of starting with a
/// default the operator did not ask for; and picks its default store by mode.
@Suite(.enabled(if: hearthBinary != nil, "needs the built hearth binary"))
struct ServeSettingsTests {
    @Test(arguments: [
        (#"{"logLevel": "verbose"}"#, [String: String](), "logLevel"),
        (#"{"logFormat": "xml"}"#, [:], "logFormat"),
        (#"{"metrics": {"expose": "everywhere"}}"#, [:], "metrics.expose"),
        (#"{"metrics": {"expose": "listener"}}"#, [:], "metrics.port"),
        (#"{"connections": {"maxConnections": 0}}"#, [:], "connections.maxConnections"),
        ("{}", ["HEARTH_METRICS": "somewhere"], "HEARTH_METRICS"),
        ("{}", ["HEARTH_LOG_LEVEL": "loud"], "logLevel"),
        ("{}", ["HEARTH_PORT": "19405x"], "HEARTH_PORT"),
        (#"{"logLevle": "info"}"#, [:], "unknown key logLevle (did you mean logLevel?)"),
        (#"{"email": {"smtp": {"hots": "mail"}}}"#, [:], "unknown key email.smtp.hots (did you mean email.smtp.host?)"),
        (#"{"port": "9099"}"#, [:], "port: expected a whole number"),
        ("{\"port\": 9099,\n  \"host\": \"x\",, }", [:], "line 2, column 15"),
    ])
    func badSettingsStopTheStartNamingTheKey(config: String, environment: [String: String], key: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: file)
        let (status, text) = try await runHearth(["serve", "--store", "memory:", "--port", "0", "--config", file.path],
                                           environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        #expect(status != 0, "\(config) \(environment) started anyway")
        #expect(text.contains(key), "names \(key): \(text)")
    }

    /// Firebase's emulator starts empty every time; emulator mode without a named store keeps its data in memory and
    /// writes nothing to the working folder. Production's default is the SQLite file.
    @Test(arguments: [(["--emulator"], "memory", false), ([], "SQLite file", true)])
    func emulatorModeKeepsItsDataInMemoryByDefault(flags: [String], store: String, createsFolder: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-default-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = try #require(hearthBinary)
        process.arguments = ["serve", "--port", "0"] + flags
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var text = ""
        let deadline = Date() + 60
        while Date() < deadline, process.isRunning, !text.contains("passwords:") {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        let dataLine = text.split(separator: "\n").first { $0.contains("data:") }.map(String.init) ?? text
        #expect(dataLine.contains(store), "\(text)")
        let created = FileManager.default.fileExists(atPath: folder.appendingPathComponent("hearth-data").path)
        #expect(created == createsFolder)
    }
}
