import Foundation

/// Records already decoded, by the exact JSON text they were decoded from: a read that finds the same text in the
/// store again takes the record from here instead of decoding it a second time.
///
/// The text is still read from the store on every call, so nothing here can be stale: a record changed by any
/// instance (a revocation, a disabled flag, a new password) has new text and misses. What it saves is Foundation's
/// `JSONDecoder`: a tenth of `accounts:lookup`'s time in a `perf` profile under `scripts/load-test.sh`, where clients
/// look up their own account again and again (docs/performance.md, "The ceilings of issue 44").
///
/// Bounded: past `capacity` entries, one is dropped for each added. Values are kept as decoded, before any sealed
/// secret is opened (``RecordCodec`` opens them on every read).
///
/// ```swift
/// let decoded = DecodedRecords<UserRecord>(capacity: 1024)
/// let user = try decoded.record(for: json) { try RecordCoding.decode(UserRecord.self, from: $0) }
/// ```
public final class DecodedRecords<Record: Sendable>: @unchecked Sendable {
    private var entries: [String: Record] = [:]
    private let lock = NSLock()
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
        entries.reserveCapacity(capacity)
    }

    /// The record decoded from `json`: the one kept for this exact text, or `decode(json)`, then kept.
    public func record(for json: String, decode: (String) throws -> Record) rethrows -> Record {
        if let known = lock.withLock({ entries[json] }) { return known }
        let record = try decode(json)
        lock.withLock {
            if entries.count >= capacity, let any = entries.keys.first { entries[any] = nil }
            entries[json] = record
        }
        return record
    }

    /// How many records are kept now.
    public var count: Int { lock.withLock { entries.count } }
}
