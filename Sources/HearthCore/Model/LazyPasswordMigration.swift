import Foundation

/// A project's time-bounded switch for users whose password hash could not be moved from Firebase: until
/// `expiresAt`, the first password sign-in of such a user (imported with a `password` identity and no hash) is
/// checked once against the source project's `accounts:signInWithPassword`. On success the password is hashed and
/// kept here, and the source is never asked about that user again. Off unless set (`PATCH
/// …/lazyPasswordMigration`, or `hearth auth:migrate --lazy-until`).
public struct LazyPasswordMigration: Sendable, Codable, Equatable {
    /// The source's Identity Toolkit root: `https://identitytoolkit.googleapis.com`, or an emulator's
    /// `http://host:port/identitytoolkit.googleapis.com`.
    public var sourceURL: String
    /// The source project's web API key (what its apps send).
    public var apiKey: String
    public var expiresAt: Date
    /// Hearth's tenant id → the source's, for tenants' users; a tenant not listed is not checked.
    public var tenants: [String: String]?

    public init(sourceURL: String, apiKey: String, expiresAt: Date, tenants: [String: String]? = nil) {
        self.sourceURL = sourceURL
        self.apiKey = apiKey
        self.expiresAt = expiresAt
        self.tenants = tenants
    }

    public func isActive(at now: Date) -> Bool { now < expiresAt }
}

/// Where a password Hearth has no hash for can still be checked: the source project of a lazy migration.
public protocol PasswordSource: Sendable {
    /// The source's uid for `email` when `password` is its password there; `nil` when the source refuses it.
    /// Throws ``PasswordSourceUnavailable`` when the source cannot say.
    func check(email: String, password: String, sourceTenantID: String?, migration: LazyPasswordMigration) async throws
        -> String?
}

/// The source of a lazy migration did not answer (or not as expected): the sign-in answers 503, and nothing changes.
public struct PasswordSourceUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "the lazy-migration source could not check the password: \(reason)" }
}
