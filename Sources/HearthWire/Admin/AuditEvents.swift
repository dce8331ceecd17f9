/// `GET v1/projects/{id}/auditEvents` (Hearth's own): the project's security events, newest first.
///
/// Query: `pageSize` (1–1000, default 100), `pageToken`, `localId`, `type` (comma-separated), `startTime` and
/// `endTime` (RFC 3339; from inclusive, until exclusive).
public struct AuditEventsResponse: Codable, Sendable, Equatable {
    public var events: [AuditEventWire]
    public var nextPageToken: String?

    public init(events: [AuditEventWire], nextPageToken: String?) {
        self.events = events
        self.nextPageToken = nextPageToken
    }
}

/// One audit event: `type` such as `sign-in`, `sign-in-failed`, `password-changed`, `admin-call`.
public struct AuditEventWire: Codable, Sendable, Equatable {
    public var id: String
    /// RFC 3339 with microseconds, UTC.
    public var time: String
    public var type: String
    public var localId: String?
    /// `SUCCESS` or `FAILURE`.
    public var outcome: String
    public var clientAddress: String?
    public var details: [String: String]?

    public init(id: String, time: String, type: String, localId: String?, outcome: String, clientAddress: String?,
                details: [String: String]?) {
        self.id = id
        self.time = time
        self.type = type
        self.localId = localId
        self.outcome = outcome
        self.clientAddress = clientAddress
        self.details = details
    }
}
