import Foundation
import JWTKit

/// A service-account key file (`hearth service-accounts create NAME`, the shape of Google's): signs admin-API
/// assertions and custom tokens.
///
/// ```swift
/// let credentials = try ServiceAccountCredentials(keyFile: Data(contentsOf: URL(fileURLWithPath: "backend-api.json")))
/// ```
public struct ServiceAccountCredentials: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String
    /// The private key, parsed once; a file with an unreadable key is refused here, not at the first call.
    let privateKey: Insecure.RSA.PrivateKey

    public init(keyFile: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: keyFile) as? [String: Any],
              object["type"] as? String == "service_account",
              let project = object["project_id"] as? String, let email = object["client_email"] as? String,
              let keyID = object["private_key_id"] as? String, let pem = object["private_key"] as? String
        else { throw HearthAdminError.invalidArgument("not a service-account key file (type, project_id, client_email, private_key_id, private_key)") }
        guard let key = try? Insecure.RSA.PrivateKey(pem: pem) else {
            throw HearthAdminError.invalidArgument("the key file's private_key is not an RSA private key")
        }
        projectID = project
        clientEmail = email
        privateKeyID = keyID
        privateKey = key
    }

    /// A key collection that signs with this account's key (RS256, `kid` = `private_key_id`).
    func signingKeys() async -> JWTKeyCollection {
        await JWTKeyCollection().add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: privateKeyID))
    }
}
