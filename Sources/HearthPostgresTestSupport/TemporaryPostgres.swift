import Foundation
import HearthTestSupport
import Logging
import PostgresNIO

/// A PostgreSQL server for the tests: `HEARTH_TEST_POSTGRES_URL` if set, otherwise a throwaway cluster made with
/// the system's `initdb` and `pg_ctl` on a free loopback port, stopped and deleted when the test process exits.
///
/// `initdb` refuses to run as root, so as root the cluster is created and run as the `postgres` user (Debian's
/// packages create it) or `nobody`.
public enum TemporaryPostgres {
    public enum Availability: Sendable {
        case available(baseURL: String)
        case unavailable(reason: String)
    }

    /// Started on first use, on a thread of its own (``base()``).
    private static let shared: Availability = start()

    /// The shared server's URL, starting it the first time. `initdb` and `pg_ctl start` take seconds (a minute on a
    /// loaded machine): they run on a thread of their own, and callers wait without holding a thread of the
    /// concurrency pool, which two waiting tests would otherwise fill and stall every other test.
    static func sharedURL() async throws -> String {
        switch try await blocking({ shared }) {
        case .available(let base): return base
        case .unavailable(let reason): throw Cluster.Failure(reason: reason)
        }
    }

    /// A fresh schema on the shared server, as a store URL whose `search_path` points at it.
    public static func freshSchemaURL() async throws -> String? {
        let base = try await sharedURL()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await execute("CREATE SCHEMA \(schema)", on: base)
        return base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)"
    }

    /// A fresh database on the shared server, as a store URL (for tools that work on whole databases: `pg_dump`).
    public static func freshDatabaseURL() async throws -> String? {
        let base = try await sharedURL()
        guard var components = URLComponents(string: base) else { return nil }
        let name = "d_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await execute("CREATE DATABASE \(name)", on: base)
        components.path = "/" + name
        return components.string
    }

    /// The folder of the PostgreSQL client and server programs (`pg_dump`, `pg_restore`), if installed.
    public static var binDir: String? { findBinDir() }

    /// Runs one statement on the server of `url` (no `search_path`: database-wide statements such as `ALTER SYSTEM`).
    public static func execute(_ sql: String, on url: String) async throws {
        let components = URLComponents(string: url)!
        let configuration = PostgresClient.Configuration(
            host: components.host!, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let client = PostgresClient(configuration: configuration)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
            group.cancelAll()
        }
    }

    /// What PostgreSQL itself counts for the database of `url`, read from the shared server's own database (so
    /// reading adds nothing to it): the transactions committed and rolled back and the sessions ever opened
    /// (`pg_stat_database`; opening a session is itself one transaction), and the connections open now
    /// (`pg_stat_activity`). A backend reports its counts when it ends, or up to seconds later while it lives: close
    /// a store's connections, wait for `connections == 0`, then read.
    public static func activity(ofDatabaseIn url: String) async throws -> (transactions: Int, sessions: Int, connections: Int) {
        let name = String((URLComponents(string: url)?.path ?? "").dropFirst())
        let components = URLComponents(string: try await sharedURL())!
        let configuration = PostgresClient.Configuration(
            host: components.host!, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            var result = (transactions: 0, sessions: 0, connections: 0)
            for try await (transactions, sessions, connections) in try await client.query("""
                SELECT (SELECT coalesce(sum(xact_commit + xact_rollback), 0)::bigint FROM pg_stat_database WHERE datname = \(name)),
                       (SELECT coalesce(sum(sessions), 0)::bigint FROM pg_stat_database WHERE datname = \(name)),
                       (SELECT count(*) FROM pg_stat_activity WHERE datname = \(name))
                """).decode((Int, Int, Int).self) { result = (transactions, sessions, connections) }
            return result
        }
    }

    /// Why the PostgreSQL tests skip, decided without starting anything (test traits are evaluated on the concurrency
    /// pool); nil when a server is given or can be made. A cluster that then fails to start fails its tests, saying why.
    public static var skipReason: String? {
        if let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"], !url.isEmpty { return nil }
        guard findBinDir() != nil else { return "no initdb/pg_ctl found (install postgresql or set HEARTH_TEST_POSTGRES_URL)" }
        if geteuid() == 0 && unprivilegedUser() == nil { return "running as root and no 'postgres' or 'nobody' user to run initdb as" }
        return nil
    }

    private static func start() -> Availability {
        if let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"], !url.isEmpty {
            return .available(baseURL: url)
        }
        switch Cluster.create() {
        case .success(let cluster): return .available(baseURL: cluster.url)
        case .failure(let failure): return .unavailable(reason: failure.reason)
        }
    }

    /// Every cluster this process made: stopped and deleted when it exits. A cluster holds over a gigabyte once the
    /// tests have filled it, and a run makes dozens (outage and failover tests make their own), so leaving them
    /// behind fills a machine's disk within days.
    private static let made = Made()

    private final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var clusters: [(pgctl: String, data: String, folder: String, user: String?)] = []

        func add(_ cluster: Cluster) {
            lock.withLock {
                if clusters.isEmpty { atexit { TemporaryPostgres.made.removeAll() } }
                clusters.append((cluster.pgctl, cluster.data, URL(fileURLWithPath: cluster.data).deletingLastPathComponent().path,
                                 cluster.user))
            }
        }

        func removeAll() {
            for cluster in lock.withLock({ clusters }) {
                _ = try? TemporaryPostgres.run(cluster.pgctl, ["-D", cluster.data, "-m", "immediate", "stop"], as: cluster.user)
                try? FileManager.default.removeItem(atPath: cluster.folder)
            }
        }
    }

    /// A cluster of its own, for tests that stop and restart the server (outages); the shared one stays up.
    public struct Cluster: Sendable {
        public let url: String
        let pgctl: String
        let data: String
        let options: String
        let log: String
        let user: String?

        struct Failure: Error { let reason: String }

        /// A new cluster, started on a thread of its own (see ``TemporaryPostgres/sharedURL()``); `nil` where PostgreSQL is
        /// not installed (see ``TemporaryPostgres/skipReason``).
        public static func start() async -> Cluster? { try? await blocking { try create().get() } }

        static func create() -> Result<Cluster, Failure> {
            guard let bindir = findBinDir() else {
                return .failure(Failure(reason: "no initdb/pg_ctl found (install postgresql or set HEARTH_TEST_POSTGRES_URL)"))
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-\(UUID().uuidString.prefix(8))")
            let data = folder.appendingPathComponent("data").path
            // A port the kernel just handed out: a random one fell in the ephemeral range and could be in use.
            guard let port = try? freePort() else { return .failure(Failure(reason: "no free loopback port")) }
            let runAs = geteuid() == 0 ? unprivilegedUser() : nil
            if geteuid() == 0 && runAs == nil {
                return .failure(Failure(reason: "running as root and no 'postgres' or 'nobody' user to run initdb as"))
            }
            let cluster = Cluster(url: "postgres://postgres@127.0.0.1:\(port)/postgres", pgctl: bindir + "/pg_ctl", data: data,
                                  options: "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=500",
                                  log: folder.path + "/log", user: runAs)
            do {
                try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
                if let runAs { try run("/bin/chown", ["-R", runAs, folder.path]) }
                let initdb = try run(bindir + "/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                                          "--no-sync"], as: runAs)
                guard initdb.status == 0 else { return .failure(Failure(reason: "initdb failed: \(initdb.output)")) }
                let started = try cluster.control("start")
                guard started.status == 0 else { return .failure(Failure(reason: "pg_ctl start failed: \(started.output)")) }
            } catch {
                return .failure(Failure(reason: "could not start PostgreSQL: \(error)"))
            }
            made.add(cluster)
            return .success(cluster)
        }

        /// The loopback port the server listens on.
        public var port: Int { URLComponents(string: url)?.port ?? 5432 }

        /// A streaming standby of this cluster (`pg_basebackup -R`), started on a port of its own: promote it with
        /// ``promote()``. With `synchronous`, this cluster then waits for the standby before it acknowledges a commit.
        public func standby(synchronous: Bool) async -> Cluster? {
            try? await blocking { try makeStandby(synchronous: synchronous).get() }
        }

        func makeStandby(synchronous: Bool) -> Result<Cluster, Failure> {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-\(UUID().uuidString.prefix(8))")
            let data = folder.appendingPathComponent("data").path
            guard let port = try? freePort() else { return .failure(Failure(reason: "no free loopback port")) }
            let standby = Cluster(url: "postgres://postgres@127.0.0.1:\(port)/postgres", pgctl: pgctl, data: data,
                                  options: options.replacingOccurrences(of: "-p \(self.port) -k ", with: "-p \(port) -k ")
                                      .replacingOccurrences(of: URL(fileURLWithPath: self.data).deletingLastPathComponent().path,
                                                            with: folder.path),
                                  log: folder.path + "/log", user: user)
            let basebackup = URL(fileURLWithPath: pgctl).deletingLastPathComponent().appendingPathComponent("pg_basebackup").path
            do {
                try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
                if let user { try run("/bin/chown", ["-R", user, folder.path]) }
                let copied = try run(basebackup, ["-h", "127.0.0.1", "-p", "\(self.port)", "-U", "postgres", "-D", data,
                                                  "-R", "-X", "stream", "--no-sync"], as: user)
                guard copied.status == 0 else { return .failure(Failure(reason: "pg_basebackup failed: \(copied.output)")) }
                let started = try standby.control("start")
                guard started.status == 0 else { return .failure(Failure(reason: "pg_ctl start failed: \(started.output)")) }
                if synchronous {
                    let psql = URL(fileURLWithPath: pgctl).deletingLastPathComponent().appendingPathComponent("psql").path
                    for statement in ["ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"] {
                        let done = try run(psql, ["-h", "127.0.0.1", "-p", "\(self.port)", "-U", "postgres", "-c", statement], as: user)
                        guard done.status == 0 else { return .failure(Failure(reason: "psql failed: \(done.output)")) }
                    }
                }
            } catch {
                return .failure(Failure(reason: "could not start a standby: \(error)"))
            }
            made.add(standby)
            return .success(standby)
        }

        /// Makes this standby a primary (`pg_ctl promote`), as an HA manager does after a failover.
        public func promote() throws { try control("promote") }

        /// Stops the server at once, as a crash or an outage would (`pg_ctl stop -m immediate`).
        public func stop() throws { try control("stop", "-m", "immediate") }

        /// Starts it again on the same port and data.
        public func restart() throws { try control("start") }

        @discardableResult
        func control(_ verb: String, _ extra: String...) throws -> (status: Int32, output: String) {
            var arguments = ["-D", data, "-w"]
            if verb == "start" { arguments += ["-o", options, "-l", log] }
            return try run(pgctl, arguments + extra + [verb], as: user)
        }
    }

    static func findBinDir() -> String? {
        if let output = try? run("/usr/bin/env", ["pg_config", "--bindir"]), output.status == 0 {
            let dir = output.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: dir + "/initdb") { return dir }
        }
        for candidate in ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin",
                          "/usr/local/bin", "/usr/bin"]
        where FileManager.default.isExecutableFile(atPath: candidate + "/initdb")
            && FileManager.default.isExecutableFile(atPath: candidate + "/pg_ctl") {
            return candidate
        }
        return nil
    }

    private static func unprivilegedUser() -> String? {
        for name in ["postgres", "nobody"] where getpwnam(name) != nil { return name }
        return nil
    }

    /// Runs a command to completion (a ``ChildProcess``: Foundation's `Process` can miss the exit of a child whose
    /// grandchild, the server, keeps running). Output goes to a file that is read afterwards.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], as user: String? = nil) throws
        -> (status: Int32, output: String)
    {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        guard FileManager.default.createFile(atPath: outputPath, contents: nil), let output = FileHandle(forWritingAtPath: outputPath)
        else { throw POSIXError(.EIO) }
        defer { try? output.close() }
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: user == nil ? executable : "/usr/sbin/runuser")
        child.arguments = (user.map { ["-u", $0, "--", executable] } ?? []) + arguments
        child.standardOutput = output
        child.standardError = output
        try child.run()
        child.waitUntilExit()
        return (child.terminationStatus, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}
