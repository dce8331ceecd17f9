import Foundation
import HearthTestSupport
import Testing

/// The `hearth` executable built beside the test bundle (`swift test` builds it), or `HEARTH_BINARY` (to run
/// these tests against another build, such as one from before a fix).
let hearthBinary: URL? = {
    if let given = ProcessInfo.processInfo.environment["HEARTH_BINARY"] { return URL(fileURLWithPath: given) }
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [folder, folder.deletingLastPathComponent()].map { $0.appendingPathComponent("hearth") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}()

/// Runs `hearth ARGUMENTS` to its end (in `folder`, with `environment` instead of this process's if given): its
/// exit status and everything it printed on either stream.
func runHearth(_ arguments: [String], in folder: URL? = nil, environment: [String: String]? = nil) async throws
    -> (status: Int32, output: String)
{
    try await runProcess(try #require(hearthBinary), arguments, in: folder, environment: environment)
}

/// Runs `executable ARGUMENTS` to its end: its exit status and everything it printed on either stream. The wait
/// happens on a thread of its own: blocking a thread of the concurrency pool (two, on CI's machine) for a child
/// process would starve every other test's tasks, and their deadlines would fail.
func runProcess(_ executable: URL, _ arguments: [String], in folder: URL? = nil, environment: [String: String]? = nil)
    async throws -> (status: Int32, output: String)
{
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result {
                let process = ChildProcess()
                process.executableURL = executable
                process.arguments = arguments
                if let folder { process.currentDirectoryURL = folder }
                if let environment { process.environment = environment }
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                try process.run()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, text)
            })
        }
    }
}

/// `hearth serve ARGUMENTS`, started in `folder` with `environment`, once its banner is out (or it stopped): the
/// running server, to stop with `terminate()` and `waitUntilExit()`, and what it printed.
func startServe(_ arguments: [String], in folder: URL, environment: [String: String]) async throws
    -> (server: ChildProcess, printed: String)
{
    let log = folder.appendingPathComponent("server-\(UUID().uuidString).log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let server = ChildProcess()
    server.executableURL = try #require(hearthBinary)
    server.arguments = ["serve"] + arguments
    server.currentDirectoryURL = folder
    server.environment = environment
    server.standardOutput = try FileHandle(forWritingTo: log)
    server.standardError = server.standardOutput
    try server.run()
    let read = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    do {
        return (server, try await server.whileRunning { read().contains("passwords:") ? read() : nil } ?? read())
    } catch {
        server.terminate()
        server.waitUntilExit()
        throw error
    }
}
