import Synchronization

/// At most `limit` calls in flight per key (an outbound service's host): one more is refused at once with
/// ``Saturated`` instead of queueing behind calls that may never end. What keeps a slow app service holding only its
/// own callers (``withDeadline(_:_:)`` bounds each call).
///
/// ```swift
/// let cap = InFlightCap(limit: 128)
/// let answer = try await cap.run("sms.example.com") { try await send() }
/// ```
public final class InFlightCap: Sendable {
    public struct Saturated: Error, CustomStringConvertible {
        public let limit: Int
        public var description: String { "\(limit) calls already in flight to this host" }
    }

    public let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    public init(limit: Int) { self.limit = limit }

    public func run<T>(_ key: String, _ work: () async throws -> T) async throws -> T {
        let taken = counts.withLock { counts in
            guard counts[key, default: 0] < limit else { return false }
            counts[key, default: 0] += 1
            return true
        }
        guard taken else { throw Saturated(limit: limit) }
        defer { counts.withLock { counts in counts[key] = counts[key, default: 1] > 1 ? counts[key]! - 1 : nil } }
        return try await work()
    }

    /// The host of a URL, the key outbound calls are capped by.
    public static func host(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        return String(url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
