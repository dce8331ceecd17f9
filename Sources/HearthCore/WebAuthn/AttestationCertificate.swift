import Crypto
import X509

/// A `packed` attestation's certificate (`x5c[0]`): its P-256 key checks the attestation signature. No chain is
/// built to a vendor's root — the options ask for attestation `none`, so a certificate proves only that the
/// statement is intact, not who made the authenticator.
enum AttestationCertificate {
    static func isValidSignature(_ signature: [UInt8], for data: [UInt8], certificate der: [UInt8]) throws(WebAuthnError) -> Bool {
        guard let certificate = try? Certificate(derEncoded: der), let key = P256.Signing.PublicKey(certificate.publicKey)
        else { throw .attestationInvalid("the attestation certificate is not a P-256 certificate") }
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: data)
    }
}
