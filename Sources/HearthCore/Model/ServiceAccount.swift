import Crypto
import CryptoExtras
import Foundation

/// A service account registered with a project: the public half of a key whose private half lives in a JSON key
/// file on the administrator's side. It authenticates admin API calls (a short-lived JWT it signed) and signs
/// custom tokens. Hearth never stores the private key.
public struct ServiceAccountRecord: Sendable, Codable, Equatable {
    /// The short name given at creation (`hearth service-accounts create NAME`).
    public var name: String
    /// `NAME@PROJECT.iam.hearth`: `iss`/`sub` of the JWTs it signs, as Google's service-account emails are.
    public var clientEmail: String
    /// The key file's `private_key_id`, sent as the JWT header's `kid`.
    public var keyID: String
    /// SubjectPublicKeyInfo PEM of the RSA-2048 key.
    public var publicKeyPEM: String
    public var createdAt: Date
    /// Who made it through the admin API (`console:ops@example.com`, or another service account); `nil` for the
    /// command line. The key outlives its maker: deleting a console operator does not delete the keys they made.
    public var createdBy: String?

    public init(name: String, clientEmail: String, keyID: String, publicKeyPEM: String, createdAt: Date) {
        self.name = name
        self.clientEmail = clientEmail
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
    }

    /// Names as Google allows service-account ids: 6 to 30 characters of lowercase letters, digits and hyphens,
    /// starting with a letter.
    public static func isValidName(_ name: String) -> Bool {
        (6...30).contains(name.count) && name.first!.isLetter
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }
}

/// A new service account: the record the project keeps and the key file handed to the administrator.
///
/// ```swift
/// let created = try ServiceAccountKey.generate(name: "backend-api", projectID: "my-app", now: Date())
/// project.serviceAccounts.append(created.record)
/// try created.keyFileJSON.write(to: url)   // then chmod 600
/// ```
public struct ServiceAccountKey: Sendable {
    public var record: ServiceAccountRecord
    /// The key file in the shape of Google's service-account keys (`type`, `project_id`, `private_key_id`,
    /// `private_key`, `client_email`, …), so tools that read those read it (firebase-admin's
    /// `credentials.Certificate`, google-auth, `HearthAdmin`).
    public var keyFileJSON: Data

    public static func generate(name: String, projectID: String, now: Date) throws -> ServiceAccountKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyID = SHA256.hash(data: key.publicKey.derRepresentation).prefix(20).hexString
        let email = "\(name)@\(projectID).iam.hearth"
        let clientID = SecureRandom.digits(21)
        let record = ServiceAccountRecord(name: name, clientEmail: email, keyID: keyID,
                                          publicKeyPEM: key.publicKey.pemRepresentation, createdAt: now)
        let file: [String: String] = [
            "type": "service_account",
            "project_id": projectID,
            "private_key_id": keyID,
            "private_key": key.pkcs8PEMRepresentation + "\n",
            "client_email": email,
            "client_id": clientID,
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            // Google's tools insist on a token endpoint; Hearth takes the signed JWT itself as the bearer, so
            // this one is never called.
            "token_uri": "https://oauth2.googleapis.com/token",
            "universe_domain": "googleapis.com",
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ServiceAccountKey(record: record, keyFileJSON: try encoder.encode(file))
    }
}
