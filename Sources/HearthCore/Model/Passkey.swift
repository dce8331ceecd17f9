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
    /// The credential's COSE public key, base64url, as registered (production; the emulator's mock has none).
    public var publicKey: String?
    /// The authenticator's signature counter at the last sign-in: the next must be higher (0 and 0: it keeps none).
    public var signCount: UInt32?
    /// The authenticator model (AAGUID, hex), when it said.
    public var aaguid: String?
    /// Whether the credential is synced (WebAuthn's backup state flag).
    public var backedUp: Bool?

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

/// `passkeyConfig` of a project or tenant: the relying party passkeys are made for. `rpId` is a domain (the site's,
/// or a parent of it); `expectedOrigins` the exact origins ceremonies may run on (`https://example.com`,
/// `android:apk-key-hash:…`). Without one, production refuses passkey calls.
public struct PasskeyConfig: Sendable, Codable, Equatable {
    public var rpID: String
    public var expectedOrigins: [String]
    /// Whether every ceremony must verify the user (biometrics, PIN), as the options ask; `nil`: yes.
    public var requireUserVerification: Bool?

    public init(rpID: String, expectedOrigins: [String], requireUserVerification: Bool? = nil) {
        self.rpID = rpID
        self.expectedOrigins = expectedOrigins
        self.requireUserVerification = requireUserVerification
    }

    public var relyingParty: RelyingParty {
        RelyingParty(id: rpID, origins: expectedOrigins, requireUserVerification: requireUserVerification ?? true)
    }

    /// The config as stored, or why WebAuthn would never match it: the id must be a bare domain (kept in lower case,
    /// as it is hashed); each origin is read as a browser reads it (``BrowserURL``, so Foundation and the browser
    /// agree on its host), must be the id's host or under it, and is kept as browsers serialize an origin in
    /// `clientDataJSON` (`https://host[:port]`), which is what it is compared with.
    public func validated() throws -> PasskeyConfig {
        let id = rpID.lowercased()
        guard !id.isEmpty, id.count <= 253, !id.contains("/"), !id.contains(":"),
              id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }), !id.hasPrefix("."), !id.hasSuffix(".")
        else { throw AuthFailure.invalidConfig("((passkeyConfig.rpId must be a domain, such as example.com.))") }
        guard !expectedOrigins.isEmpty, expectedOrigins.count <= 50 else {
            throw AuthFailure.invalidConfig("((passkeyConfig.expectedOrigins needs 1 to 50 origins.))")
        }
        let origins = try expectedOrigins.map { origin in
            if origin.hasPrefix("android:apk-key-hash:") { return origin }
            guard let url = BrowserURL(origin), url.rest == "/",
                  url.scheme == "https" || (url.scheme == "http" && url.host == "localhost"),
                  url.host == id || url.host.hasSuffix("." + id)
            else {
                throw AuthFailure.invalidConfig("((\(origin) is not an origin of \(rpID): use https://\(rpID) or a subdomain's, "
                    + "http only for localhost.))")
            }
            return url.scheme + "://" + url.host + (url.port.map { ":\($0)" } ?? "")
        }
        return PasskeyConfig(rpID: id, expectedOrigins: origins, requireUserVerification: requireUserVerification)
    }
}

