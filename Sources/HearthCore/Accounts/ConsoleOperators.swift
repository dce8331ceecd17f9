import Foundation

/// The console's operators: sign-in with password and authenticator code, sessions, sign-out.
///
/// Console operators: sign-in with a password and, when the operator has one, a TOTP code; sessions kept as pending
/// records (the cookie's digest only) for eight hours.
///
/// ```swift
/// let (token, session) = try await accounts.console.consoleSignIn(in: project, email: "ops@example.com",
///                                                         password: "…", code: "123456")
/// // cookie: token; every change repeats session.csrf
/// ```
public struct ConsoleOperators: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    public static let consoleSessionLifetime: TimeInterval = 8 * 3600

    /// An unknown operator, a wrong password and a wrong or missing code all answer `INVALID_LOGIN_CREDENTIALS`,
    /// after the same scrypt work: the answer says nothing about which was wrong.
    public func consoleSignIn(in project: ProjectContext, email: String, password: String, code: String?) async throws
        -> (token: String, session: ConsoleSession)
    {
        let normalized = EmailAddress.normalized(email)
        let admin = project.record.consoleAdmins.first { EmailAddress.normalized($0.email) == normalized }
        let stored = admin?.passwordHash ?? project.dummyPasswordHash
        let passwordMatches = try await hashing.run { try PasswordHash.verify(password, against: stored) }
        let now = clock.now()
        var codeMatches = true
        var step: Int64?
        if let secret = admin?.totpSecret {
            step = Base32.decode(secret).flatMap { key in code.flatMap { TOTP.match($0, secret: key, at: now, window: 1) } }
            codeMatches = step != nil
        }
        guard let admin, passwordMatches, codeMatches else { throw AuthFailure.invalidLoginCredentials }
        // A code signs in once: one read over a shoulder, or from a screen recording, is already spent.
        if let step {
            let fresh = try await store.useAssertionOnce(
                digest: storageDigest("console-totp:\(project.id):\(EmailAddress.normalized(admin.email)):\(step)"),
                expiresAt: now + 3 * Double(TOTP.period), now: now)
            guard fresh else { throw AuthFailure.invalidLoginCredentials }
        }
        let token = SecureRandom.token(byteCount: 32)
        var session = ConsoleSession(email: admin.email, csrf: SecureRandom.token(byteCount: 24))
        session.operatorStamp = admin.sessionStamp
        try await store.insertPending(PendingRecord(
            digest: storageDigest("console:" + token), projectID: project.id, kind: .consoleSession,
            payload: try RecordCoding.encode(session), expiresAt: now + Self.consoleSessionLifetime), now: now)
        return (token, session)
    }

    /// The live session of a cookie, or nil. An operator removed since signing in has no session, and neither has one
    /// deleted and made again, or whose password or authenticator was reset: the session names the record it was for.
    public func consoleSession(in project: ProjectContext, token: String) async throws -> ConsoleSession? {
        guard token.utf8.count <= 256,
              let record = try await store.pending(projectID: project.id, digest: storageDigest("console:" + token),
                                                   now: clock.now()),
              record.kind == .consoleSession,
              let session = try? RecordCoding.decode(ConsoleSession.self, from: record.payload),
              let stamp = session.operatorStamp,
              project.record.consoleAdmins.contains(where: { $0.email == session.email && $0.sessionStamp == stamp })
        else { return nil }
        return session
    }

    public func consoleSignOut(in project: ProjectContext, token: String) async throws {
        _ = try await store.consumePending(projectID: project.id, digest: storageDigest("console:" + token))
    }
}
