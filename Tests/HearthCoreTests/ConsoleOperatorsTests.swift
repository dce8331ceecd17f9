import Foundation
import HearthCore
import Testing

/// The console's operators (`ConsoleOperators`): a password and an authenticator code sign in, every wrong part
/// answers alike, a code signs in once, and a session ends at sign-out or after eight hours.
@Suite struct ConsoleOperatorsTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()
    let secret = TOTP.newSecret()

    /// The project with one operator, as `hearth console-admins create` leaves it.
    func projectWithOperator() async throws -> ProjectContext {
        var record = try await makeProject().record
        record.consoleAdmins = [ConsoleAdminRecord(
            email: "ops@example.com", passwordHash: try PasswordHash.firebaseScrypt(password: "correct horse", parameters: record.hashConfig),
            totpSecret: Base32.encode(secret), createdAt: clock.now())]
        try await store.updateProject(record)
        return try await makeProject()
    }

    @Test func passwordAndCodeSignInOnceAndEveryWrongPartAnswersAlike() async throws {
        let accounts = makeService()
        let project = try await projectWithOperator()
        let code = TOTP.code(secret: secret, at: clock.now())
        for (email, password, given) in [("ops@example.com", "wrong", code), ("nobody@example.com", "correct horse", code),
                                         ("ops@example.com", "correct horse", nil as String?)] {
            await #expect(throws: AuthFailure.invalidLoginCredentials, "\(email) / \(password) / \(given ?? "no code")") {
                _ = try await accounts.console.consoleSignIn(in: project, email: email, password: password, code: given)
            }
        }
        let (token, session) = try await accounts.console.consoleSignIn(in: project, email: "OPS@example.com",
                                                                        password: "correct horse", code: code)
        #expect(session.email == "ops@example.com" && !session.csrf.isEmpty)
        #expect(try await accounts.console.consoleSession(in: project, token: token)?.csrf == session.csrf)
        await #expect(throws: AuthFailure.invalidLoginCredentials, "a code read over a shoulder is already spent") {
            _ = try await accounts.console.consoleSignIn(in: project, email: "ops@example.com", password: "correct horse", code: code)
        }
        try await accounts.console.consoleSignOut(in: project, token: token)
        #expect(try await accounts.console.consoleSession(in: project, token: token) == nil)
    }

    @Test func aSessionEndsAfterEightHours() async throws {
        let accounts = makeService()
        let project = try await projectWithOperator()
        let (token, _) = try await accounts.console.consoleSignIn(in: project, email: "ops@example.com", password: "correct horse",
                                                                  code: TOTP.code(secret: secret, at: clock.now()))
        clock.advance(by: ConsoleOperators.consoleSessionLifetime - 1)
        #expect(try await accounts.console.consoleSession(in: project, token: token) != nil)
        clock.advance(by: 2)
        #expect(try await accounts.console.consoleSession(in: project, token: token) == nil)
    }
}
