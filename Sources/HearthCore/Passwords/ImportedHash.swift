import Crypto
import CryptoExtras
import Foundation

/// Password hashes made elsewhere and brought in by `accounts:batchCreate` / `hearth auth:import`: every algorithm
/// Firebase imports (reference §3.2), verified the way Firebase verifies them. A user keeps such a hash until their
/// next successful sign-in re-hashes the password with the project's Firebase scrypt.
///
/// Stored as `$fbimport$alg=<ALGORITHM>,<parameters>$<salt b64>$<hash b64>`; bcrypt keeps its own `$2b$…` string.
///
/// ```swift
/// let stored = ImportedHash(algorithm: .digest(.sha256, rounds: 1, order: .saltFirst), salt: salt, hash: hash).stored
/// try PasswordHash.verify("password", against: stored)
/// ```
public struct ImportedHash: Sendable, Equatable {
    /// The digests Firebase's importer names (`SHA256`, `HMAC_MD5`, `PBKDF2_SHA256`, …).
    public enum Digest: String, Sendable, CaseIterable {
        case md5 = "MD5", sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512"
    }

    /// `passwordHashOrder`: `SALT_AND_PASSWORD` (the CLI's `SALT_FIRST`) or `PASSWORD_AND_SALT`.
    public enum InputOrder: String, Sendable {
        case saltFirst = "SALT_AND_PASSWORD"
        case passwordFirst = "PASSWORD_AND_SALT"
    }

    public enum Algorithm: Sendable, Equatable {
        /// `MD5`, `SHA1`, `SHA256`, `SHA512`: `h = D(salt ‖ password)` (or password first), then `rounds - 1` more
        /// times `h = D(h)`. MD5 with 0 rounds stores the digest's lowercase hex text, as Firebase's import does.
        case digest(Digest, rounds: Int, order: InputOrder)
        /// `HMAC_*`: `HMAC(key, password ‖ salt)` (or salt first).
        case hmac(Digest, key: Data, order: InputOrder)
        /// `PBKDF_SHA1`, `PBKDF2_SHA256`: PBKDF2-HMAC with `rounds`; the key length is the stored hash's.
        case pbkdf2(Digest, rounds: Int)
        /// `STANDARD_SCRYPT`: scrypt with N (`cpuMemCost`, not its log), r, p; the key length is the stored hash's.
        case standardScrypt(n: Int, r: Int, p: Int)
    }

    public var algorithm: Algorithm
    public var salt: Data
    public var hash: Data

    public init(algorithm: Algorithm, salt: Data, hash: Data) {
        self.algorithm = algorithm
        self.salt = salt
        self.hash = hash
    }

    /// The self-describing string kept in the user record.
    public var stored: String {
        let fields: String = switch algorithm {
        case .digest(let digest, let rounds, let order): "alg=\(digest.rawValue),rounds=\(rounds),order=\(order.rawValue)"
        case .hmac(let digest, let key, let order):
            "alg=HMAC_\(digest.rawValue),key=\(key.base64EncodedString()),order=\(order.rawValue)"
        case .pbkdf2(let digest, let rounds): "alg=PBKDF2_\(digest.rawValue),rounds=\(rounds)"
        case .standardScrypt(let n, let r, let p): "alg=STANDARD_SCRYPT,n=\(n),r=\(r),p=\(p)"
        }
        return "$fbimport$\(fields)$\(salt.base64EncodedString())$\(hash.base64EncodedString())"
    }

    /// Parses a `$fbimport$…` string; `nil` for anything else.
    public init?(stored: String) {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "fbimport",
              let salt = Data(base64Encoded: String(parts[3])), let hash = Data(base64Encoded: String(parts[4])),
              !hash.isEmpty
        else { return nil }
        var fields: [String: String] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { return nil }
            fields[String(kv[0])] = String(kv[1])
        }
        guard let name = fields["alg"] else { return nil }
        let order = fields["order"].flatMap(InputOrder.init(rawValue:))
        let rounds = fields["rounds"].flatMap { Int($0) }
        let algorithm: Algorithm
        if let digest = Digest(rawValue: name), let rounds, let order {
            algorithm = .digest(digest, rounds: rounds, order: order)
        } else if name.hasPrefix("HMAC_"), let digest = Digest(rawValue: String(name.dropFirst(5))), let order,
                  let key = fields["key"].flatMap({ Data(base64Encoded: $0) }) {
            algorithm = .hmac(digest, key: key, order: order)
        } else if name.hasPrefix("PBKDF2_"), let digest = Digest(rawValue: String(name.dropFirst(7))), let rounds {
            algorithm = .pbkdf2(digest, rounds: rounds)
        } else if name == "STANDARD_SCRYPT", let n = fields["n"].flatMap({ Int($0) }),
                  let r = fields["r"].flatMap({ Int($0) }), let p = fields["p"].flatMap({ Int($0) }) {
            algorithm = .standardScrypt(n: n, r: r, p: p)
        } else {
            return nil
        }
        self.init(algorithm: algorithm, salt: salt, hash: hash)
    }

    /// Recomputes the hash of `password` with this record's algorithm, salt and parameters.
    public func compute(_ password: String) throws -> Data {
        let secret = Data(password.utf8)
        switch algorithm {
        case .digest(let digest, let rounds, let order):
            guard (0...8192).contains(rounds) else { throw PasswordHashError.unsupportedParameters }
            var value = Self.digest(digest, order == .saltFirst ? salt + secret : secret + salt)
            for _ in 1..<max(rounds, 1) { value = Self.digest(digest, value) }
            if digest == .md5 && rounds == 0 { return Data(value.hexString.utf8) }
            return value
        case .hmac(let digest, let key, let order):
            let message = order == .saltFirst ? salt + secret : secret + salt
            let symmetric = SymmetricKey(data: key)
            return switch digest {
            case .md5: Data(HMAC<Insecure.MD5>.authenticationCode(for: message, using: symmetric))
            case .sha1: Data(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetric))
            case .sha256: Data(HMAC<SHA256>.authenticationCode(for: message, using: symmetric))
            case .sha512: Data(HMAC<SHA512>.authenticationCode(for: message, using: symmetric))
            }
        case .pbkdf2(let digest, let rounds):
            guard (1...1_000_000).contains(rounds), digest == .sha1 || digest == .sha256 else {
                throw PasswordHashError.unsupportedParameters
            }
            let function: KDF.Insecure.PBKDF2.HashFunction = digest == .sha1 ? .insecureSHA1 : .sha256
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: secret, salt: salt, using: function,
                                                        outputByteCount: hash.count, unsafeUncheckedRounds: rounds)
            return key.withUnsafeBytes { Data($0) }
        case .standardScrypt(let n, let r, let p):
            guard n > 1, n & (n - 1) == 0, n <= 1 << 20, (1...32).contains(r), (1...64).contains(p),
                  (try? HashBudget.check(scryptN: n, r: r, p: p)) != nil
            else { throw PasswordHashError.unsupportedParameters }
            // The cap is passed down too, so the library itself refuses rather than allocates past the budget.
            let key = try KDF.Scrypt.deriveKey(from: secret, salt: salt, outputByteCount: hash.count, rounds: n,
                                               blockSize: r, parallelism: p,
                                               maxMemory: HashBudget.maximumScryptBytes + 128 * r * (p + 2))
            return key.withUnsafeBytes { Data($0) }
        }
    }

    /// `password` matches, compared in constant time.
    public func verify(_ password: String) throws -> Bool {
        constantTimeEquals(try compute(password), hash)
    }

    static func digest(_ digest: Digest, _ data: Data) -> Data {
        switch digest {
        case .md5: Data(Insecure.MD5.hash(data: data))
        case .sha1: Data(Insecure.SHA1.hash(data: data))
        case .sha256: Data(SHA256.hash(data: data))
        case .sha512: Data(SHA512.hash(data: data))
        }
    }
}

/// bcrypt strings (`$2a$`, `$2b$`, `$2y$`), as imported: the whole modular-crypt string is the hash.
public enum BcryptHash {
    public static func isBcrypt(_ stored: String) -> Bool {
        ["$2a$", "$2b$", "$2y$"].contains { stored.hasPrefix($0) } && stored.utf8.count == 60
    }

    /// `$2y$` (PHP's name) is the same algorithm as `$2b$`.
    public static func normalized(_ stored: String) -> String {
        stored.hasPrefix("$2y$") ? "$2b$" + stored.dropFirst(4) : stored
    }
}
