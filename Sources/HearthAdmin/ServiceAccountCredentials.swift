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
    let keys: JWTKeyCollection
    private let privateKeyPEM: String

    public init(keyFile: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: keyFile) as? [String: Any],
              object["type"] as? String == "service_account",
              let project = object["project_id"] as? String, let email = object["client_email"] as? String,
              let keyID = object["private_key_id"] as? String, let pem = object["private_key"] as? String
        else { throw HearthAdminError.invalidArgument("not a service-account key file (type, project_id, client_email, private_key_id, private_key)") }
        projectID = project
        clientEmail = email
        privateKeyID = keyID
        privateKeyPEM = pem
        keys = JWTKeyCollection()
    }

    /// Registers the private key with the signing collection (once, on first use).
    func signingKeys() async throws -> JWTKeyCollection {
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: privateKeyPEM), digestAlgorithm: .sha256,
                       kid: JWKIdentifier(string: privateKeyID))
        return keys
    }
}
