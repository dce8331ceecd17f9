import Foundation

/// One rate-limit window of one key, for ``IdentityStore/rateCounters(_:)``.
public struct RateWindow: Sendable, Hashable {
    public var key: String
    public var start: Date
    public init(key: String, start: Date) {
        self.key = key
        self.start = start
    }
}
