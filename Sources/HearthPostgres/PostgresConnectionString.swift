import Foundation

/// A `postgres://` URL in libpq's form, several hosts included:
///
///     postgres://hearth:secret@db1:5432,db2:5432,db3:5432/hearth?target_session_attrs=read-write&sslmode=require
///
/// Hosts are tried in the order given (``PostgresDriver`` asks each which role it has). With several hosts and no
/// `target_session_attrs`, Hearth looks for the writable one, as `read-write` does: it writes on every sign-in, so a
/// standby is never the right choice. Other options are `sslmode` and `search_path`.
public struct PostgresConnectionString: Sendable, Equatable {
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        public init(name: String, port: Int) {
            self.name = name
            self.port = port
        }

        public var name: String
        public var port: Int
        public var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// libpq's `target_session_attrs`, in the values a store that writes can use.
    public enum Target: String, Sendable {
        /// The first host that accepts the connection.
        case any
        /// The first host that accepts writes (`primary` is read the same: a node that is not in recovery).
        case readWrite = "read-write"
    }

    public var hosts: [Host]
    public var username: String
    public var password: String?
    public var database: String?
    public var sslmode: String?
    public var searchPath: String?
    public var target: Target

    public init(_ url: String) throws {
        guard let schemeEnd = url.range(of: "://"), ["postgres", "postgresql"].contains(url[..<schemeEnd.lowerBound])
        else { throw PostgresStoreError.invalidURL }
        var rest = url[schemeEnd.upperBound...]
        var query: [String: String] = [:]
        if let mark = rest.firstIndex(of: "?") {
            let items = URLComponents(string: "x:?" + rest[rest.index(after: mark)...])?.queryItems ?? []
            query = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
            rest = rest[..<mark]
        }
        var database: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            database = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var user: Substring = "postgres"
        if let at = rest.lastIndex(of: "@") {
            let info = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = info.firstIndex(of: ":") {
                user = info[..<colon]
                password = String(info[info.index(after: colon)...]).removingPercentEncoding
            } else {
                user = info
            }
        }
        username = String(user).removingPercentEncoding ?? String(user)
        self.database = database.isEmpty ? nil : String(database).removingPercentEncoding
        hosts = try rest.split(separator: ",", omittingEmptySubsequences: false).map(Self.host)
        sslmode = query["sslmode"]
        searchPath = query["search_path"]
        switch query["target_session_attrs"] {
        case nil: target = hosts.count > 1 ? .readWrite : .any
        case "any": target = .any
        case "read-write", "primary": target = .readWrite
        case let other?:
            throw PostgresStoreError.unsupported("target_session_attrs=\(other): Hearth writes, so use read-write (or any)")
        }
    }

    /// `name`, `name:port`, `[v6]` or `[v6]:port`.
    static func host(_ text: Substring) throws -> Host {
        var name = text
        var port: Substring = ""
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            name = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { throw PostgresStoreError.invalidURL }
        } else if let colon = text.lastIndex(of: ":") {
            name = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !name.isEmpty else { throw PostgresStoreError.invalidURL }
        guard port.isEmpty || (Int(port).map { (1...65_535).contains($0) } ?? false) else {
            throw PostgresStoreError.unsupported("port '\(port)' of host \(name) is not a number from 1 to 65535")
        }
        return Host(name: String(name), port: Int(port) ?? 5432)
    }
}
