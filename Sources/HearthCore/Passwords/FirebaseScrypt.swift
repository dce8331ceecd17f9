import Crypto
import CryptoExtras
import Foundation

/// Project-level parameters of Firebase's modified scrypt, as the Firebase console shows them
/// ("Password hash parameters") and `firebase auth:import` takes them.
public struct FirebaseScryptParameters: Sendable, Codable, Equatable {
    /// `base64_signer_key`: the bytes that are encrypted with the derived key.
    public var signerKey: Data
    /// `base64_salt_separator`: appended to every user's salt.
    public var saltSeparator: Data
    /// scrypt's `r` (Firebase calls it `rounds`, commonly 8).
    public var rounds: Int
    /// log2 of scrypt's `N` (Firebase calls it `mem_cost`, commonly 14).
    public var memoryCost: Int

    public init(signerKey: Data, saltSeparator: Data, rounds: Int = 8, memoryCost: Int = 14) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    /// Fresh parameters for a new project: a random 64-byte signer key, Firebase's usual separator, 8 and 14.
    public static func generate(rounds: Int = 8, memoryCost: Int = 14) -> Self {
        Self(signerKey: Data(SecureRandom.bytes(64)), saltSeparator: Data([0x07]), rounds: rounds, memoryCost: memoryCost)
    }

    /// Fresh parameters at the lowest cost Firebase accepts (`rounds` 1, `mem_cost` 1): for emulator mode, where test
    /// suites sign thousands of users up and the passwords protect nothing. Still Firebase scrypt, so the hashes
    /// export, import and verify as any other; a project keeps the parameters it was created with.
    public static func generateForEmulator() -> Self { generate(rounds: 1, memoryCost: 1) }
}

/// Firebase's modified scrypt (github.com/firebase/scrypt):
/// `AES-256-CTR(key: scrypt(password, salt ‖ separator)[0..<32], iv: 0).encrypt(signerKey)`.
///
/// ```swift
/// let hash = try FirebaseScrypt.hash(password: "user1password", salt: salt, parameters: params)
/// ```
public enum FirebaseScrypt {
    /// Computes the Firebase-scrypt hash of `password` with the user's `salt`.
    public static func hash(password: String, salt: Data, parameters: FirebaseScryptParameters) throws -> Data {
        guard (1...20).contains(parameters.memoryCost), (1...32).contains(parameters.rounds) else {
            throw PasswordHashError.unsupportedParameters
        }
        let derived = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: salt + parameters.saltSeparator, outputByteCount: 64,
            rounds: 1 << parameters.memoryCost, blockSize: parameters.rounds, parallelism: 1)
        let cipherKey = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
        return try AES._CTR.encrypt(parameters.signerKey, using: cipherKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
    }
}

public enum PasswordHashError: Error, Equatable {
    case unsupportedParameters
    case malformed
    /// A bcrypt hash with no ``BcryptVerifier`` to check it.
    case unsupportedAlgorithm
}
