import Foundation

/// Where a running `hearth serve` listens, written to `server.json` in its data folder once it listens and removed
/// when it stops, so `hearth project show` and `hearth admin-token` use the address and port it really has.
///
/// ```swift
/// if let running = ServerRecord.running(store: "sqlite:hearth-data/hearth.sqlite") { print(running.baseURL) }
/// ```
struct ServerRecord: Codable, Equatable {
    /// The server's process; a record whose process is gone is stale.
    var pid: Int32
    /// Where clients reach it, and what admin JWTs must name as their audience: `publicURL`, else
    /// `http://host:port` (a wildcard host as 127.0.0.1).
    var baseURL: String
    var startedAt: String
    var version: String
    /// Whether it runs in emulator mode (`hearth outbox list` then shows links and codes, as the emulator does).
    var emulator: Bool? = nil

    static func path(store location: String) -> String {
        (StoreFactory.dataFolder(location) as NSString).appendingPathComponent("server.json")
    }

    /// The base URL a server started with these settings gives clients.
    static func baseURL(publicURL: String?, host: String, port: Int) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let reachable = ["0.0.0.0", "::", "[::]", ""].contains(host) ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        return "http://\(reachable):\(port)"
    }

    /// Writes the record for this process (owner-only, like the rest of the data folder). A memory store has no
    /// data folder, and gets no record.
    static func write(_ record: ServerRecord, store location: String) throws {
        guard location != "memory:" else { return }
        let path = path(store: location)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(record).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Removes the record if it is still this process's (another server may have started on the same data since).
    static func remove(store location: String) {
        let path = path(store: location)
        guard let data = FileManager.default.contents(atPath: path),
              let record = try? JSONDecoder().decode(ServerRecord.self, from: data),
              record.pid == ProcessInfo.processInfo.processIdentifier else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// What the data folder says about a running server.
    enum Lookup: Equatable {
        case running(ServerRecord)
        /// A record whose process has gone (killed, or the machine restarted): not to be trusted.
        case stale(ServerRecord)
        case none
    }

    static func lookup(store location: String) -> Lookup {
        guard let data = FileManager.default.contents(atPath: path(store: location)),
              let record = try? JSONDecoder().decode(ServerRecord.self, from: data) else { return .none }
        return isHearth(record.pid) ? .running(record) : .stale(record)
    }

    static func running(store location: String) -> ServerRecord? {
        if case .running(let record) = lookup(store: location) { return record }
        return nil
    }

    /// Whether `pid` is alive and, where `/proc` tells, runs a `hearth` binary (a reused pid is not the server).
    private static func isHearth(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return true }
        let program = String(decoding: commandLine.prefix { $0 != 0 }, as: UTF8.self)
        return (program as NSString).lastPathComponent.contains("hearth")
    }

    /// The base URL the client commands use, and a line for standard error saying where it came from when it is
    /// not a running server's record (so a wrong guess is never silent).
    static func address(store location: String, publicURL: String?, host: String?, port: Int?) -> (url: String, note: String?) {
        let configured = baseURL(publicURL: publicURL, host: host ?? "127.0.0.1", port: port ?? 9099)
        let file = path(store: location)
        switch lookup(store: location) {
        case .running(let record):
            return (record.baseURL, nil)
        case .stale(let record):
            return (configured, "note: \(file) names a server (pid \(record.pid), \(record.baseURL)) that is no longer running; "
                + "using \(configured) from the settings. Start it with `hearth serve`.")
        case .none:
            return (configured, "note: no running `hearth serve` recorded in \(file); using \(configured) from the settings "
                + "(run this where the server keeps its data, or pass the address).")
        }
    }
}
