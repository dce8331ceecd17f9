import Foundation

/// Accounts: lookups by every key Firebase has (id, email, phone, linked identity), versioned updates, deletes,
/// batches and queries. New accounts are inserted through a ``UnitOfWork``, with their first session.
public protocol UserStore: Sendable {
    /// The accounts with these ids (those that exist, in any order), in one query: an import run again checks a
    /// whole batch at once.
    func users(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [UserRecord]
    func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord?
    /// The first account (by creation) with this email, compared case-insensitively.
    func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord?
    /// Replaces a stored account if nobody wrote it since `user` was read: the stored ``UserRecord/version`` must
    /// equal `user.version`, and the write moves it on by one. Returns what is now stored. With
    /// `revokeRefreshTokens`, drops the user's refresh tokens in the same change. Throws ``StoreError/conflict``
    /// when the versions differ (nothing is written), ``StoreError/notFound`` if the account is gone and
    /// ``StoreError/emailExists`` as `insertUser` does. Use-cases go through `AccountContext.modifyUser`, which
    /// reads again and retries.
    @discardableResult
    func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord
    /// Deletes an account and its refresh tokens; `false` if there was none.
    @discardableResult
    func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool
    /// Deletes the accounts of `localIDs` with their refresh tokens and identities, in one transaction; returns the
    /// ids that were there. The batch form housekeeping deletes in.
    func deleteUsers(projectID: String, tenantID: String?, localIDs: [String]) async throws -> [String]
    /// Deletes every account of a project (the emulator's reset); returns how many.
    @discardableResult
    func deleteAllUsers(projectID: String) async throws -> Int
    /// Inserts a batch (imports) in as few transactions as the backend allows. Returns, by index, the users refused
    /// (``StoreError/duplicateLocalID`` or ``StoreError/emailExists``); every other user is stored, and a refused
    /// one leaves nothing behind.
    func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError]
    /// A page of a project's own users (no tenant) in `localId` byte order, starting after `localID`: what export
    /// and `accounts:batchGet` walk through.
    func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord]
    /// The first account (by creation) with this E.164 phone number.
    func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord?
    /// The account with this linked identity (`providerUserInfo` entry), if any.
    func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord?
    /// Accounts with a linked identity whose email is this one (any case), oldest first, at most `limit`.
    func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord]
    /// `accounts:query` over a project's own users.
    func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult
}
