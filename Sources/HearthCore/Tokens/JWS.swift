import Foundation

/// Compact RS256 JSON Web Signatures: the one format Hearth signs (ID tokens, later session cookies).
///
/// Verification is strict: the header must name `RS256` and a `kid` the key ring knows; `alg: none`,
/// HMAC algorithms and unknown keys are rejected before any claim is read.
public enum JWS {
    /// Signs `payload` (the UTF-8 of a JSON object) with `key`; the header carries `alg`, `kid` and `typ`.
    public static func sign(payload: [UInt8], with key: SigningKey) throws -> String {
        let headerPart = key.headerSegment
        let payloadPart = Base64URL.encode(payload)
        let signingInput = headerPart + "." + payloadPart
        let signature = try key.sign(Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Checks the signature of a compact JWS against `keys` and returns its payload bytes.
    public static func verify(_ token: String, keys: KeyRing) throws(TokenError) -> Data {
        try verifyReturningKey(token, keys: keys).payload
    }

    /// As ``verify(_:keys:)``, also naming the key that verified it.
    public static func verifyReturningKey(_ token: String, keys: KeyRing) throws(TokenError)
        -> (payload: Data, kid: String)
    {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count < 16_384,
              let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        let key: SigningKey
        if let known = keys.byHeaderSegment[String(parts[0])] {
            key = known  // the exact header Hearth writes: alg RS256 and a known kid
        } else {
            guard let headerData = Base64URL.decode(parts[0]),
                  let header = try? JSONDecoder().decode(Header.self, from: headerData)
            else { throw .malformed }
            guard header.alg == "RS256" else { throw .unsupportedAlgorithm }
            guard let kid = header.kid, let found = keys.byKid[kid] else { throw .unknownKey }
            key = found
        }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.isValidSignature(signature, for: signingInput) else { throw .badSignature }
        return (payload, key.kid)
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }
}

/// Why a token was refused. Mapped to `INVALID_ID_TOKEN` or `TOKEN_EXPIRED` at the wire boundary.
public enum TokenError: Error, Equatable {
    case malformed
    case unsupportedAlgorithm
    case unknownKey
    case badSignature
    case wrongAudience
    case wrongIssuer
    case expired
    case issuedInFuture
    case noSigningKey
}
