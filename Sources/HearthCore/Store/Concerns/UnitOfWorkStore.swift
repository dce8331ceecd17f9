import Foundation

/// Writes that belong together, committed as one (see ``UnitOfWork``): what a sign-in records, a reservation of
/// rate-limit slots, an audit event.
public protocol UnitOfWorkStore: Sendable {
    /// Commits a ``UnitOfWork`` in one write transaction: every change or none. `insertUser` throws
    /// ``StoreError/emailExists`` when `uniqueEmail` is set and another account of the project has the email (or,
    /// `uniqueEmail` unset, when it and another account with the email both have a password),
    /// ``StoreError/duplicateLocalID`` when the id is taken, ``StoreError/identityLinked`` when one of its linked
    /// identities belongs to another account (each identity has one owner, enforced by the store, so two
    /// simultaneous first sign-ins cannot both create an account for it); a stamp that fails its condition throws
    /// ``StoreError/stale``. A refused change leaves nothing of the unit behind.
    func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome
}
