import Foundation

/// Failures a store reports in domain terms; anything else it throws is an internal fault.
public enum StoreError: Error, Equatable, Sendable {
    case emailExists
    case duplicateLocalID
    case notFound
    /// A linked identity (provider + raw id) already belongs to another account.
    case identityLinked
    /// A pending secret with this digest exists and has not expired (a client-chosen session id used twice).
    case pendingExists
    /// The account was written by someone else since it was read (its version moved): read it again.
    case conflict
    /// A stamp found the account gone, or its password changed since the sign-in verified it: the unit of work
    /// that carried it is undone.
    case stale
    /// The database cannot be reached or written just now (down, unreachable, disk full); why, for the log.
    case unavailable(String)
}
