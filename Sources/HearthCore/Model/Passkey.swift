import Foundation

/// A passkey (WebAuthn credential) of an account. The credential id is held as an identity of the account
/// (provider `passkey`, see ``UserRecord/indexedIdentities``), so the store keeps each id on one account and
/// finds the account by it.
public struct PasskeyCredential: Sendable, Codable, Equatable {
    /// The authenticator's credential id, as the client sends it (base64url).
    public var credentialID: String
    /// The name the user gave it (`name`, else `displayName`, else "Unnamed Passkey", as Firebase names it).
    public var name: String
    public var createdAt: Date?

    public init(credentialID: String, name: String, createdAt: Date? = nil) {
        self.credentialID = credentialID
        self.name = name
        self.createdAt = createdAt
    }

    /// The provider id a credential is indexed under, and the sign-in provider of a passkey session.
    public static let providerID = "passkey"
}

extension UserRecord {
    /// What the store indexes as the account's identities: its linked providers, and its passkeys' credential ids
    /// (provider `passkey`). Each is held by one account of a project or tenant.
    public var indexedIdentities: [(providerID: String, rawID: String, email: String?)] {
        providers.map { ($0.providerID, $0.rawID, $0.email) }
            + (passkeys ?? []).map { (PasskeyCredential.providerID, $0.credentialID, nil) }
    }
}
