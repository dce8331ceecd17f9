import Foundation

/// Short-lived secrets, each kept by digest only: refresh tokens, pending sign-in steps, email action codes and
/// one-time admin assertions. Every "use once" is one atomic step, so of concurrent uses exactly one wins.
public protocol SecretStore: Sendable {
    /// Records a one-time credential (an admin assertion's `jti`) until `expiresAt`: `true` the first time,
    /// `false` if it was already used. Forgotten entries past their expiry are dropped along the way.
    func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool
    /// Stores a pending secret (by digest) after sweeping expired ones; a live one with the same digest is
    /// ``StoreError/pendingExists`` and stays as it was.
    func insertPending(_ record: PendingRecord, now: Date) async throws
    /// Reads a pending secret that has not expired.
    func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord?
    /// Deletes and returns a pending secret in one step: of concurrent uses exactly one gets it.
    func consumePending(projectID: String, digest: String) async throws -> PendingRecord?
    /// Counts one wrong attempt atomically; returns the new count, or `nil` if the secret is gone.
    func recordPendingAttempt(projectID: String, digest: String) async throws -> Int?
    /// A refresh token with its user (`nil` when the account is gone), read together: a token refresh costs one
    /// query.
    func session(projectID: String, digest: String) async throws -> RefreshSession?
    func insertActionCode(_ code: ActionCodeRecord) async throws
    /// Reads a code without using it (`resetPassword` with `oobCode` alone).
    func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord?
    /// Deletes and returns a code in one step: of concurrent redemptions exactly one gets it.
    func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord?
    /// Deletes the outstanding codes of one account (its email changed: codes sent to the old address end), except
    /// RECOVER_EMAIL codes — an owner's way back must outlive further changes by whoever took the account. Returns
    /// how many.
    @discardableResult
    func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int
}

/// A refresh token and the account it belongs to, as ``SecretStore/session(projectID:digest:)`` reads them.
public struct RefreshSession: Sendable, Equatable {
    public var token: RefreshTokenRecord
    /// `nil` when the account was deleted (its tokens go with it, so only a race sees this).
    public var user: UserRecord?
    public init(token: RefreshTokenRecord, user: UserRecord?) {
        self.token = token
        self.user = user
    }
}

extension SecretStore {
    public func refreshToken(projectID: String, digest: String) async throws -> RefreshTokenRecord? {
        try await session(projectID: projectID, digest: digest)?.token
    }
}
