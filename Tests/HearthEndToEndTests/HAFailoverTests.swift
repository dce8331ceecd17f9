import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import Testing

/// Hearth on a PostgreSQL cluster that fails over by itself: pg_auto_failover's monitor and three nodes with
/// synchronous replication (`scripts/ha-cluster.sh`), two `hearth serve` processes on its multi-host URL, a load of
/// sign-ups, password changes and refreshes, and `kill -9` of the primary's keeper and PostgreSQL in the middle.
///
/// It reports the seconds from the kill to the first 200, and asserts what must hold whatever the machine's speed:
/// no 5xx but 503, no acknowledged sign-up missing, no acknowledged password change undone, and the old primary,
/// restarted, back as a standby. `HEARTH_FAILOVER_KILLS=5` kills the primary five times in one run.
@Suite(.serialized, .enabled(if: HACluster.skipReason == nil, "\(HACluster.skipReason ?? "")"))
struct HAFailoverTests {
    @Test func noAcknowledgedWriteIsLostWhenThePrimaryIsKilled() async throws {
        let kills = Int(ProcessInfo.processInfo.environment["HEARTH_FAILOVER_KILLS"] ?? "") ?? 1
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-ha-\(UUID().uuidString.prefix(8))")
        let cluster = HACluster(folder: folder.path)
        defer { cluster.stop() }
        let url = try await cluster.run("start", "\(try freePorts(4))").split(separator: "\n").last.map(String.init) ?? ""
        #expect(url.hasPrefix("postgres://"), "the cluster's connection string: \(url)")
        // The instances' logs outlive the cluster's folder, for a failure to be read.
        let logFolder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-ha-logs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: logFolder, withIntermediateDirectories: true)
        let logs = ["a", "b"].map { logFolder.appendingPathComponent("hearth-\($0).log") }
        let (a, stopA) = try await TwoInstanceRaceTests.startHearth(store: url, settings: ["logLevel": "notice"], log: logs[0])
        defer { stopA() }
        let (b, stopB) = try await TwoInstanceRaceTests.startHearth(store: url, settings: ["logLevel": "notice"], log: logs[1])
        defer { stopB() }

        let load = Load()
        let workers = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<6 { group.addTask { await load.run(worker: worker, on: worker % 2 == 0 ? a : b) } }
            }
        }
        var figures: [String] = []
        for round in 1...kills {
            let acked = load.writesAcknowledged
            await eventually(within: .seconds(300)) { load.writesAcknowledged >= acked + 20 }
            let old = try await cluster.primary()
            let killed = ContinuousClock.now
            try await cluster.run("kill", old)
            // The cluster's own part: until the monitor names another primary, and until that node takes writes.
            var elected = ""
            await eventually(within: .seconds(300)) {
                elected = (try? await cluster.primary()) ?? ""
                return !elected.isEmpty && elected != old
            }
            let named = ContinuousClock.now
            await eventually(within: .seconds(300)) {
                (try? await cluster.run("sql", elected, "SELECT pg_is_in_recovery()")) == "f"
            }
            let promoted = ContinuousClock.now
            await eventually(within: .seconds(300)) { load.firstOK(sentAfter: killed, writes: true) != nil }
            let resumed = load.writesAcknowledged
            await eventually(within: .seconds(300)) { load.writesAcknowledged >= resumed + 20 }
            try await cluster.run("restart", old)
            try await cluster.run("wait", old, "secondary", "300")
            let rejoined = try await cluster.run("sql", old, "SELECT pg_is_in_recovery()")
            #expect(rejoined == "t", "round \(round): \(old), restarted, is a standby and cannot take Hearth's writes")
            let seconds = { (instant: ContinuousClock.Instant?) in
                instant.map { String(format: "%.1f s", Double(($0 - killed).components.attoseconds) / 1e18
                                     + Double(($0 - killed).components.seconds)) } ?? "never"
            }
            figures.append("kill \(round) of \(old): first 200 after \(seconds(load.firstOK(sentAfter: killed, writes: false))), "
                           + "first acknowledged write after \(seconds(load.firstOK(sentAfter: killed, writes: true))) "
                           + "(\(elected) named primary after \(seconds(named)), out of recovery after \(seconds(promoted))); "
                           + "\(old) rejoined as a standby")
        }
        load.finished = true
        await workers.value

        // What was acknowledged is there, on either instance.
        var missing: [String] = []
        var oldStillSignsIn: [String] = []
        var changeLost: [String] = []
        for user in load.users {
            let again = try await send(b, "accounts:signUp", ["email": user.email, "password": "another-pass"])
            if again.status == 200 { missing.append(user.email) }
            for old in user.passwords.dropLast() {
                let reply = try await send(a, "accounts:signInWithPassword", ["email": user.email, "password": old])
                if reply.status == 200 { oldStillSignsIn.append("\(user.email) \(old)") }
            }
            if !user.uncertain, user.passwords.count > 1 {
                let reply = try await send(b, "accounts:signInWithPassword", ["email": user.email, "password": user.passwords.last!])
                if reply.status != 200 { changeLost.append("\(user.email): \(reply.status)") }
            }
        }
        let answers = load.answers
        let serverErrors = answers.filter { $0.status >= 500 && $0.status != 503 }
        let counts = Dictionary(grouping: answers, by: { "\($0.kind) \($0.status)" }).mapValues(\.count)
        print("HA failover (pg_auto_failover, 3 nodes, 2 Hearth instances):")
        for line in figures { print("  " + line) }
        print("  answers: \(counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        print("  5xx other than 503: \(serverErrors.count); acknowledged sign-ups \(load.users.count), missing \(missing.count); "
              + "acknowledged password changes \(load.users.map { $0.passwords.count - 1 }.reduce(0, +)), "
              + "old password still signing in \(oldStillSignsIn.count), lost \(changeLost.count)")
        #expect(serverErrors.isEmpty, "5xx other than 503: \(serverErrors.prefix(5))")
        #expect(missing.isEmpty, "acknowledged sign-ups missing: \(missing)")
        #expect(oldStillSignsIn.isEmpty, "acknowledged password changes whose old password still signs in: \(oldStillSignsIn)")
        #expect(changeLost.isEmpty, "acknowledged password changes lost: \(changeLost)")
        #expect(counts.keys.contains { $0.hasSuffix(" 503") }, "the failover was seen as 503s: \(counts)")
        for log in logs {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(text.contains("store reconnected to the primary"), "\(log.path) says where it went")
        }
    }
}

/// `scripts/ha-cluster.sh` on one folder.
struct HACluster {
    /// Why the HA test skips: nil where pg_auto_failover and the hearth binary are there.
    static var skipReason: String? {
        guard hearthBinary != nil else { return "needs the built hearth binary" }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        guard path.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/pg_autoctl") }) else {
            return "needs pg_auto_failover: apt-get install postgresql-15-auto-failover pg-auto-failover-cli (bash scripts/test installs them)"
        }
        if geteuid() == 0 && getpwnam("postgres") == nil { return "running as root and no 'postgres' user to run the cluster as" }
        return nil
    }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/ha-cluster.sh")
    let folder: String

    @discardableResult
    func run(_ command: String, _ arguments: String...) async throws -> String {
        let (status, output) = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, command, folder] + arguments)
        guard status == 0 else { throw BrowserError("ha-cluster.sh \(command) \(arguments) exited with \(status):\n\(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The node the monitor has made primary; empty mid-failover.
    func primary() async throws -> String {
        String(try await run("primary").split(separator: " ").first ?? "")
    }

    func stop() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script.path, "stop", folder]
        try? process.run()
        process.waitUntilExit()
    }
}

/// The clients: each signs up a user, then changes its password and refreshes its session in turn, and starts over
/// with a new user after a change that was not acknowledged (its outcome is unknown).
final class Load: @unchecked Sendable {
    struct Answer {
        let kind: String
        let status: Int
        let sent: ContinuousClock.Instant
        let answered: ContinuousClock.Instant
    }

    struct User {
        let email: String
        /// The password at sign-up, then each acknowledged change.
        var passwords: [String]
        /// A change was sent and not acknowledged: it may or may not have landed.
        var uncertain = false
    }

    private let lock = NSLock()
    private var recorded: [Answer] = []
    private var known: [User] = []
    private var stop = false

    var finished: Bool {
        get { lock.withLock { stop } }
        set { lock.withLock { stop = newValue } }
    }
    var answers: [Answer] { lock.withLock { recorded } }
    var users: [User] { lock.withLock { known } }
    var writesAcknowledged: Int {
        lock.withLock { recorded.filter { $0.status == 200 && $0.kind != "refresh" }.count }
    }

    /// When the first 200 came to a request sent after `instant` (a write, if `writes`).
    func firstOK(sentAfter instant: ContinuousClock.Instant, writes: Bool) -> ContinuousClock.Instant? {
        lock.withLock {
            recorded.filter { $0.status == 200 && $0.sent > instant && (!writes || $0.kind != "refresh") }.map(\.answered).min()
        }
    }

    func run(worker: Int, on base: String) async {
        var round = 0
        while !finished {
            round += 1
            let email = "w\(worker)-\(round)@example.com"
            var password = "pass-\(worker)-\(round)-0"
            let created = await call(base, "signUp", "accounts:signUp", ["email": email, "password": password, "returnSecureToken": true])
            guard created.status == 200, var idToken = created.json["idToken"] as? String,
                  var refreshToken = created.json["refreshToken"] as? String else { continue }
            let index = lock.withLock {
                known.append(User(email: email, passwords: [password]))
                return known.count - 1
            }
            for change in 1...6 where !finished {
                password = "pass-\(worker)-\(round)-\(change)"
                let changed = await call(base, "passwordChange", "accounts:update",
                                         ["idToken": idToken, "password": password, "returnSecureToken": true])
                guard changed.status == 200, let newID = changed.json["idToken"] as? String,
                      let newRefresh = changed.json["refreshToken"] as? String else {
                    lock.withLock { known[index].uncertain = true }
                    break
                }
                lock.withLock { known[index].passwords.append(password) }
                (idToken, refreshToken) = (newID, newRefresh)
                let refreshed = await call(base, "refresh", "token", ["grant_type": "refresh_token", "refresh_token": refreshToken],
                                           host: "securetoken.googleapis.com")
                if refreshed.status == 200, let newID = refreshed.json["id_token"] as? String,
                   let newRefresh = refreshed.json["refresh_token"] as? String {
                    (idToken, refreshToken) = (newID, newRefresh)
                }
            }
        }
    }

    private func call(_ base: String, _ kind: String, _ verb: String, _ body: [String: Any],
                      host: String = "identitytoolkit.googleapis.com") async -> (status: Int, json: [String: Any]) {
        let sent = ContinuousClock.now
        let reply = (try? await send(base, verb, body, host: host)) ?? (status: 0, json: [:])
        lock.withLock { recorded.append(Answer(kind: kind, status: reply.status, sent: sent, answered: .now)) }
        if reply.status != 200 { try? await Task.sleep(for: .milliseconds(50)) }  // paced, as a client retrying would be
        return reply
    }
}

/// One POST to a running `hearth serve`: its status and JSON body.
func send(_ base: String, _ verb: String, _ body: [String: Any], host: String = "identitytoolkit.googleapis.com",
          headers: [String: String] = [:]) async throws -> (status: Int, json: [String: Any]) {
    var request = URLRequest(url: URL(string: "\(base)/\(host)/v1/\(verb)?key=\(TwoInstanceRaceTests.apiKey)")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    request.timeoutInterval = 60
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0,
            (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
}
