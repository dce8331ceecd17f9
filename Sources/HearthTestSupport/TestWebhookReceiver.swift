import Foundation

/// An app's webhook receiver (`webhook_receiver.py`): verifies each event with the `standardwebhooks` package from
/// PyPI and logs it. Its URL is known before it starts, so an endpoint can name it while it is still down.
///
/// ```swift
/// let receiver = try TestWebhookReceiver()
/// // … add an endpoint for receiver.url, get its secret …
/// try await receiver.start(secret: secret)
/// let events = receiver.received   // [(id, payload)] in arrival order
/// ```
public final class TestWebhookReceiver: @unchecked Sendable {
    public let url: String
    private let port: Int
    private let directory: URL
    private let lock = NSLock()
    private var process: ChildProcess?

    /// Why the tests cannot run here, or `nil`.
    public static func unavailableReason() -> String? {
        Python.has("standardwebhooks") && Python.has("flask") ? nil
            : "needs the standardwebhooks and flask Python packages (scripts/test installs them)"
    }

    public init() throws {
        port = try freePort()
        url = "http://127.0.0.1:\(port)/hook"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private var log: URL { directory.appendingPathComponent("received.jsonl") }

    public func start(secret: String) async throws {
        guard let script = Bundle.module.url(forResource: "webhook_receiver", withExtension: "py") else {
            throw NSError(domain: "TestWebhookReceiver", code: 1, userInfo: [NSLocalizedDescriptionKey: "webhook_receiver.py is missing"])
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, String(port), secret, log.path]
        let output = directory.appendingPathComponent("receiver.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { self.process = process }
        let up: Bool? = try await process.whileRunning(until: { [port] () -> Bool? in
            guard let fd = try? connectToLoopback(port: port) else { return nil }
            close(fd)
            return true
        })
        guard up == true else {
            throw NSError(domain: "TestWebhookReceiver", code: 2, userInfo: [NSLocalizedDescriptionKey:
                "the receiver did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")"])
        }
    }

    /// What it accepted, in order: each event's `webhook-id` and its verified JSON payload.
    public var received: [(id: String, event: [String: Any])] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let id = object["id"] as? String, let event = object["event"] as? [String: Any] else { return nil }
            return (id, event)
        }
    }

    public func stop() {
        guard let process = lock.withLock({ self.process }), process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
