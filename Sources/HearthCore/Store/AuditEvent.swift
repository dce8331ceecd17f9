import Foundation

/// One security event kept in the store for the project's audit log: who, what, when, from where, and how it
/// ended. Never a secret: no password, code or token goes into `details`.
public struct AuditEvent: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        case success
        case failure
    }

    public var id: String
    public var projectID: String
    public var at: Date
    /// `sign-in`, `sign-in-failed`, `sign-up`, `password-changed`, `email-changed`, `mfa-enrolled`,
    /// `mfa-withdrawn`, `second-factor-locked`, `rate-limited`, `admin-call`, … (see ``SecurityEvent/Kind``).
    public var kind: String
    public var localID: String?
    public var outcome: Outcome
    public var clientAddress: String?
    public var details: [String: String]
    /// The tenant the event happened in; `nil` for the project's own scope.
    public var tenantID: String?

    public init(id: String = UUID().uuidString, projectID: String, at: Date, kind: String, localID: String?,
                outcome: Outcome, clientAddress: String?, details: [String: String] = [:]) {
        self.id = id
        self.projectID = projectID
        self.at = at
        self.kind = kind
        self.localID = localID
        self.outcome = outcome
        self.clientAddress = clientAddress
        self.details = details
    }
}

/// Which audit events to list: newest first, `limit` at most, after `cursor` (the last event of the page before).
public struct AuditQuery: Sendable, Equatable {
    public var localID: String?
    public var kinds: [String]?
    public var from: Date?
    public var until: Date?
    public var limit: Int
    public var after: AuditCursor?

    public init(localID: String? = nil, kinds: [String]? = nil, from: Date? = nil, until: Date? = nil,
                limit: Int = 100, after: AuditCursor? = nil) {
        self.localID = localID
        self.kinds = kinds
        self.from = from
        self.until = until
        self.limit = limit
        self.after = after
    }
}

/// A position in the newest-first order of events: (time in microseconds, id).
public struct AuditCursor: Sendable, Equatable {
    public var micros: Int64
    public var id: String

    public init(_ event: AuditEvent) {
        micros = event.at.epochMicros
        id = event.id
    }

    public init?(token: String) {
        let parts = token.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]) else { return nil }
        self.micros = micros
        id = String(parts[1])
    }

    public var token: String { "\(micros)_\(id)" }
}
