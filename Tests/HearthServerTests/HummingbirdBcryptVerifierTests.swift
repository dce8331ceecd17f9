import HearthCore
import HearthServer
import Testing

/// bcrypt as the server checks imported hashes (HearthCore itself has no bcrypt).
@Suite struct HummingbirdBcryptVerifierTests {
    @Test func bcryptStringsVerifyAsImported() throws {
        // The first vector of the OpenBSD / crypt_blowfish test suite, and the same hash written as $2y$ and $2b$.
        let stored = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        let bcrypt = HummingbirdBcryptVerifier()
        #expect(try PasswordHash.verify("U*U", against: stored, bcrypt: bcrypt))
        #expect(try !PasswordHash.verify("U*V", against: stored, bcrypt: bcrypt))
        #expect(try PasswordHash.verify("U*U", against: "$2y$" + stored.dropFirst(4), bcrypt: bcrypt))
        #expect(try PasswordHash.verify("U*U", against: "$2b$" + stored.dropFirst(4), bcrypt: bcrypt))
    }
}
