import Foundation
import HearthTestSupport
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
        ("{}", ["HEARTH_EMAIL_SMTP_PORT": "25x"], #"HEARTH_EMAIL_SMTP_PORT: expected a whole number, got "25x""#),
        ("{}", ["HEARTH_RATE_LIMITS": "maybe"], "HEARTH_RATE_LIMITS: expected true or false"),
        ("{}", ["HEARTH_IDENTITY_PROVIDERS": "{google.com"], "HEARTH_IDENTITY_PROVIDERS: expected a JSON object"),
        ("{}", ["HEARTH_MFA_STATE": "SOMETIMES"], "mfa.state"),
    ])
    func badSettingsStopTheStartNamingTheKey(config: String, environment: [String: String], key: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: file)
        // Bounded: a setting wrongly accepted would leave the server running.
        let (status, text) = try await runProcess(URL(fileURLWithPath: "/usr/bin/timeout"),
                                                  ["60", try #require(hearthBinary).path, "serve", "--store", "memory:",
                                                   "--port", "0", "--config", file.path],
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
        let text = try await Self.startUntilBanner(["--port", "0"] + flags, in: folder,
                                                   environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") })
        let dataLine = text.split(separator: "\n").first { $0.contains("data:") }.map(String.init) ?? text
        #expect(dataLine.contains(store), "\(text)")
        let created = FileManager.default.fileExists(atPath: folder.appendingPathComponent("hearth-data").path)
        #expect(created == createsFolder)
    }

    /// Each setting is taken from the first source that has it: flag, `HEARTH_*` variable, secret file, config file.
    /// The start names each setting's source, and the value taken is the one in use (the banner's links).
    @Test(arguments: [
        (0, "config file", "https://file.example"), (1, "secret file publicURL, secret", "https://secret.example"),
        (2, "HEARTH_PUBLIC_URL", "https://env.example"), (3, "flag", "https://flag.example"),
    ])
    func eachSettingComesFromTheFirstSourceThatHasIt(sources: Int, named: String, used: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sources-\(UUID().uuidString)")
        let secrets = folder.appendingPathComponent("secrets")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"publicURL": "https://file.example", "email": {"smtp": {"host": "127.0.0.1"}}}"#.utf8).write(to: config)
        try Data("https://secret.example\n".utf8).write(to: secrets.appendingPathComponent("publicURL"))
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        var flags = ["--store", "memory:", "--port", "0", "--config", config.path]
        if sources >= 1 { environment["HEARTH_SECRETS_DIR"] = secrets.path }
        if sources >= 2 { environment["HEARTH_PUBLIC_URL"] = "https://env.example" }
        if sources >= 3 { flags += ["--public-url", "https://flag.example"] }
        let text = try await Self.startUntilBanner(flags, in: folder, environment: environment)
        #expect(text.contains("publicURL (\(named))"), "\(text)")
        #expect(text.contains("links to \(used)/__/auth/action"), "\(text)")
    }

    /// Starts `hearth serve ARGUMENTS` and returns what it printed once its banner is out (or it stopped).
    static func startUntilBanner(_ arguments: [String], in folder: URL, environment: [String: String]) async throws -> String {
        let (server, printed) = try await startServe(arguments, in: folder, environment: environment)
        server.terminate()
        server.waitUntilExit()
        return printed
    }
}
