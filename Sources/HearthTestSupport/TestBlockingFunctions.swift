import Foundation

/// An app's blocking functions (`blocking_functions.py`, written with the unmodified firebase-functions SDK), served
/// by functions-framework on loopback: one process per event, as Cloud Functions deploys them. The email and SMS
/// events, which only Firebase's Node SDK handles, go to `send_receiver.py`, which checks them as that SDK does. Their URLs are known
/// before they start (so a project can name them), and they start once Hearth's address is known (they verify its
/// JWTs with the keys it publishes).
///
/// ```swift
/// let functions = try TestBlockingFunctions(project: "my-app")
/// settings.blockingFunctions?.triggers["beforeCreate"] = .init(functionURI: functions.beforeCreate, updatedAt: now)
/// try await functions.start(emulated: false, hearth: "http://127.0.0.1:9099")
/// defer { functions.stop() }
/// ```
public final class TestBlockingFunctions: @unchecked Sendable {
    /// The functions' URLs. Their path holds `run.app`: firebase-functions checks the JWT's audience names Cloud Run.
    public let beforeCreate: String
    public let beforeSignIn: String
    public let beforeSendEmail: String
    public let beforeSendSms: String
    private let project: String
    private let ports: [Int]
    private let directory: URL
    private let lock = NSLock()
    private var processes: [ChildProcess] = []
    static let targets = ["before_create", "before_sign_in", "before_send_email", "before_send_sms"]

    /// Why the tests cannot run here, or `nil`.
    public static func unavailableReason() -> String? {
        Python.has("firebase_functions") && Python.has("functions_framework") ? nil
            : "needs the firebase-functions and functions-framework Python packages (scripts/test installs them)"
    }

    public init(project: String) throws {
        self.project = project
        ports = try Self.targets.map { _ in try freePort() }
        beforeCreate = "http://127.0.0.1:\(ports[0])/run.app/before_create"
        beforeSignIn = "http://127.0.0.1:\(ports[1])/run.app/before_sign_in"
        beforeSendEmail = "http://127.0.0.1:\(ports[2])/run.app/before_send_email"
        beforeSendSms = "http://127.0.0.1:\(ports[3])/run.app/before_send_sms"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-functions-\(UUID().uuidString)")
    }

    /// Starts both functions; `hearth` is the server whose published keys they verify JWTs with (production), and
    /// `emulated` sets `FIREBASE_AUTH_EMULATOR_HOST`, under which the SDK checks no signature (emulator mode).
    public func start(emulated: Bool, hearth: String) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["blocking_functions", "send_receiver"] {
            guard let script = Bundle.module.url(forResource: name, withExtension: "py") else {
                throw NSError(domain: "TestBlockingFunctions", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name).py is missing"])
            }
            let copy = directory.appendingPathComponent(name == "blocking_functions" ? "main.py" : "\(name).py")
            if !FileManager.default.fileExists(atPath: copy.path) { try FileManager.default.copyItem(at: script, to: copy) }
        }
        let keys = hearth + "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
        for (target, port) in zip(Self.targets, ports) {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            var arguments = ["GOOGLE_CLOUD_PROJECT=\(project)", "HEARTH_KEYS_URL=\(keys)"]
            if emulated { arguments.append("FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:9099") }
            process.arguments = arguments + (target.hasPrefix("before_send")
                ? ["python3", directory.appendingPathComponent("send_receiver.py").path, target, String(port), sent.path]
                : ["python3", directory.appendingPathComponent("main.py").path, target, String(port)])
            process.currentDirectoryURL = directory
            let log = directory.appendingPathComponent("\(target).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            lock.withLock { processes.append(process) }
            let up = try await process.whileRunning(until: { Self.answers(port: port) ? true : nil })
            guard up == true else {
                stop()
                throw NSError(domain: "TestBlockingFunctions", code: 2, userInfo: [NSLocalizedDescriptionKey:
                    "functions-framework did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"])
            }
        }
    }

    deinit { stop() }

    private var sent: URL { directory.appendingPathComponent("sent.jsonl") }

    /// The verified JWT payloads the email and SMS receivers accepted, oldest first.
    public var sentPayloads: [[String: Any]] {
        guard let text = try? String(contentsOf: sent, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The functions' own log, for a failing test's message.
    public var log: String {
        Self.targets.map { (try? String(contentsOf: directory.appendingPathComponent("\($0).log"), encoding: .utf8)) ?? "" }
            .joined(separator: "\n")
    }

    public func stop() {
        for process in lock.withLock({ processes }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Whether something accepts a TCP connection on the port.
    private static func answers(port: Int) -> Bool {
        guard let fd = try? connectToLoopback(port: port) else { return false }
        close(fd)
        return true
    }
}
