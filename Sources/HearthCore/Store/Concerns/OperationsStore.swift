import Foundation

/// What keeps the service running: shared rate-limit windows, the audit log and housekeeping.
public protocol OperationsStore: Sendable {
    /// The counts of several rate-limit windows in one query (0 where there is none), in order.
    func rateCounters(_ windows: [RateWindow]) async throws -> [Int]
    /// A project's audit events, newest first, filtered and paged by `query`.
    func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent]
    /// Removes what has expired (see ``Housekeeping``) and refresh tokens revoked by their user's `validSince`.
    func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport
    /// Takes `job` for `holder` until `until`, unless a lease on it (anyone's) lasts past `now`: of the instances
    /// sharing the store, one runs a periodic job per period. `true` when taken.
    func takeLease(job: String, holder: String, until: Date, now: Date) async throws -> Bool
    /// Ends `holder`'s lease on `job` (a run that failed: the next pass, anywhere, tries again).
    func releaseLease(job: String, holder: String) async throws
}
