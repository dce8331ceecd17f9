import Foundation

/// What a sign-in (or a token refresh) records on an account, written in place by
/// ``IdentityStore/stampSignIn(_:)`` or within a ``UnitOfWork``.
///
/// ```swift
/// let stamped = try await store.stampSignIn(SignInStamp(
///     projectID: "demo", tenantID: nil, localID: user.localID, at: now, signedIn: true,
///     verifiedPasswordHash: user.passwordHash, rehash: nil))
/// if stamped == nil { /* the password changed while this sign-in hashed: refuse it */ }
/// ```
public struct SignInStamp: Sendable, Equatable {
    public var projectID: String
    public var tenantID: String?
    public var localID: String
    /// Written to `lastRefreshAt`, and to `lastLoginAt` for a sign-in.
    public var at: Date
    /// `false` for a token refresh: only `lastRefreshAt` moves.
    public var signedIn: Bool
    /// The hash the password was verified against: nothing is written (and `nil` returned) unless the stored
    /// hash is still this one. `nil` sets no condition (a sign-in without a password).
    public var verifiedPasswordHash: String?
    /// A new hash of the same password (an imported algorithm upgraded), written with the stamp.
    public var rehash: String?
    /// Nothing is written (and `nil` returned) when the account was disabled meanwhile.
    public var refuseDisabled = false
    /// A custom-token sign-in: marks the account `customAuth`, so it is not anonymous (``UserRecord/isAnonymous``).
    public var customToken = false
    /// A passkey sign-in: the credential's new signature counter, written only when it is past the stored one (or
    /// both are 0, an authenticator that keeps none), so of two assertions racing with one counter value one signs in.
    public var passkeyCounter: PasskeyCounter?

    public struct PasskeyCounter: Sendable, Equatable {
        public var credentialID: String
        public var count: UInt32
        public init(credentialID: String, count: UInt32) {
            self.credentialID = credentialID
            self.count = count
        }
    }

    public init(projectID: String, tenantID: String?, localID: String, at: Date, signedIn: Bool,
                verifiedPasswordHash: String? = nil, rehash: String? = nil) {
        self.projectID = projectID
        self.tenantID = tenantID
        self.localID = localID
        self.at = at
        self.signedIn = signedIn
        self.verifiedPasswordHash = verifiedPasswordHash
        self.rehash = rehash
    }

    /// Applies the stamp to a record read inside the store's own atomic step (the in-memory store); `false`
    /// when the password condition fails.
    public func apply(to user: inout UserRecord) -> Bool {
        if let verified = verifiedPasswordHash, user.passwordHash != verified { return false }
        if refuseDisabled, user.disabled { return false }
        if let counter = passkeyCounter {
            guard let index = user.passkeys?.firstIndex(where: { $0.credentialID == counter.credentialID }) else { return false }
            let current = user.passkeys?[index].signCount ?? 0
            if counter.count != 0 || current != 0, counter.count <= current { return false }
            user.passkeys?[index].signCount = counter.count
        }
        user.lastRefreshAt = at
        if signedIn { user.lastLoginAt = at }
        if let rehash { user.passwordHash = rehash }
        if customToken { user.customAuth = true }
        user.version = (user.version ?? 0) + 1
        return true
    }
}
