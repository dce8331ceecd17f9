import Foundation
@testable import HearthCore
import Testing

/// Every algorithm Firebase imports, against known answers computed with Python's hashlib/hmac (another
/// implementation), for the raw password `password` and salt `NaCl` of the Admin SDK's integration tests.
@Suite struct ImportedHashTests {
    static let salt = Data("NaCl".utf8)
    static let key = Data("hmac-signer-key".utf8)

    static let vectors: [(ImportedHash.Algorithm, String)] = [
        (.digest(.md5, rounds: 0, order: .saltFirst), "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
        (.digest(.md5, rounds: 1, order: .saltFirst), "YtGffn3ctZRnKHdtJeQQ7Q=="),
        (.digest(.md5, rounds: 1000, order: .passwordFirst), "pcBO9QPRivqYtRWiBu8CdA=="),
        (.digest(.sha1, rounds: 1, order: .saltFirst), "4ynUBUr/OQVsCQQZk/6FmoYdJy8="),
        (.digest(.sha1, rounds: 1000, order: .passwordFirst), "XJ9b6C7YiyevSIy6/2Uw1yd0hdc="),
        (.digest(.sha256, rounds: 1, order: .saltFirst), "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="),
        (.digest(.sha256, rounds: 1000, order: .passwordFirst), "F5oy45eKSyo0QXeC2GWEFhXMME8UjtjKYvXKj/SBoeA="),
        (.digest(.sha512, rounds: 1, order: .saltFirst),
         "2p0svfOgDTflOF7HK5wbHP+05l4lkdV8P+FFq+p6aHPQS7uBGa9TyGc8DfxZsfkcaV2Mfod35WxAzaj5yBEKYw=="),
        (.digest(.sha512, rounds: 1000, order: .passwordFirst),
         "+zyW3H4GzQ+r7OAN0uT7Fv3GLN9vBD4qCFKRB9Q5ZPi/3eToWjz6KSgxT/a4ax/zrkfb9Rg3hKPcPP6dzxF5HQ=="),
        (.hmac(.md5, key: key, order: .passwordFirst), "9olIf2QxcUiRlgYeqBPgww=="),
        (.hmac(.sha1, key: key, order: .passwordFirst), "NkD+UjXREwr79eA3Bwas+oGW/sI="),
        (.hmac(.sha256, key: key, order: .passwordFirst), "6z+Yix6OnjeKzY15iAZqZX2iXU/SF0iDQ7O8vFZN/qM="),
        (.hmac(.sha256, key: key, order: .saltFirst), "Z0BCWplJ8gYzqRe4Wzk0LBdvcJi7M3Qp0Tw5lchoMng="),
        (.hmac(.sha512, key: key, order: .passwordFirst),
         "QpCAelj6/aPkm0UoafogJ/kGTLpgVsTnQKBP7z3zDkS4C40CFHZ6NEhjuqR4b5uavOybGmVAB8EJsIv1qbKmCw=="),
        (.pbkdf2(.sha1, rounds: 1000), "lyyzCFlAUpkzVJDKKPSl1PyJGrmus+3dXEdQlJCV2Ko="),
        (.pbkdf2(.sha256, rounds: 10000),
         "5yZRhcIGnnrNS7ATB7zj9LUEXAGDveM2SRZOsE0LAov1tVKXvLBFi1Hf+Hs1Xe2itcMxECWSXt35m+h1I1diEA=="),
        (.standardScrypt(n: 1024, r: 8, p: 16),
         "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA=="),
    ]

    @Test(arguments: vectors.indices)
    func knownAnswer(_ index: Int) throws {
        let (algorithm, expected) = Self.vectors[index]
        let hash = try #require(Data(base64Encoded: expected))
        let imported = ImportedHash(algorithm: algorithm, salt: Self.salt, hash: hash)
        #expect(try imported.compute("password") == hash, "\(algorithm)")
        let stored = imported.stored
        #expect(ImportedHash(stored: stored) == imported, "round-trips through its stored form: \(stored)")
        #expect(try PasswordHash.verify("password", against: stored))
        #expect(try !PasswordHash.verify("passw0rd", against: stored))
        #expect(PasswordHash.needsRehash(stored, for: .generate(memoryCost: 12)))
    }

    @Test func bcryptNeedsAVerifierFromOutsideCore() {
        let stored = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(BcryptHash.isBcrypt(stored))
        #expect(BcryptHash.normalized("$2y$" + stored.dropFirst(4)) == "$2b$" + stored.dropFirst(4))
        #expect(throws: PasswordHashError.unsupportedAlgorithm) { try PasswordHash.verify("U*U", against: stored) }
    }

    @Test func malformedOrOutOfRangeHashesNeverMatch() {
        #expect(ImportedHash(stored: "$fbimport$alg=SHA256$c2FsdA==$aGFzaA==") == nil, "missing rounds and order")
        #expect(ImportedHash(stored: "$fbimport$alg=ARGON2,rounds=1$c2FsdA==$aGFzaA==") == nil)
        #expect(throws: PasswordHashError.malformed) { try PasswordHash.verify("x", against: "plaintext") }
        let huge = ImportedHash(algorithm: .digest(.sha256, rounds: 9000, order: .saltFirst), salt: Data(), hash: Data([1]))
        #expect(throws: PasswordHashError.unsupportedParameters) { try huge.verify("x") }
        let badScrypt = ImportedHash(algorithm: .standardScrypt(n: 1000, r: 8, p: 1), salt: Data(), hash: Data([1]))
        #expect(throws: PasswordHashError.unsupportedParameters) { try badScrypt.verify("x") }
    }

    @Test func projectHashesWithCurrentParametersAreKept() throws {
        let parameters = FirebaseScryptParameters.generate(memoryCost: 12)
        let stored = try PasswordHash.firebaseScrypt(password: "secret1", parameters: parameters)
        #expect(!PasswordHash.needsRehash(stored, for: parameters))
        #expect(PasswordHash.needsRehash(stored, for: .generate(memoryCost: 12)), "another project's key")
    }
}
