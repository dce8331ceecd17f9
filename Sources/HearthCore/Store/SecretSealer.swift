import Crypto
import Foundation

/// Seals the store's private keys and TOTP secrets with AES-GCM: signing keys' private halves, identity providers'
/// private keys (Apple's), users' TOTP secrets, and short-lived pending secrets (a TOTP secret being enrolled, a
/// provider's tokens between the steps of a sign-in). A sealed value reads `hearth-sealed:v1:<base64>`; its record and
/// field are authenticated with it, so a sealed secret cannot be moved to another user or project.
///
/// ```swift
/// let sealer = try SecretSealer(key: Data(base64Encoded: environment["HEARTH_ENCRYPTION_KEY"]!)!)
/// let sealed = sealer.seal("-----BEGIN PRIVATE KEY-----…", context: "project:my-app:key:abc")
/// ```
public struct SecretSealer: Sendable {
    static let prefix = "hearth-sealed:v1:"
    private let key: SymmetricKey

    /// `key`: 32 bytes.
    public init(key: Data) throws {
        guard key.count == 32 else { throw SealingError.badKey }
        self.key = SymmetricKey(data: key)
    }

    public static func isSealed(_ value: String) -> Bool { value.hasPrefix(prefix) }

    public func seal(_ plaintext: String, context: String) -> String {
        guard !Self.isSealed(plaintext) else { return plaintext }
        // AES-GCM with a random nonce cannot fail for these sizes; a failure would be a broken crypto library.
        let box = try! AES.GCM.seal(Data(plaintext.utf8), using: key, authenticating: Data(context.utf8))
        return Self.prefix + box.combined!.base64EncodedString()
    }

    public func unseal(_ value: String, context: String) throws -> String {
        guard Self.isSealed(value) else { return value }  // not sealed yet (a store from before encryption)
        guard let data = Data(base64Encoded: String(value.dropFirst(Self.prefix.count))),
              let box = try? AES.GCM.SealedBox(combined: data),
              let plain = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        else { throw SealingError.wrongKey }
        return String(decoding: plain, as: UTF8.self)
    }
}

public enum SealingError: Error, Equatable, CustomStringConvertible {
    /// The key is not 32 bytes.
    case badKey
    /// A sealed value does not open with this key (another key, or the value was tampered with).
    case wrongKey
    /// The store holds sealed values and no key was given.
    case noKey

    public var description: String {
        switch self {
        case .badKey: "the encryption key must be 32 bytes (base64 in HEARTH_ENCRYPTION_KEY, or a file in HEARTH_ENCRYPTION_KEY_FILE)"
        case .wrongKey: "a sealed secret in the store does not open with this encryption key: is it the key the store was sealed with?"
        case .noKey: "the store holds encrypted secrets: give the key with HEARTH_ENCRYPTION_KEY or HEARTH_ENCRYPTION_KEY_FILE"
        }
    }
}

extension ProjectRecord: HoldsSecrets {
    /// Each secret field through `transform` with its context.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> ProjectRecord {
        var copy = self
        for index in copy.signingKeys.indices {
            let key = copy.signingKeys[index]
            copy.signingKeys[index].privateKeyPEM = try transform(key.privateKeyPEM, "project:\(id):key:\(key.kid)")
        }
        for (provider, config) in copy.settings.identityProviders ?? [:] {
            if let secret = config.privateKey {
                copy.settings.identityProviders?[provider]?.privateKey = try transform(secret, "project:\(id):idp:\(provider)")
            }
        }
        for index in copy.consoleAdmins.indices {
            if let secret = copy.consoleAdmins[index].totpSecret {
                copy.consoleAdmins[index].totpSecret = try transform(secret, "project:\(id):console:\(copy.consoleAdmins[index].email)")
            }
        }
        return copy
    }
}

extension TenantRecord: HoldsSecrets {
    /// The private keys of its providers (apple.com's signing key), as the project's.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> TenantRecord {
        var copy = self
        for (provider, config) in identityProviders {
            if let secret = config.privateKey {
                copy.identityProviders[provider]?.privateKey = try transform(secret, "tenant:\(projectID):\(id):idp:\(provider)")
            }
        }
        return copy
    }
}

extension UserRecord: HoldsSecrets {
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> UserRecord {
        guard mfaEnrollments?.contains(where: { $0.totpSecret != nil }) == true else { return self }
        var copy = self
        for index in copy.enrollments.indices {
            if let secret = copy.enrollments[index].totpSecret {
                let context = "user:\(projectID):\(tenantID ?? ""):\(localID):totp:\(copy.enrollments[index].id)"
                copy.enrollments[index].totpSecret = try transform(secret, context)
            }
        }
        return copy
    }
}

extension PendingRecord: HoldsSecrets {
    /// The payload: a TOTP secret being enrolled, a provider's tokens between the steps of a sign-in.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> PendingRecord {
        var copy = self
        copy.payload = try transform(payload, "pending:\(projectID):\(kind.rawValue):\(digest)")
        return copy
    }
}
