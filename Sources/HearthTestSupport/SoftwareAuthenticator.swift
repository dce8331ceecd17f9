import Foundation

/// A passkey authenticator and client in software (`passkey_authenticator.py`, on the fido2 and cryptography
/// packages): it answers Hearth's `passkeyEnrollment:start` and `passkeySignIn:start` options with genuine
/// registrations and assertions, and can be told to misbehave (another origin, no user verification, an old counter)
/// the way an attacker would.
public final class SoftwareAuthenticator: @unchecked Sendable {
    private let directory: URL
    private let lock = NSLock()
    private var calls = 0

    /// Why the tests cannot run here, or `nil`.
    public static func unavailableReason() -> String? {
        Python.has("fido2") ? nil : "needs the fido2 Python package (scripts/test installs it)"
    }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-authenticator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A registration for `options` (the start call's whole answer); `tweaks` as the script's REQUEST describes.
    public func create(_ options: [String: Any], origin: String, _ tweaks: [String: Any] = [:]) throws -> [String: Any] {
        try run("create", ["options": options, "origin": origin].merging(tweaks) { $1 })
    }

    /// An assertion for `options` with the newest credential (or `tweaks["credentialId"]`).
    public func get(_ options: [String: Any], origin: String, _ tweaks: [String: Any] = [:]) throws -> [String: Any] {
        try run("get", ["options": options, "origin": origin].merging(tweaks) { $1 })
    }

    private func run(_ command: String, _ request: [String: Any]) throws -> [String: Any] {
        guard let script = Bundle.module.url(forResource: "passkey_authenticator", withExtension: "py") else {
            throw NSError(domain: "SoftwareAuthenticator", code: 1, userInfo: [NSLocalizedDescriptionKey: "passkey_authenticator.py is missing"])
        }
        let call = lock.withLock { calls += 1; return calls }
        let input = directory.appendingPathComponent("request-\(call).json")
        let output = directory.appendingPathComponent("answer-\(call).json")
        let log = directory.appendingPathComponent("log-\(call).txt")
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, command, directory.appendingPathComponent("state.json").path,
                             input.path, output.path]
        process.standardOutput = handle
        process.standardError = handle
        // One call at a time: the state file holds the credentials and their counters.
        try lock.withLock {
            try process.run()
            process.waitUntilExit()
        }
        guard process.terminationStatus == 0, let data = try? Data(contentsOf: output),
              let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            let why = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw NSError(domain: "SoftwareAuthenticator", code: 2, userInfo: [NSLocalizedDescriptionKey: "the authenticator failed: \(why)"])
        }
        return answer
    }
}
