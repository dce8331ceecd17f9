import Foundation

/// A signed-in user's session: looking it up, deleting the account, refreshing the ID token.
///
/// ```swift
/// let user = try await accounts.sessions.lookup(in: project, idToken: token)
/// ```
public struct Sessions: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore & ConfigStore & UnitOfWorkStore { context.store }
    public init(context: AccountContext) { self.context = context }

    /// `accounts:lookup` with an ID token: the signed-in user's record.
    public func lookup(in project: ProjectContext, idToken: String?) async throws -> UserRecord {
        try await authenticate(idToken, in: project).user
    }

    /// `accounts:delete` with an ID token; needs a recent interactive sign-in, and is the administrator's alone under
    /// `client.permissions.disabledUserDeletion`.
    public func deleteAccount(in project: ProjectContext, idToken: String?) async throws {
        let (user, claims) = try await authenticate(idToken, in: project)
        guard !project.settings.declared.bool(.disabledUserDeletion) else { throw AuthFailure.adminOnlyOperation }
        try requireRecentLogin(claims, for: .deleteAccount)
        if try await store.deleteUser(projectID: project.id, tenantID: user.tenantID, localID: user.localID) {
            await audit?.record(SecurityEvent(kind: .accountDeleted, projectID: project.id, localID: user.localID,
                                              details: ["by": "user"]))
        }
    }

    // MARK: Refresh

    /// `securetoken /v1/token` with `grant_type=refresh_token`: a new ID token carrying the original sign-in's
    /// provider, second factor and `auth_time`. The refresh token itself stays the same, as Firebase's does.
    public func refresh(in project: ProjectContext, refreshToken: String) async throws -> SignInResult {
        // The token and its user in one read.
        guard refreshToken.utf8.count <= 1024,
              let stored = try await store.session(projectID: project.id, digest: storageDigest(refreshToken))
        else { throw AuthFailure.invalidRefreshToken }
        let record = stored.token
        if let tenant = project.tenantID, record.tenantID != tenant { throw AuthFailure.tenantIDMismatch }
        // A disabled tenant's sessions end: its refresh tokens stop minting ID tokens.
        if let tenant = record.tenantID, try await store.tenant(projectID: project.id, id: tenant)?[.disableAuth] != false {
            throw AuthFailure.projectDisabled
        }
        guard var user = stored.user else { throw AuthFailure.userNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        // As for ID tokens, a revocation's whole second is refused (sessions started after it are dated later).
        guard record.createdAt.epochSeconds >= user.validSince,
              user.tokensValidAfter.map({ revoked in
                  emulatorRules ? record.createdAt >= revoked : record.createdAt.epochSeconds > revoked.epochSeconds
              }) ?? true
        else { throw AuthFailure.tokenExpired }
        let now = try await tokenInstant(for: user)
        // `lastRefreshAt` is written at most once a minute per user, in place: refreshes stay read-only on the hot
        // path and never write back anything else they read.
        if user.lastRefreshAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            let stamp = SignInStamp(projectID: project.id, tenantID: user.tenantID, localID: user.localID, at: now,
                                    signedIn: false)
            if let stamped = try? await store.stampSignIn(stamp) { user = stamped }
        }
        let session = SignInSession(signInProvider: record.signInProvider, authTime: record.authTime,
                                    secondFactor: record.secondFactor, secondFactorID: record.secondFactorID,
                                    extraClaims: record.extraClaims)
        let idToken = try issuer.mint(for: user, session: session, projectID: project.id, keys: project.keys, now: now)
        return SignInResult(user: user, tokens: Tokens(idToken: idToken, refreshToken: refreshToken,
                                                       expiresIn: Int(issuer.lifetime)), isNewUser: false)
    }
}
