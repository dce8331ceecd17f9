import Foundation

/// Where the use cases' security events go: the server keeps them in the project's audit log (with the caller's
/// address, which the core does not know) and logs them under `hearth.audit`.
///
/// A sign-in's event is stored in the sign-in's own write transaction: the core asks for its ``row(for:)``, commits
/// it with the session, then reports it ``committed(_:)``. Other events are ``record(_:)``ed on their own.
///
/// ```swift
/// struct PrintedTrail: AuditTrail {
///     func row(for event: SecurityEvent) -> AuditEvent? { nil }          // keep nothing in the store
///     func committed(_ row: AuditEvent) {}
///     func record(_ event: SecurityEvent) async { print(event.kind.rawValue) }
/// }
/// ```
public protocol AuditTrail: Sendable {
    /// The audit row to store for `event`, or `nil` to store none.
    func row(for event: SecurityEvent) -> AuditEvent?
    /// A row from ``row(for:)`` is stored, with the change it records.
    func committed(_ row: AuditEvent)
    /// Stores and logs an event outside a sign-in; never fails the request that caused it.
    func record(_ event: SecurityEvent) async
}
