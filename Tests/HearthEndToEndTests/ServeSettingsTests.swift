import Foundation
import Testing

/// `hearth serve` refuses log and metrics settings it cannot honour, naming the key, instead of starting with a
/// default the operator did not ask for.
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
    ])
    func badSettingsStopTheStartNamingTheKey(config: String, environment: [String: String], key: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: file)
        let process = Process()
        process.executableURL = try #require(hearthBinary)
        process.arguments = ["serve", "--store", "memory:", "--port", "0", "--config", file.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0, "\(config) \(environment) started anyway")
        #expect(text.contains(key), "names \(key): \(text)")
    }
}
