import Crypto
import Foundation

/// Why a WebAuthn ceremony is refused; the description says it plainly (it becomes the detail of
/// `INVALID_AUTHENTICATOR_RESPONSE`).
public enum WebAuthnError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case wrongType(String)
    case challengeMismatch
    case originNotAllowed(String)
    case crossOrigin
    case relyingPartyMismatch
    case userNotPresent
    case userNotVerified
    case unsupportedAlgorithm(Int64)
    case unsupportedAttestation(String)
    case attestationInvalid(String)
    case badSignature
    case counterWentBackwards(stored: UInt32, given: UInt32)
    case credentialMismatch
    case userHandleMismatch

    public var description: String {
        switch self {
        case .malformed(let why): "Malformed response: \(why)."
        case .wrongType(let type): "clientDataJSON.type is \(type), not this ceremony's."
        case .challengeMismatch: "The challenge is not the one this ceremony was given."
        case .originNotAllowed(let origin): "The origin \(origin) is not among passkeyConfig.expectedOrigins."
        case .crossOrigin: "The ceremony ran in a cross-origin frame."
        case .relyingPartyMismatch: "The authenticator data is for another relying party id."
        case .userNotPresent: "The authenticator did not confirm user presence."
        case .userNotVerified: "The authenticator did not verify the user, and this project requires it."
        case .unsupportedAlgorithm(let alg): "COSE algorithm \(alg) is not supported (ES256, EdDSA and RS256 are)."
        case .unsupportedAttestation(let format): "Attestation format \(format) is not supported (none and packed are)."
        case .attestationInvalid(let why): "The attestation does not verify: \(why)."
        case .badSignature: "The signature does not verify."
        case .counterWentBackwards(let stored, let given):
            "The signature counter went backwards (\(given) after \(stored)): the credential may be cloned."
        case .credentialMismatch: "The credential id does not match the authenticator data."
        case .userHandleMismatch: "The user handle is not the credential's account."
        }
    }
}

/// The relying party a project's passkeys belong to: its id (a domain) and the origins ceremonies may run on.
public struct RelyingParty: Sendable, Equatable {
    public var id: String
    public var origins: [String]
    public var requireUserVerification: Bool

    public init(id: String, origins: [String], requireUserVerification: Bool = true) {
        self.id = id
        self.origins = origins
        self.requireUserVerification = requireUserVerification
    }
}

/// `clientDataJSON`, parsed: what the browser or OS says the ceremony was.
public struct ClientData: Sendable {
    public let type: String
    public let challenge: [UInt8]
    public let origin: String
    public let crossOrigin: Bool
    /// The bytes as sent: their SHA-256 is what the authenticator signed.
    public let raw: [UInt8]

    public init(_ raw: [UInt8]) throws(WebAuthnError) {
        guard raw.count <= 64 << 10,
              let object = try? JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any],
              let type = object["type"] as? String, let challenge = object["challenge"] as? String,
              let origin = object["origin"] as? String
        else { throw .malformed("clientDataJSON needs type, challenge and origin") }
        guard let bytes = Base64URL.decode(challenge) else { throw .malformed("the challenge is not base64url") }
        self.type = type
        self.challenge = Array(bytes)
        self.origin = origin
        self.crossOrigin = object["crossOrigin"] as? Bool ?? false
        self.raw = raw
    }
}

/// Authenticator data (WebAuthn §6.1): the relying party's hash, flags, counter, and at registration the new
/// credential.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredential = Flags(rawValue: 0x40)
        public static let extensions = Flags(rawValue: 0x80)
    }

    public struct AttestedCredential: Sendable {
        public let aaguid: [UInt8]
        public let id: [UInt8]
        public let publicKey: COSEKey
    }

    public let raw: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let credential: AttestedCredential?

    public init(_ raw: [UInt8]) throws(WebAuthnError) {
        guard raw.count >= 37 else { throw .malformed("authenticator data is shorter than 37 bytes") }
        self.raw = raw
        rpIDHash = Array(raw[0..<32])
        flags = Flags(rawValue: raw[32])
        signCount = raw[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredential) {
            guard raw.count >= offset + 18 else { throw .malformed("attested credential data is cut short") }
            let aaguid = Array(raw[offset..<offset + 16])
            let length = Int(raw[offset + 16]) << 8 | Int(raw[offset + 17])
            offset += 18
            guard length > 0, length <= 1023, raw.count >= offset + length else { throw .malformed("bad credential id length") }
            let id = Array(raw[offset..<offset + length])
            offset += length
            let (keyMap, used): (CBOR, Int)
            do { (keyMap, used) = try CBOR.decodePrefix(raw[offset...]) } catch {
                throw .malformed("the credential public key is not CBOR (\(error))")
            }
            let key = try COSEKey(keyMap, encoded: Array(raw[offset..<offset + used]))
            offset += used
            credential = AttestedCredential(aaguid: aaguid, id: id, publicKey: key)
        } else {
            credential = nil
        }
        if flags.contains(.extensions) {
            do {
                let (extensions, used) = try CBOR.decodePrefix(raw[offset...])
                guard extensions.entries != nil else { throw WebAuthnError.malformed("extensions are not a map") }
                offset += used
            } catch let error as WebAuthnError { throw error } catch { throw .malformed("extensions are not CBOR") }
        }
        guard offset == raw.count else { throw .malformed("authenticator data has trailing bytes") }
    }
}

/// A credential a registration proved, to be stored with its account.
public struct RegisteredCredential: Sendable {
    public let id: [UInt8]
    public let publicKey: COSEKey
    public let signCount: UInt32
    public let aaguid: [UInt8]
    public let format: String
    public let flags: AuthenticatorData.Flags
}

/// The two WebAuthn ceremonies, verified as WebAuthn Level 2/3 (§7.1, §7.2) asks of a relying party.
///
/// ```swift
/// let client = try ClientData(clientDataJSON)
/// let credential = try WebAuthn.verifyRegistration(client, attestationObject: object, challenge: issued, party: party)
/// ```
public enum WebAuthn {
    /// The algorithms a registration may use, as offered in `pubKeyCredParams`.
    public static let algorithms: [COSEKey.Algorithm] = [.es256, .eddsa, .rs256]

    /// Checks a registration (`navigator.credentials.create`): its client data, authenticator data and attestation
    /// (`none`, or `packed` self-attestation or with a certificate, whose signature is checked; no trust anchor is
    /// required, as attestation `none` is what the options ask).
    public static func verifyRegistration(_ client: ClientData, attestationObject: [UInt8], challenge: [UInt8],
                                          party: RelyingParty) throws(WebAuthnError) -> RegisteredCredential {
        try checkClient(client, type: "webauthn.create", challenge: challenge, party: party)
        let object: CBOR
        do { object = try CBOR.decode(attestationObject) } catch { throw .malformed("attestationObject is not CBOR (\(error))") }
        guard let format = object[text: "fmt"]?.text, let statement = object[text: "attStmt"], statement.entries != nil,
              let rawData = object[text: "authData"]?.bytes
        else { throw .malformed("attestationObject needs fmt, attStmt and authData") }
        let data = try AuthenticatorData(rawData)
        try checkAuthenticatorData(data, party: party)
        guard let credential = data.credential else { throw .malformed("no attested credential data") }
        let signed = rawData + Array(SHA256.hash(data: client.raw))
        switch format {
        case "none":
            guard statement.entries?.isEmpty == true else { throw .attestationInvalid("attestation none has a statement") }
        case "packed":
            guard let alg = statement[text: "alg"]?.int, let signature = statement[text: "sig"]?.bytes else {
                throw .attestationInvalid("a packed statement needs alg and sig")
            }
            if let chain = statement[text: "x5c"]?.array {
                guard let leaf = chain.first?.bytes, alg == COSEKey.Algorithm.es256.rawValue else {
                    throw .attestationInvalid("only an ES256 certificate chain is supported")
                }
                guard try AttestationCertificate.isValidSignature(signature, for: signed, certificate: leaf) else {
                    throw .attestationInvalid("the signature does not verify with the attestation certificate")
                }
            } else {
                guard alg == credential.publicKey.algorithm.rawValue else {
                    throw .attestationInvalid("self attestation's alg is not the credential key's")
                }
                guard credential.publicKey.isValidSignature(signature, for: signed) else {
                    throw .attestationInvalid("the self-attestation signature does not verify")
                }
            }
        default:
            throw .unsupportedAttestation(format)
        }
        return RegisteredCredential(id: credential.id, publicKey: credential.publicKey, signCount: data.signCount,
                                    aaguid: credential.aaguid, format: format, flags: data.flags)
    }

    /// Checks an assertion (`navigator.credentials.get`) made with `key`, whose counter was `storedCount`; returns
    /// the counter to store.
    public static func verifyAssertion(_ client: ClientData, authenticatorData rawData: [UInt8], signature: [UInt8],
                                       challenge: [UInt8], party: RelyingParty, key: COSEKey,
                                       storedCount: UInt32) throws(WebAuthnError) -> UInt32 {
        try checkClient(client, type: "webauthn.get", challenge: challenge, party: party)
        let data = try AuthenticatorData(rawData)
        try checkAuthenticatorData(data, party: party)
        guard key.isValidSignature(signature, for: rawData + Array(SHA256.hash(data: client.raw))) else { throw .badSignature }
        // A counter that does not grow (both zero: the authenticator keeps none) means two copies of one key.
        if data.signCount != 0 || storedCount != 0, data.signCount <= storedCount {
            throw .counterWentBackwards(stored: storedCount, given: data.signCount)
        }
        return data.signCount
    }

    static func checkClient(_ client: ClientData, type: String, challenge: [UInt8],
                            party: RelyingParty) throws(WebAuthnError) {
        guard client.type == type else { throw .wrongType(client.type) }
        guard constantTimeEquals(client.challenge, challenge) else { throw .challengeMismatch }
        guard party.origins.contains(client.origin) else { throw .originNotAllowed(client.origin) }
        guard !client.crossOrigin else { throw .crossOrigin }
    }

    static func checkAuthenticatorData(_ data: AuthenticatorData, party: RelyingParty) throws(WebAuthnError) {
        guard constantTimeEquals(data.rpIDHash, Array(SHA256.hash(data: Data(party.id.utf8)))) else { throw .relyingPartyMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if party.requireUserVerification, !data.flags.contains(.userVerified) { throw .userNotVerified }
    }
}
