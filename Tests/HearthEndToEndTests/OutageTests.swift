import Foundation
import HearthTestSupport
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthServer
import HearthSQLite
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Faults of the store: PostgreSQL stopped and restarted under a running server, and SQLite on a full disk.
/// Each answers 503 `UNAVAILABLE` fast, logs what to check, writes nothing half, and recovers by itself.
@Suite(.serialized) struct OutageTests {
    static let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=outage-key"
    static let lookup = "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=outage-key"

    static func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration(port: 0, projectID: "outage-test", initialAPIKey: "outage-key")
        configuration.storeTimeout = .seconds(2)
        configuration.rateLimits.enabled = false
        return configuration
    }

    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
    func postgresDownAnswers503FastAndRecoversAsSoonAsItIsBack() async throws {
        let cluster = try #require(await TemporaryPostgres.Cluster.start(), "a dedicated PostgreSQL cluster")
        let store = try PostgresStore(url: cluster.url)
        try await store.migrate()
        let logs = CapturedLogs()
        let app = try await Self.application(store, logs)
        let circuit = try #require(store.circuit)
        try await app.test(.router) { client in
            let user = try await Self.firstSignUp(client, "pg@example.com")
            #expect(user.status == .ok, "\(user.text); logged: \(logs.lines.suffix(5))")
            let idToken = try #require(user.json["idToken"] as? String)

            try await blocking { try cluster.stop() }
            let before = circuit.answeredWithoutDatabase
            for _ in 0..<8 {
                let reply = try await Self.post(client, Self.lookup, ["idToken": idToken])
                #expect(reply.status == .serviceUnavailable, "\(reply.text)")
                #expect((reply.json["error"] as? [String: Any])?["status"] as? String == "UNAVAILABLE")
            }
            // Fast by count, not by a clock: the circuit answers most at once instead of letting each wait on the
            // database; one call per probe interval still tries it.
            #expect(circuit.answeredWithoutDatabase - before >= 4, "later calls fail fast instead of each waiting")
            #expect(logs.contains(level: .error, "store unavailable"), "the outage is logged with what to check")

            try await blocking { try cluster.restart() }
            // Back with the database, not after the pool's back-off (which grows towards a minute): the poll gives up
            // long before that, and a busy machine's slowness only makes it poll more.
            #expect(await eventually(within: .seconds(30)) { (try? await Self.post(client, Self.lookup, ["idToken": idToken]))?.status == .ok },
                    "service resumes once the database is back")
            #expect(logs.contains(level: .notice, "store available again"))
        }
        try await store.close()
        try? await blocking { try cluster.stop() }
    }

    /// The server over a store that has just migrated: on a loaded machine a cluster just started may keep the first
    /// calls waiting past the 2 s store timeout (start-up, not the outage under test), so building is tried again.
    static func application(_ store: PostgresStore, _ logs: CapturedLogs) async throws -> any ApplicationProtocol {
        var built: (any ApplicationProtocol)?
        await eventually {
            built = try? await buildApplication(configuration: configuration(), store: store, hashing: InlineWorkRunner(),
                                                logger: logs.logger, hashParameters: { .generate(memoryCost: 10) })
            return built != nil
        }
        if let built { return built }
        return try await buildApplication(configuration: configuration(), store: store, hashing: InlineWorkRunner(),
                                          logger: logs.logger, hashParameters: { .generate(memoryCost: 10) })
    }

    /// The same outage under concurrent load, as production sees it: every answer during it is 200 or 503 (never
    /// 500), most come at once, and the service is back within seconds of the database.
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
    func postgresDownUnderConcurrentLoadNeverAnswers500() async throws {
        let cluster = try #require(await TemporaryPostgres.Cluster.start(), "a dedicated PostgreSQL cluster")
        let store = try PostgresStore(url: cluster.url)
        try await store.migrate()
        let app = try await Self.application(store, CapturedLogs())
        let circuit = try #require(store.circuit)
        try await app.test(.router) { client in
            let user = try await Self.firstSignUp(client, "load@example.com")
            let idToken = try #require(user.json["idToken"] as? String)
            let outage = OutageFlag()
            // 12 clients, each sending lookups one after another until the scenario ends: some answers before the
            // stop, some during the outage, some after the restart. Each phase ends on a count of answers, not a clock.
            let before = circuit.answeredWithoutDatabase
            let answers = try await withThrowingTaskGroup(of: [(UInt, Bool)].self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        var seen: [(UInt, Bool)] = []
                        while !outage.finished {
                            let down = outage.value
                            let reply = try await Self.post(client, Self.lookup, ["idToken": idToken])
                            seen.append((UInt(reply.status.code), down && outage.value))
                            outage.answered(during: down)
                            // Paces the load, as a client would (nothing waits on it): spinning, 12 clients took the
                            // whole machine from the tests running beside this one.
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        return seen
                    }
                }
                group.addTask {
                    await eventually { outage.answers.before >= 24 }
                    outage.value = true
                    try await blocking { try cluster.stop() }
                    await eventually { outage.answers.during >= 48 }
                    try await blocking { try cluster.restart() }
                    outage.value = false
                    await eventually { (try? await Self.post(client, Self.lookup, ["idToken": idToken]))?.status == .ok }
                    outage.finished = true
                    return []
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let during = answers.filter { $0.1 }
            #expect(!answers.contains { $0.0 >= 500 && $0.0 != 503 }, "no 500: \(Dictionary(grouping: answers, by: \.0).mapValues(\.count))")
            #expect(during.contains { $0.0 == 503 }, "the outage was seen: \(during.count) answers during it")
            // Answers come from the circuit at once, not each after the store's 2 s timeout: counted, not timed.
            let refused = during.filter { $0.0 == 503 }.count
            #expect(circuit.answeredWithoutDatabase - before >= refused / 2,
                    "at least half of the \(refused) refusals came from the open circuit")
            // Back once the database is: polled, so a busy machine is given the time it needs.
            #expect(await eventually(within: .seconds(30)) { (try? await Self.post(client, Self.lookup, ["idToken": idToken]))?.status == .ok },
                    "service resumes once the database is back")
        }
        try await store.close()
        try? await blocking { try cluster.stop() }
    }

    @Test func aFullDiskAnswers503WritesNothingHalfAndRecoversWhenSpaceReturns() async throws {
        let disk = try TinyDisk()
        defer { disk.remove() }
        let store = try await SQLiteStore.open(path: disk.folder + "/hearth.sqlite")
        try await store.migrate()
        let logs = CapturedLogs()
        let app = try await buildApplication(configuration: Self.configuration(), store: store, hashing: InlineWorkRunner(),
                                             logger: logs.logger, hashParameters: { .generate(memoryCost: 10) })
        try await app.test(.router) { client in
            let first = try await Self.post(client, Self.signUp, ["email": "first@example.com", "password": "secret1"])
            let idToken = try #require(first.json["idToken"] as? String)
            let refreshToken = try #require(first.json["refreshToken"] as? String)
            try await disk.fill(store)
            var refused: String?
            for index in 0..<400 {
                let email = "filler\(index)@example.com"
                let reply = try await Self.post(client, Self.signUp, ["email": email, "password": "secret1"])
                if reply.status == .serviceUnavailable {
                    #expect(reply.text.contains("UNAVAILABLE"), "\(reply.text)")
                    refused = email
                    break
                }
                #expect(reply.status == .ok, "\(reply.text)")
            }
            let email = try #require(refused, "the disk never filled (\(disk.kind))")
            #expect(logs.contains(level: .error, "store unavailable"), "a clear log line")
            // The data is all there: lookups and token refreshes keep working while writes are refused.
            var reads: [UInt] = []
            for _ in 0..<20 {
                reads.append(UInt(try await Self.post(client, Self.lookup, ["idToken": idToken]).status.code))
                let refreshed = try await Self.post(client, "/securetoken.googleapis.com/v1/token?key=outage-key",
                                                    ["grant_type": "refresh_token", "refresh_token": refreshToken])
                reads.append(UInt(refreshed.status.code))
            }
            #expect(reads.allSatisfy { $0 == 200 }, "reads on a full disk: \(reads)")
            let stillFull = try await Self.post(client, Self.signUp, ["email": "later@example.com", "password": "secret1"])
            #expect(stillFull.status == .serviceUnavailable, "writes are still refused: \(stillFull.text)")

            try await disk.free(store)
            var retry = try await Self.post(client, Self.signUp, ["email": email, "password": "secret1"])
            await eventually {  // until the circuit's next probe
                if retry.status != .serviceUnavailable { return true }
                retry = (try? await Self.post(client, Self.signUp, ["email": email, "password": "secret1"])) ?? retry
                return retry.status != .serviceUnavailable
            }
            #expect(retry.status == .ok, "nothing of the refused sign-up was left behind: \(retry.text)")
            #expect(logs.contains(level: .notice, "store available again"))
        }
        try await store.close()
    }

    /// The first account, once the database answers: a cluster just started may keep the first connections
    /// waiting past the store timeout on a loaded machine (503); that is start-up, not the outage under test. A
    /// sign-up answered 503 after its commit landed is completed by signing in.
    static func firstSignUp(_ client: some TestClientProtocol, _ email: String) async throws -> Reply {
        var reply: Reply?
        await eventually {
            reply = try? await post(client, signUp, ["email": email, "password": "secret1"])
            return reply.map { $0.status != .serviceUnavailable } ?? false
        }
        if let existing = reply, existing.text.contains("EMAIL_EXISTS") {
            return try await post(client, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=outage-key",
                                  ["email": email, "password": "secret1"])
        }
        if let reply { return reply }
        return try await post(client, signUp, ["email": email, "password": "secret1"])
    }

    static func post(_ client: some TestClientProtocol, _ path: String, _ body: [String: Any]) async throws -> Reply {
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(bytes: data))
        return Reply(status: response.status, text: String(buffer: response.body))
    }

    struct Reply {
        let status: HTTPResponse.Status
        let text: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:] }
    }
}

/// A filesystem that can be filled: a 2 MB tmpfs when this process may mount one (root, as in CI), otherwise a
/// folder whose database is capped with `PRAGMA max_page_count`, which fails writes exactly as a full disk does.
struct TinyDisk {
    let folder: String
    let mounted: Bool
    var kind: String { mounted ? "tmpfs" : "max_page_count" }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-disk-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        mounted = geteuid() == 0 && Self.sh("mount -t tmpfs -o size=2m tmpfs \(folder)") == 0
    }

    /// Leaves almost no space: a filler file on tmpfs, a page cap otherwise.
    func fill(_ store: SQLiteStore) async throws {
        if mounted {
            _ = Self.sh("dd if=/dev/zero of=\(folder)/filler bs=4k count=4096 2>/dev/null; sync")
        } else {
            try await store.limitPages(1)  // SQLite raises it to the current size: no room to grow
        }
    }

    func free(_ store: SQLiteStore) async throws {
        if mounted { try? FileManager.default.removeItem(atPath: folder + "/filler") } else { try await store.limitPages(nil) }
    }

    func remove() {
        if mounted { _ = Self.sh("umount -l \(folder)") }
        try? FileManager.default.removeItem(atPath: folder)
    }

    @discardableResult
    static func sh(_ command: String) -> Int32 {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Log records kept in memory, to check what an operator would read.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [(Logger.Level, String)] = []

    var logger: Logger {
        Logger(label: "hearth") { _ in Handler(sink: self) }
    }

    func append(_ level: Logger.Level, _ line: String) { lock.withLock { records.append((level, line)) } }

    var lines: [String] { lock.withLock { records.map(\.1) } }

    func contains(level: Logger.Level, _ text: String) -> Bool {
        lock.withLock { records.contains { $0.0 == level && $0.1.contains(text) } }
    }

    struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = self.metadata.merging(event.metadata ?? [:]) { $1 }
            sink.append(event.level, "\(event.message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
    }
}

/// Whether the database is down right now, as the outage task sets it and the clients read it.
/// The outage scenario's state, shared by its clients and its controller: whether the database is down, how many
/// answers came before and during it, and whether the scenario is over.
final class OutageFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var down = false
    private var over = false
    private var counts = (before: 0, during: 0)
    var value: Bool {
        get { lock.withLock { down } }
        set { lock.withLock { down = newValue } }
    }
    var finished: Bool {
        get { lock.withLock { over } }
        set { lock.withLock { over = newValue } }
    }
    var answers: (before: Int, during: Int) { lock.withLock { counts } }
    func answered(during outage: Bool) {
        lock.withLock { if outage { counts.during += 1 } else { counts.before += 1 } }
    }
}
