import Foundation

/// An operator of the admin console, made with `hearth console-admins create EMAIL`: a password and, in production,
/// an authenticator-app (TOTP) second factor. Kept in the project record; the TOTP secret is sealed at rest.
///
/// ```swift
/// var record = project.record
/// record.consoleAdmins.append(ConsoleAdminRecord(email: "ops@example.com", passwordHash: hash,
///                                                totpSecret: Base32.encode(TOTP.newSecret()), createdAt: now))
/// ```
public struct ConsoleAdminRecord: Sendable, Codable, Equatable {
    public var email: String
    /// Firebase scrypt under the project's parameters, as users' passwords.
    public var passwordHash: String
    /// Base32 TOTP secret; nil where no second factor is asked (emulator mode makes none).
    public var totpSecret: String?
    public var createdAt: Date

    public init(email: String, passwordHash: String, totpSecret: String?, createdAt: Date) {
        self.email = email
        self.passwordHash = passwordHash
        self.totpSecret = totpSecret
        self.createdAt = createdAt
    }

    /// What a session is bound to: this record's identity and credentials. Changes with any of them.
    public var sessionStamp: String {
        let material = [email, String(Int64(createdAt.timeIntervalSince1970 * 1000)), passwordHash, totpSecret ?? ""]
        return storageDigest("console-operator:" + material.joined(separator: "|"))
    }
}

/// A signed-in console operator: who, and the token every changing request must repeat (CSRF), kept with the
/// session (the cookie is the session's secret; only its digest is stored).
public struct ConsoleSession: Sendable, Codable, Equatable {
    public var email: String
    public var csrf: String
    /// The operator record it was made for (``ConsoleAdminRecord/sessionStamp``): deleting and re-creating the
    /// operator, or resetting their password or authenticator, ends every session made before.
    public var operatorStamp: String?

    public init(email: String, csrf: String) {
        self.email = email
        self.csrf = csrf
    }
}
