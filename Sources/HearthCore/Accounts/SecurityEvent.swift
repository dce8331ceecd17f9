import Foundation

/// A security event a use-case reports for the audit trail: the server stores it in the project's audit log
/// (with the caller's address) and logs it under `hearth.audit`.
///
/// ```swift
/// var accounts = AccountContext(store: store, clock: SystemClock(), hashing: runner)
/// accounts.audit = MyAuditTrail()   // an ``AuditTrail``: sign-in events are stored with the sign-in itself
/// ```
public struct SecurityEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Tokens issued by an interactive sign-in (`details.provider`; `secondFactor` when one was proved).
        case signIn = "sign-in"
        /// A password sign-in refused: wrong password, unknown email or disabled account (`details.reason`).
        case signInFailed = "sign-in-failed"
        /// An account created by its owner (sign-up, first federated or phone sign-in, first email link).
        case signUp = "sign-up"
        /// An account created by an administrator (the admin API's create).
        case accountCreated = "account-created"
        /// An account deleted, by its owner or an administrator.
        case accountDeleted = "account-deleted"
        case passwordChanged = "password-changed"
        /// A password checked by the source project of a lazy migration, and kept here.
        case passwordMigrated = "password-migrated"
        /// `details.from` and `details.to` are the old and new addresses.
        case emailChanged = "email-changed"
        case mfaEnrolled = "mfa-enrolled"
        case mfaWithdrawn = "mfa-withdrawn"
        case accountDisabled = "account-disabled"
        case accountEnabled = "account-enabled"
        /// Every session older than now ends (`validSince` moved).
        case sessionsRevoked = "sessions-revoked"
        /// Too many wrong codes in a row: the factor refuses every code until `details.until`.
        case secondFactorLocked = "second-factor-locked"
        /// A blocking function refused a creation or sign-in, or failed (`details.event`, `details.reason`).
        case blockingFunctionRefused = "blocking-function-refused"
    }

    public var kind: Kind
    public var projectID: String
    /// The account, when known (a sign-in with an unknown email has none).
    public var localID: String?
    /// Event-specific facts, never a secret (no code, token or password).
    public var details: [String: String]
    /// The tenant the event happened in, where the reporter knows it outside a request (housekeeping); a request's
    /// events take their tenant from the request's scope.
    public var tenantID: String?

    public init(kind: Kind, projectID: String, localID: String?, details: [String: String] = [:]) {
        self.kind = kind
        self.projectID = projectID
        self.localID = localID
        self.details = details
    }

    /// Whether the event records something refused.
    public var isFailure: Bool { [.signInFailed, .secondFactorLocked, .blockingFunctionRefused].contains(kind) }

    /// The events that tell how an account changed between two stored versions of it.
    static func changes(from old: UserRecord, to new: UserRecord, projectID: String) -> [SecurityEvent] {
        var events: [SecurityEvent] = []
        func add(_ kind: Kind, _ details: [String: String] = [:]) {
            events.append(SecurityEvent(kind: kind, projectID: projectID, localID: new.localID, details: details))
        }
        if new.passwordHash != nil, new.passwordHash != old.passwordHash { add(.passwordChanged) }
        if new.email != old.email, old.email != nil || new.email != nil {
            add(.emailChanged, ["from": old.email ?? "", "to": new.email ?? ""])
        }
        let before = Set(old.enrollments.map(\.id)), after = Set(new.enrollments.map(\.id))
        for id in after.subtracting(before).sorted() { add(.mfaEnrolled, ["enrollmentId": id]) }
        for id in before.subtracting(after).sorted() { add(.mfaWithdrawn, ["enrollmentId": id]) }
        if new.disabled != old.disabled { add(new.disabled ? .accountDisabled : .accountEnabled) }
        if new.validSince > old.validSince, new.passwordHash == old.passwordHash { add(.sessionsRevoked) }
        return events
    }
}
