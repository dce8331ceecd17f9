import Foundation
import HearthTestSupport

/// pgbouncer in transaction pooling mode in front of a PostgreSQL server, on a loopback port of its own, for the
/// tests that show Hearth works behind it. Each transaction may run on a different server connection, and there are
/// fewer of them than Hearth's pool has clients.
public struct TemporaryPgBouncer: Sendable {
    /// `url` with pgbouncer's port instead of the server's.
    public let url: String
    let process: ChildProcess
    let folder: URL

    /// Why the pgbouncer tests skip; nil where the program and PostgreSQL are there.
    public static var skipReason: String? {
        if let reason = TemporaryPostgres.skipReason { return reason }
        return executable == nil ? "needs pgbouncer (apt-get install pgbouncer; bash scripts/test installs it)" : nil
    }

    static var executable: String? {
        ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// pgbouncer for the server of `serverURL` (`postgres://user@127.0.0.1:PORT/db`), with `serverConnections` server
    /// connections per database; every database name is passed through.
    public static func start(for serverURL: String, serverConnections: Int = 2) async throws -> TemporaryPgBouncer {
        guard let executable, let server = URLComponents(string: serverURL), let serverPort = server.port else {
            throw Failure(reason: "pgbouncer or the server's URL is missing")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pgbouncer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try freePort()
        let user = server.user ?? "postgres"
        try """
            [databases]
            * = host=127.0.0.1 port=\(serverPort)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(folder.path)/users.txt
            pool_mode = transaction
            default_pool_size = \(serverConnections)
            max_client_conn = 500
            ignore_startup_parameters = extra_float_digits
            logfile = \(folder.path)/pgbouncer.log
            """.write(to: folder.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        try "\"\(user)\" \"\"\n".write(to: folder.appendingPathComponent("users.txt"), atomically: true, encoding: .utf8)
        // pgbouncer refuses to run as root: as root it runs as the cluster's user.
        let runAs = geteuid() == 0 ? "postgres" : nil
        if let runAs { _ = try TemporaryPostgres.run("/bin/chown", ["-R", runAs, folder.path]) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: runAs == nil ? executable : "/usr/sbin/runuser")
        process.arguments = (runAs.map { ["-u", $0, "--", executable] } ?? []) + [folder.appendingPathComponent("pgbouncer.ini").path]
        try process.run()
        var components = server
        components.port = port
        let bouncer = TemporaryPgBouncer(url: components.string ?? serverURL, process: process, folder: folder)
        // Ready once it accepts connections.
        let ready = await eventually { canConnect(port) }
        guard ready else {
            bouncer.stop()
            throw Failure(reason: "pgbouncer did not start: \(bouncer.log)")
        }
        return bouncer
    }

    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("pgbouncer.log"), encoding: .utf8)) ?? "" }

    /// Stops pgbouncer and deletes its folder (its config and log).
    public func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    private static func canConnect(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
