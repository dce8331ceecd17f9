import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthPostgresTestSupport
import HearthTestSupport
import Testing

/// Two `hearth serve` processes on one PostgreSQL, in production mode, racing over HTTP on the same accounts: a
/// sign-in with the old password on one instance while the password changes on the other, and two profile updates
/// at once. Before versioned writes the sign-in reverted the change in 5 of 6 tries; now no try may lose anything.
@Suite(.serialized, .enabled(if: TemporaryPostgres.skipReason == nil && hearthBinary != nil,
                             "needs PostgreSQL and the built hearth binary: \(TemporaryPostgres.skipReason ?? "hearth not built")"))
struct TwoInstanceRaceTests {
    static let apiKey = "race-api-key"

    @Test func aPasswordChangeOnOneInstanceIsNeverRevertedByASignInOnTheOther() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let (a, stopA) = try await Self.startHearth(store: url)
        defer { stopA() }
        let (b, stopB) = try await Self.startHearth(store: url)
        defer { stopB() }

        for attempt in 0..<8 {
            let email = "race\(attempt)@example.com"
            let user = try await Self.call(a, "accounts:signUp", ["email": email, "password": "old-pass", "returnSecureToken": true])
            let idToken = try #require(user["idToken"] as? String, "\(user)")
            let oldRefresh = try #require(user["refreshToken"] as? String)
            async let thief = Self.call(a, "accounts:signInWithPassword", ["email": email, "password": "old-pass", "returnSecureToken": true])
            try await Task.sleep(for: .milliseconds(attempt * 4))  // land inside the other's hashing, at varying points
            let changed = try await Self.call(b, "accounts:update", ["idToken": idToken, "password": "new-pass", "returnSecureToken": true])
            #expect(changed["idToken"] != nil, "attempt \(attempt): \(changed)")
            let stolen = try await thief
            for base in [a, b] {
                let old = try await Self.call(base, "accounts:signInWithPassword", ["email": email, "password": "old-pass"])
                #expect(old["idToken"] == nil, "attempt \(attempt): the old password works again on \(base)")
                let new = try await Self.call(base, "accounts:signInWithPassword", ["email": email, "password": "new-pass"])
                #expect(new["idToken"] != nil, "attempt \(attempt): the new password was lost on \(base): \(new)")
            }
            for refresh in [oldRefresh, stolen["refreshToken"] as? String].compactMap({ $0 }) {
                let reply = try await Self.call(a, "token", ["grant_type": "refresh_token", "refresh_token": refresh],
                                                host: "securetoken.googleapis.com", version: "v1")
                #expect(reply["id_token"] == nil, "attempt \(attempt): a session from before the change lives on")
            }
        }

        // Two profile updates at once, one per instance: both fields are kept.
        let user = try await Self.call(a, "accounts:signUp", ["email": "profile@example.com", "password": "secret1", "returnSecureToken": true])
        let idToken = try #require(user["idToken"] as? String)
        for round in 0..<6 {
            async let name = Self.call(a, "accounts:update", ["idToken": idToken, "displayName": "name \(round)"])
            async let photo = Self.call(b, "accounts:update", ["idToken": idToken, "photoUrl": "https://example.com/\(round).png"])
            _ = try await (name, photo)
            let lookup = try await Self.call(b, "accounts:lookup", ["idToken": idToken])
            let stored = (lookup["users"] as? [[String: Any]])?.first
            #expect(stored?["displayName"] as? String == "name \(round)"
                    && stored?["photoUrl"] as? String == "https://example.com/\(round).png", "round \(round): \(stored ?? [:])")
        }
    }

    /// Failed sign-ins are limited once for both instances: 10 per email, wherever they land. Before counters moved
    /// to the store each process counted its own 10, and the right password still worked on B while A refused.
    @Test func twoInstancesEnforceOneFailedSignInLimit() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let (a, stopA) = try await Self.startHearth(store: url, settings: ["rateLimits": true])
        defer { stopA() }
        let (b, stopB) = try await Self.startHearth(store: url, settings: ["rateLimits": true])
        defer { stopB() }
        _ = try await Self.call(a, "accounts:signUp", ["email": "limit@example.com", "password": "right-pass"])
        for attempt in 0..<10 {
            let reply = try await Self.call(attempt % 2 == 0 ? a : b, "accounts:signInWithPassword",
                                            ["email": "limit@example.com", "password": "guess-\(attempt)"])
            let message = (reply["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message == "INVALID_LOGIN_CREDENTIALS", "attempt \(attempt): \(reply)")
        }
        for base in [a, b] {
            for password in ["guess-10", "right-pass"] {
                let reply = try await Self.call(base, "accounts:signInWithPassword", ["email": "limit@example.com", "password": password])
                let message = (reply["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER"), "\(base), \(password): \(reply)")
            }
        }
    }

    /// Starts `hearth serve` in production mode on `store`; returns its base URL and a stop function. `settings`
    /// are config-file keys over the defaults (rate limits off, warnings only); `log` receives its output.
    static func startHearth(store: String, settings: [String: Any] = [:], log logFile: URL? = nil,
                            environment: [String: String] = [:], fileLimit: Int? = nil) async throws
        -> (String, @Sendable () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("config.json")
        let file = ["apiKey": apiKey, "logLevel": "warning", "rateLimits": false].merging(settings) { $1 }
        try JSONSerialization.data(withJSONObject: file).write(to: config)
        let port = try freePort()
        let process = ChildProcess()
        process.executableURL = try #require(hearthBinary)
        process.arguments = ["serve", "--store", store, "--port", "\(port)", "--config", config.path]
        if let fileLimit {  // a shell lowers the descriptor limit, then becomes hearth
            process.arguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", process.executableURL!.path]
                + process.arguments!
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let log = logFile ?? folder.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let base = "http://127.0.0.1:\(port)"
        let answering = try await process.whileRunning(every: .milliseconds(100)) {
            (try? await call(base, "accounts:lookup", [:]))?["error"] != nil ? true : nil
        }
        guard answering == true else {
            let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw BrowserError("hearth serve exited with \(process.terminationStatus):\n\(printed)")
        }
        return (base, { if process.isRunning { process.terminate(); process.waitUntilExit() } })
    }

    static func call(_ base: String, _ verb: String, _ body: [String: Any], host: String = "identitytoolkit.googleapis.com",
                     version: String = "v1") async throws -> [String: Any] {
        let path = "/\(host)/\(version)/\(verb)"
        var request = URLRequest(url: URL(string: base + path + "?key=\(apiKey)")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        request.timeoutInterval = 30
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}
