import Foundation

/// SMS pumping (toll fraud) stops: a bot asks for codes to many numbers of one premium range, and the project pays
/// for each text. Numbers are grouped by prefix (the number without its last four digits: one block of 10,000), and
/// when too many distinct numbers of one prefix ask for codes in a short window, sending to that prefix halts for a
/// while — in the store, so every instance on it stops. An operator can lift a halt early (console, admin API).
///
/// ```swift
/// let watch = SMSPumpingWatch(store: store, limiter: limiter, clock: clock, rules: .init())
/// if let halt = try await watch.halt(covering: "+16505550100", projectID: "demo") { throw … }  // halted already
/// let slot = try await watch.admit("+16505550100", projectID: "demo")  // counted before sending; throws Halted
/// if notSent { try await limiter.release(slot) }
/// ```
public struct SMSPumpingWatch: Sendable {
    public struct Rules: Sendable, Equatable {
        /// Distinct numbers of one prefix that may ask for codes within the rule's window before the prefix halts.
        public var distinctNumbersPerPrefix: RateLimiter.Rule
        /// How long a halt lasts unless lifted.
        public var halt: TimeInterval

        public init(distinctNumbersPerPrefix: RateLimiter.Rule = .init(limit: 20, window: 600), halt: TimeInterval = 3600) {
            self.distinctNumbersPerPrefix = distinctNumbersPerPrefix
            self.halt = halt
        }
    }

    /// A prefix no code is sent to until `until`.
    public struct Halt: Sendable, Codable, Equatable {
        public var prefix: String
        public var since: Date
        public var until: Date
        /// Distinct numbers counted when it halted.
        public var numbers: Int
    }

    let store: any SecretStore & OperationsStore & UnitOfWorkStore
    let limiter: RateLimiter
    let clock: any HearthClock
    public let rules: Rules

    public init(store: any SecretStore & OperationsStore & UnitOfWorkStore, limiter: RateLimiter, clock: any HearthClock, rules: Rules) {
        self.store = store
        self.limiter = limiter
        self.clock = clock
        self.rules = rules
    }

    /// The prefix a number is counted under: an E.164 number without its last four digits (`+16505550100` →
    /// `+1650555`), or the whole number when it is too short to have one.
    public static func prefix(of number: String) -> String {
        number.count > 8 ? String(number.dropLast(4)) : number
    }

    /// The halt in force on `number`'s prefix, if any.
    public func halt(covering number: String, projectID: String) async throws -> Halt? {
        try await halt(prefix: Self.prefix(of: number), projectID: projectID)
    }

    /// Counts `number` towards its prefix before a code is sent to it (once per number and window), as a
    /// reservation: of racing requests for new numbers, only as many as the rule allows are let through. The one
    /// that would go over halts the prefix and is refused with ``Halted``, carrying the halt when this call started
    /// it (so the caller audits it once). Release the returned reservation when the text is not sent after all.
    public func admit(_ number: String, projectID: String) async throws -> RateLimiter.Reservation {
        let prefix = Self.prefix(of: number)
        let rule = rules.distinctNumbersPerPrefix
        let window = RateLimiter.window(rule, at: clock.now())
        let seenKey = "sms-seen:\(projectID)/\(number)"
        let seen = try await store.incrementRateCounter(key: seenKey, windowStart: window.start, expiresAt: window.end)
        let seenSlot = RateLimiter.Reservation(key: seenKey, windowStart: window.start, expiresAt: window.end, count: seen)
        guard seen == 1 else { return seenSlot }  // this number was counted in this window already
        do {
            return seenSlot.merged(with: try await limiter.reserve([("sms-prefix-numbers:\(projectID)/\(prefix)", rule)]))
        } catch is RateLimiter.Refusal {
            try? await limiter.release(seenSlot)
            throw Halted(started: try await startHalt(prefix: prefix, projectID: projectID))
        }
    }

    /// A code refused because its number's prefix is halted.
    public struct Halted: Error {
        /// The halt, when this request started it; `nil` when it was in force already.
        public let started: Halt?
    }

    /// Stores a halt on `prefix`; returns it, or `nil` when another request or instance halted it first.
    private func startHalt(prefix: String, projectID: String) async throws -> Halt? {
        let now = clock.now()
        let halt = Halt(prefix: prefix, since: now, until: now + rules.halt, numbers: rules.distinctNumbersPerPrefix.limit)
        let record = PendingRecord(digest: Self.digest(prefix, projectID), projectID: projectID, kind: .smsPrefixHalt,
                                   payload: try RecordCoding.encode(halt), expiresAt: halt.until)
        do {
            try await store.insertPending(record, now: now)
        } catch StoreError.pendingExists {
            // Halted already (another request, another instance), or an old halt that has ended but is not purged yet.
            guard try await store.pending(projectID: projectID, digest: record.digest, now: now) == nil else { return nil }
            _ = try await store.consumePending(projectID: projectID, digest: record.digest)
            do { try await store.insertPending(record, now: now) } catch StoreError.pendingExists { return nil }
        }
        return halt
    }

    /// Ends a halt before its time; `false` when none was in force.
    /// Its distinct numbers start again from none: a lift that left them at the limit would halt at the next text.
    public func lift(prefix: String, projectID: String) async throws -> Bool {
        guard try await halt(prefix: prefix, projectID: projectID) != nil,
              try await store.consumePending(projectID: projectID, digest: Self.digest(prefix, projectID)) != nil
        else { return false }
        let window = RateLimiter.window(rules.distinctNumbersPerPrefix, at: clock.now())
        let key = "sms-prefix-numbers:\(projectID)/\(prefix)"
        for start in [window.start, window.start - window.length] {
            let counted = try await store.rateCounter(key: key, windowStart: start)
            if counted > 0 {
                _ = try await store.incrementRateCounter(key: key, windowStart: start, expiresAt: start + 2 * window.length, by: -counted)
            }
        }
        return true
    }

    /// The audit event a new halt is recorded as, with `prefix`, `numbers` and `until` in its details.
    public static let auditKind = "sms-prefix-halted"

    /// The halts in force, newest first: the prefixes the last halt period's audit events name, each still halted.
    public func halts(projectID: String) async throws -> [Halt] {
        let events = try await store.auditEvents(projectID: projectID, AuditQuery(
            kinds: [Self.auditKind], from: clock.now() - rules.halt, limit: 500))
        var found: [Halt] = []
        for prefix in Set(events.compactMap { $0.details["prefix"] }) {
            if let halt = try await halt(prefix: prefix, projectID: projectID) { found.append(halt) }
        }
        return found.sorted { $0.since > $1.since }
    }

    private func halt(prefix: String, projectID: String) async throws -> Halt? {
        guard let record = try await store.pending(projectID: projectID, digest: Self.digest(prefix, projectID), now: clock.now()),
              record.kind == .smsPrefixHalt
        else { return nil }
        return try? RecordCoding.decode(Halt.self, from: record.payload)
    }

    private static func digest(_ prefix: String, _ projectID: String) -> String {
        storageDigest("sms-prefix-halt:\(projectID)/\(prefix)")
    }
}
