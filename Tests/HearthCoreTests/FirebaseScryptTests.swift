import Foundation
import HearthCore
import Testing

/// Known-answer tests: the two published Firebase-scrypt vectors (firebase/scrypt README and the Admin SDK's
/// integration test), byte for byte.
@Suite struct FirebaseScryptTests {
    static let parameters = FirebaseScryptParameters(
        signerKey: Data(base64Encoded: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: Data(base64Encoded: "Bw==")!, rounds: 8, memoryCost: 14)

    @Test func readmeVector() throws {
        let hash = try FirebaseScrypt.hash(password: "user1password", salt: Data(base64Encoded: "42xEC+ixf3L2lw==")!,
                                           parameters: Self.parameters)
        #expect(hash.base64EncodedString()
            == "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
    }

    @Test func adminSDKVector() throws {
        let hash = try FirebaseScrypt.hash(password: "password", salt: Data("NaCl".utf8), parameters: Self.parameters)
        #expect(hash.base64EncodedString()
            == "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw==")
    }

    @Test func hashStringIsSelfDescribingAndVerifies() throws {
        let cheap = FirebaseScryptParameters.generate(rounds: 8, memoryCost: 10)
        let stored = try PasswordHash.firebaseScrypt(password: "correct horse", parameters: cheap)
        #expect(stored.hasPrefix("$fbscrypt$v=1,n=1024,r=8,p=1,"))
        #expect(try PasswordHash.verify("correct horse", against: stored))
        #expect(try !PasswordHash.verify("correct horsE", against: stored))
        let parsed = try #require(FirebaseScryptHash(stored))
        #expect(parsed.parameters == cheap)
        #expect(parsed.salt.count == 16)
    }

    @Test func publishedVectorVerifiesThroughTheHashString() throws {
        let stored = "$fbscrypt$v=1,n=16384,r=8,p=1,ss=Bw==,sk=\(Self.parameters.signerKey.base64EncodedString())"
            + "$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
        #expect(try PasswordHash.verify("user1password", against: stored))
        #expect(try !PasswordHash.verify("user2password", against: stored))
    }

    @Test(arguments: ["", "plain", "$fbscrypt$v=2$a$b", "$fbscrypt$v=1,n=1000,r=8,p=1,ss=Bw==,sk=AA==$AA==$AA==",
                      "$bcrypt$whatever"])
    func malformedHashStringsNeverVerify(_ stored: String) {
        #expect(throws: PasswordHashError.malformed) { try PasswordHash.verify("x", against: stored) }
    }
}
