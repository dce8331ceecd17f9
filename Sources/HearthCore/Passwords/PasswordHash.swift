import Foundation

/// A self-describing password hash string, so that hashes of several algorithms can live side by side
/// (imports keep their algorithm until the user's next successful sign-in re-hashes them).
///
/// Firebase scrypt uses the portable form Supabase also reads:
/// `$fbscrypt$v=1,n=16384,r=8,p=1,ss=<separator b64>,sk=<signer key b64>$<salt b64>$<hash b64>`.
///
/// ```swift
/// let stored = try PasswordHash.firebaseScrypt(password: "secret1", parameters: project.hashConfig)
/// try PasswordHash.verify("secret1", against: stored)   // true
/// ```
public enum PasswordHash {
    /// Hashes `password` with a fresh 16-byte salt under the project's Firebase-scrypt parameters.
    public static func firebaseScrypt(password: String, parameters: FirebaseScryptParameters,
                                      salt: Data = Data(SecureRandom.bytes(16))) throws -> String {
        let hash = try FirebaseScrypt.hash(password: password, salt: salt, parameters: parameters)
        return format(FirebaseScryptHash(parameters: parameters, salt: salt, hash: hash))
    }

    /// Checks `password` against a stored hash string in constant time: Firebase scrypt, an imported algorithm
    /// (``ImportedHash``) or, given a `bcrypt` verifier, bcrypt. Unknown formats are an error, never a match.
    public static func verify(_ password: String, against stored: String,
                              bcrypt: (any BcryptVerifier)? = nil) throws -> Bool {
        if let parsed = FirebaseScryptHash(stored) {
            let candidate = try FirebaseScrypt.hash(password: password, salt: parsed.salt, parameters: parsed.parameters)
            return constantTimeEquals(candidate, parsed.hash)
        }
        if let imported = ImportedHash(stored: stored) { return try imported.verify(password) }
        if let fake = EmulatorFakeHash(stored) { return constantTimeEquals(Data(password.utf8), Data(fake.password.utf8)) }
        if BcryptHash.isBcrypt(stored) {
            guard let bcrypt else { throw PasswordHashError.unsupportedAlgorithm }
            guard (try? HashBudget.check(bcrypt: stored)) != nil else { throw PasswordHashError.unsupportedParameters }
            return bcrypt.verify(password, against: BcryptHash.normalized(stored))
        }
        throw PasswordHashError.malformed
    }

    /// Whether a hash that just verified should be replaced by one under the project's current parameters:
    /// imported algorithms and older Firebase-scrypt parameters are re-hashed on the next successful sign-in.
    public static func needsRehash(_ stored: String, for parameters: FirebaseScryptParameters) -> Bool {
        FirebaseScryptHash(stored)?.parameters != parameters
    }

    static func format(_ value: FirebaseScryptHash) -> String {
        let p = value.parameters
        return "$fbscrypt$v=1,n=\(1 << p.memoryCost),r=\(p.rounds),p=1,ss=\(p.saltSeparator.base64EncodedString()),"
            + "sk=\(p.signerKey.base64EncodedString())$\(value.salt.base64EncodedString())$\(value.hash.base64EncodedString())"
    }
}

/// The parts of a `$fbscrypt$` string: what `auth:export` writes as `salt` and `passwordHash`.
public struct FirebaseScryptHash: Sendable, Equatable {
    public var parameters: FirebaseScryptParameters
    public var salt: Data
    public var hash: Data

    public init(parameters: FirebaseScryptParameters, salt: Data, hash: Data) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// Parses a `$fbscrypt$…` string; `nil` if it is anything else.
    public init?(_ string: String) {
        let parts = string.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "fbscrypt",
              let salt = Data(base64Encoded: String(parts[3])), let hash = Data(base64Encoded: String(parts[4]))
        else { return nil }
        var fields: [Substring: Substring] = [:]
        for pair in parts[2].split(separator: ",") {
            guard let eq = pair.firstIndex(of: "=") else { return nil }
            fields[pair[..<eq]] = pair[pair.index(after: eq)...]
        }
        guard fields["v"] == "1", let n = fields["n"].flatMap({ Int($0) }), n > 1, n & (n - 1) == 0,
              let r = fields["r"].flatMap({ Int($0) }), fields["p"] == "1",
              let ss = fields["ss"].flatMap({ Data(base64Encoded: String($0)) }),
              let sk = fields["sk"].flatMap({ Data(base64Encoded: String($0)) })
        else { return nil }
        self.init(parameters: FirebaseScryptParameters(signerKey: sk, saltSeparator: ss, rounds: r,
                                                        memoryCost: n.trailingZeroBitCount),
                  salt: salt, hash: hash)
    }
}

/// Firebase's emulator's stand-in for a hash, `fakeHash:salt=…:password=…`: the password in plain text. Emulator mode
/// imports it so that test fixtures exported from Firebase's emulator keep working; the first sign-in replaces it
/// with Firebase scrypt.
public struct EmulatorFakeHash: Sendable, Equatable {
    public var salt: String
    public var password: String

    public init?(_ stored: String) {
        guard stored.hasPrefix("fakeHash:salt="), let marker = stored.range(of: ":password=") else { return nil }
        salt = String(stored[stored.index(stored.startIndex, offsetBy: "fakeHash:salt=".count)..<marker.lowerBound])
        password = String(stored[marker.upperBound...])
    }
}
