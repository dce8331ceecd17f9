import Foundation

/// A real SMTP server for tests: Python's `aiosmtpd` on loopback, in a child process. Every accepted message is
/// parsed by Python's own `email` package and written as JSON (envelope, decoded subject, text and HTML parts, the
/// authenticated user, whether TLS was on), so the tests check Hearth's MIME output with somebody else's parser.
///
/// ```swift
/// let sink = try await SMTPSink.start(security: .startTLS, users: ["mailer": "secret"])
/// defer { sink.stop() }
/// let mail = try await sink.waitForMessages(1)
/// ```
public final class SMTPSink: @unchecked Sendable {
    public enum Security: String, Sendable {
        case none, startTLS = "starttls", tls
    }

    /// One accepted message, as Python read it.
    public struct Received: Decodable, Sendable {
        public var mailFrom: String
        public var recipients: [String]
        public var from: String
        public var to: String
        public var subject: String
        public var rawSubject: String
        public var text: String?
        public var html: String?
        public var contentType: String
        public var messageId: String?
        public var date: String?
        public var login: String?
        public var tls: Bool
    }

    public let port: Int
    /// The sink's self-signed certificate (PEM) for `localhost` and 127.0.0.1: trust it as `caFile`.
    public let certificateFile: String
    public let directory: URL
    private let process: ChildProcess

    /// Why the sink cannot run here, or `nil` when it can (python3 with aiosmtpd, and openssl).
    public static func unavailableReason() -> String? {
        if !Python.has("aiosmtpd") { return "python3 with aiosmtpd is missing (pip install aiosmtpd; .ci/run does)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") { return "openssl is not installed" }
        return nil
    }

    /// Starts a sink. `users` are the accepted logins (AUTH is then offered, and required); `dropFirst` connections
    /// are cut after the message data arrived but before the server's answer (a server failing mid-message);
    /// `rejectWith` answers every message with that code (e.g. 550); `authMechanisms` are the AUTH mechanisms offered.
    public static func start(security: Security = .none, users: [String: String] = [:], dropFirst: Int = 0,
                             rejectWith: Int? = nil, authMechanisms: [String] = ["PLAIN", "LOGIN"]) async throws -> SMTPSink {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("sink.py")
        guard let bundled = Bundle.module.url(forResource: "smtp_sink", withExtension: "py") else {
            throw NSError(domain: "SMTPSink", code: 3, userInfo: [NSLocalizedDescriptionKey: "smtp_sink.py is missing"])
        }
        try FileManager.default.copyItem(at: bundled, to: script)
        let config: [String: Any] = ["security": security.rawValue, "users": users, "dropFirst": dropFirst,
                                     "reject": rejectWith ?? 0, "directory": directory.path,
                                     "exclude": ["PLAIN", "LOGIN"].filter { !authMechanisms.contains($0) }]
        try JSONSerialization.data(withJSONObject: config).write(to: directory.appendingPathComponent("config.json"))
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, directory.appendingPathComponent("config.json").path]
        let log = directory.appendingPathComponent("sink.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let portFile = directory.appendingPathComponent("port")
        // At the start of a full run dozens of Python helpers (and their TLS keys) start at once on two cores: wait for
        // as long as the sink is alive.
        if let port = try await process.whileRunning(until: { (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) } }) {
            return SMTPSink(port: port, certificateFile: directory.appendingPathComponent("cert.pem").path,
                            directory: directory, process: process)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw NSError(domain: "SMTPSink", code: 1, userInfo: [NSLocalizedDescriptionKey: "SMTP sink did not start: \(output)"])
    }

    private init(port: Int, certificateFile: String, directory: URL, process: ChildProcess) {
        self.port = port
        self.certificateFile = certificateFile
        self.directory = directory
        self.process = process
    }

    deinit { stop() }

    public func stop() {
        // SIGKILL: a child can inherit a blocked SIGTERM from the test runner's threads.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The messages accepted so far, in order.
    public func messages() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
            .sorted { Int($0.dropFirst(8).dropLast(5)) ?? 0 < Int($1.dropFirst(8).dropLast(5)) ?? 0 }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try names.map { try decoder.decode(Received.self, from: Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Waits until at least `count` messages arrived, for as long as the sink runs. `timeout` is only a net against
    /// a test that would otherwise hang (five minutes): a loaded machine makes delivery slow, never wrong, so no test
    /// should fail for time alone.
    public func waitForMessages(_ count: Int, timeout: TimeInterval = 300) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.isRunning {
            let received = try messages()
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("sink.log"), encoding: .utf8)) ?? ""
        throw NSError(domain: "SMTPSink", code: 2, userInfo: [NSLocalizedDescriptionKey:
            "expected \(count) messages, have \(try messages().count); sink log:\n\(log)"])
    }

    /// How many connections the sink cut on purpose.
    public func drops() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("drop-") }.count
    }
}
