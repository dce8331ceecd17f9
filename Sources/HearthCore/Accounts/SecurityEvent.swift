import Foundation

/// A security event a use-case reports for the audit trail (the server logs them under `hearth.audit`).
///
/// ```swift
/// var accounts = AccountService(store: store, clock: SystemClock(), hashing: runner)
/// accounts.securityEvents = { event in logger.notice("\(event.kind.rawValue)", metadata: ...) }
/// ```
public struct SecurityEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Too many wrong codes in a row: the factor refuses every code until `until`.
        case secondFactorLocked = "second-factor-locked"
    }

    public var kind: Kind
    public var projectID: String
    public var localID: String
    /// Event-specific facts, never a secret (no code, token or password).
    public var details: [String: String]

    public init(kind: Kind, projectID: String, localID: String, details: [String: String] = [:]) {
        self.kind = kind
        self.projectID = projectID
        self.localID = localID
        self.details = details
    }
}
