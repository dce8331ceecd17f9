import Foundation
import HearthCore
import HearthServer
import HTTPTypes
import HearthWire
import Testing

/// Imported hashes a sign-in can afford: import refuses bcrypt above cost 13 (per user) and scrypt above 256 MiB,
/// and a stored row over the budget is refused before any hashing, so it cannot hold the hashing threads.
@Suite struct HashBudgetTests {
    static let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    /// The OpenBSD suite's first vector (password `U*U`), at cost 5, and the same string claiming cost 31.
    static let cheap = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
    static let ruinous = "$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"

    @Test func importRefusesHashesNoSignInCouldAfford() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        try await app.run { client in
            let imported = try await client.post("\(Self.base)/accounts:batchCreate", [
                "hashAlgorithm": "BCRYPT", "users": [
                    ["localId": "ok", "email": "ok@example.com", "passwordHash": Data(Self.cheap.utf8).base64EncodedString()],
                    ["localId": "slow", "email": "slow@example.com", "passwordHash": Data(Self.ruinous.utf8).base64EncodedString()],
                ]], key: nil, headers: Self.owner)
            let errors = (imported["error"] as? [[String: Any]]) ?? []
            #expect(errors.count == 1 && errors.first?["index"] as? Int == 1, "\(imported.text)")
            #expect((errors.first?["message"] as? String)?.contains("bcrypt cost 31") == true, "\(imported.text)")
            let signIn = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "ok@example.com", "password": "U*U"])
            #expect(signIn.status == 200, "the affordable user signs in: \(signIn.text)")

            let scrypt = try await client.post("\(Self.base)/accounts:batchCreate", [
                "hashAlgorithm": "STANDARD_SCRYPT", "memoryCost": 1 << 20, "blockSize": 32, "parallelization": 64,
                "users": [["localId": "s", "email": "s@example.com", "passwordHash": "AAAA", "salt": "AAAA"]],
            ], key: nil, headers: Self.owner)
            #expect(scrypt.errorMessage?.hasPrefix("INVALID_HASH_MEMORY_COST") == true, "\(scrypt.text)")
        }
    }

    /// A row written past the import's check (a restored backup, a hand edit): refused as a wrong password without
    /// calling bcrypt at all, and an scrypt row over the budget likewise.
    @Test func aStoredHashOverTheBudgetIsNeverHashed() throws {
        final class Counting: BcryptVerifier, @unchecked Sendable {
            let lock = NSLock()
            var calls = 0
            func verify(_ password: String, against bcryptHash: String) -> Bool {
                lock.withLock { calls += 1 }
                return HummingbirdBcryptVerifier().verify(password, against: bcryptHash)
            }
        }
        let counting = Counting()
        #expect(try PasswordHash.verify("U*U", against: Self.cheap, bcrypt: counting))
        #expect(throws: PasswordHashError.unsupportedParameters) {
            try PasswordHash.verify("U*U", against: Self.ruinous, bcrypt: counting)
        }
        #expect(counting.calls == 1, "only the affordable hash reached bcrypt")
        let huge = try #require(ImportedHash(stored: "$fbimport$alg=STANDARD_SCRYPT,n=1048576,r=32,p=64$AAAA$AAAA"))
        #expect(throws: PasswordHashError.unsupportedParameters) { try huge.verify("x") }
        #expect(HashBudget.scryptBytes(n: 1 << 14, r: 8, p: 1) == 16 << 20, "Firebase's parameters: 16 MiB")
        #expect(throws: HashBudget.Exceeded.self) { try HashBudget.check(scryptN: 1 << 20, r: 8, p: 1) }
        #expect(HashBudget.scryptBytes(n: Int.max / 2, r: 32, p: 64) == nil, "overflow is no budget")
    }
}
