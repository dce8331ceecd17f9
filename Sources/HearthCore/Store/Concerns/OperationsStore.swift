import Foundation

/// What keeps the service running: shared rate-limit windows, the audit log and housekeeping.
public protocol OperationsStore: Sendable {
    /// The counts of several rate-limit windows in one query (0 where there is none), in order.
    func rateCounters(_ windows: [RateWindow]) async throws -> [Int]
    /// A project's audit events, newest first, filtered and paged by `query`.
    func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent]
    /// Removes what has expired (see ``Housekeeping``) and refresh tokens revoked by their user's `validSince`.
    func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport
}
