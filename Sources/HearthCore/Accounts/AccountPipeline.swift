import Foundation

/// The way an account came to be: each path that creates one names itself to ``AccountContext/create(_:origin:in:)``.
public enum AccountOrigin: String, Sendable, CaseIterable {
    case password, anonymous, federated, gameCenter, phone, emailLink, customToken, admin, `import`
}

/// A rule that acts on every new account and every completed sign-in, whichever way it came: blocking functions,
/// password policy and events plug in here. Both calls may refuse by throwing an ``AuthFailure``.
///
/// ```swift
/// struct NoExampleDotCom: AccountHook {
///     func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, in project: ProjectContext) async throws {
///         if user.email?.hasSuffix("@example.com") == true { throw AuthFailure.adminOnlyOperation }
///     }
/// }
/// accounts.hooks.append(NoExampleDotCom())
/// ```
public protocol AccountHook: Sendable {
    /// Before a new account is stored; may change it.
    func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, in project: ProjectContext) async throws
    /// Before the first tokens of a sign-in are issued (a sign-up's included).
    func beforeSignIn(_ user: UserRecord, provider: String, isNewUser: Bool, in project: ProjectContext) async throws
}

extension AccountHook {
    public func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, in project: ProjectContext) async throws {}
    public func beforeSignIn(_ user: UserRecord, provider: String, isNewUser: Bool, in project: ProjectContext) async throws {}
}

/// How a sign-in reached ``AccountContext/completeSignIn(_:provider:in:now:_:)``.
enum SignInKind: Sendable {
    /// A new account, stored in the same unit as its first session.
    case created
    /// A first factor proved on an existing account: a second factor is asked for when enrolled; `stamp` (when the
    /// path has not recorded the sign-in itself) is written with the session.
    case firstFactor(stamp: SignInStamp?)
    /// A second factor proved (`mfaSignIn:finalize`).
    case secondFactor(kind: String?, id: String?)
    /// Fresh tokens after the signed-in user changed their account (a link, a new password, a factor enrolled):
    /// no new sign-in, so no challenge and no audit event.
    case reissued(secondFactor: String?, secondFactorID: String?)
}

extension UseCase {
    /// The one step every new account passes through, before it is stored: the hooks' `beforeCreate`.
    func create(_ user: UserRecord, origin: AccountOrigin, in project: ProjectContext) async throws -> UserRecord {
        var user = user
        for hook in hooks { try await hook.beforeCreate(&user, origin: origin, in: project) }
        return user
    }

    /// Emulator mode's refresh token in Firebase's emulator format (base64 JSON that its tests decode to read the
    /// tenant and user), with a random nonce so it is as unguessable as production's; only its digest is stored,
    /// as always, so what it says is never trusted.
    static func emulatorRefreshToken(localID: String, provider: String, projectID: String, tenantID: String?,
                                     secondFactor: String?) -> String {
        var record: [String: String] = ["_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": localID,
                                        "provider": provider, "projectId": projectID, "nonce": SecureRandom.token()]
        record["tenantId"] = tenantID
        record["secondFactor"] = secondFactor
        let json = (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])) ?? Data()
        return json.base64EncodedString()
    }

    /// The one step that issues a sign-in's first tokens: the second-factor challenge, the hooks' `beforeSignIn`,
    /// then one write transaction for the stamp (or the new account), the refresh token (the user's oldest beyond
    /// ``sessionsPerUser`` revoked) and the audit event.
    func completeSignIn(_ user: UserRecord, provider: String, in project: ProjectContext, now: Date,
                        _ kind: SignInKind, extraClaims: String? = nil, signInAttributes: String? = nil)
        async throws -> SignInOutcome {
        if case .firstFactor(let stamp) = kind, !user.enrollments.isEmpty {
            if let stamp { try await stampAlone(stamp, of: user, in: project) }
            return .secondFactorRequired(try await secondFactorRequired(
                for: user, provider: provider, extraClaims: extraClaims, in: project, now: now))
        }
        var isNew = false, stamp: SignInStamp?, secondFactor: String?, secondFactorID: String?
        var event: SecurityEvent.Kind? = .signIn
        switch kind {
        case .created: isNew = true; event = .signUp
        case .firstFactor(let given): stamp = given
        case .secondFactor(let kind, let id): (secondFactor, secondFactorID) = (kind, id)
        case .reissued(let kind, let id): (secondFactor, secondFactorID, event) = (kind, id, nil)
        }
        for hook in hooks { try await hook.beforeSignIn(user, provider: provider, isNewUser: isNew, in: project) }

        let now = try await tokenInstant(for: user, now: now)
        let session = SignInSession(signInProvider: provider, authTime: now, secondFactor: secondFactor,
                                    secondFactorID: secondFactorID, extraClaims: extraClaims,
                                    signInAttributes: signInAttributes)
        let idToken = try issuer.mint(for: user, session: session, projectID: project.id, keys: project.keys, now: now)
        let refreshToken = emulatorRules
            ? Self.emulatorRefreshToken(localID: user.localID, provider: provider, projectID: project.id,
                                        tenantID: user.tenantID, secondFactor: secondFactor)
            : SecureRandom.token()
        let record = RefreshTokenRecord(
            tokenDigest: storageDigest(refreshToken), projectID: project.id, tenantID: user.tenantID,
            localID: user.localID, signInProvider: provider, secondFactor: secondFactor,
            secondFactorID: secondFactorID, extraClaims: extraClaims, authTime: now, createdAt: now)
        let row = event.flatMap { kind -> AuditEvent? in
            var details = ["provider": provider]
            if let secondFactor, kind == .signIn { details["secondFactor"] = secondFactor }
            return audit?.row(for: SecurityEvent(kind: kind, projectID: project.id, localID: user.localID, details: details))
        }
        var signedIn = user
        do {
            let done = try await store.write { tx in
                if isNew { tx.insertUser(user, uniqueEmail: !project.settings.allowDuplicateEmails) }
                if var stamp {
                    stamp.refuseDisabled = true
                    tx.stampSignIn(stamp)
                }
                tx.insertRefreshToken(record, keepingLatest: sessionsPerUser)
                if let row { tx.insertAuditEvent(row) }
            }
            if let stamped = done.stamped { signedIn = stamped }
        } catch StoreError.emailExists {
            throw AuthFailure.emailExists
        } catch StoreError.identityLinked {
            throw AuthFailure.federatedUserIDAlreadyLinked
        } catch StoreError.stale {
            throw try await staleStamp(of: user, verifiedPassword: stamp?.verifiedPasswordHash != nil, in: project)
        }
        if let row { audit?.committed(row) }
        let result = SignInResult(user: signedIn, tokens: Tokens(idToken: idToken, refreshToken: refreshToken,
                                                                expiresIn: Int(issuer.lifetime)), isNewUser: isNew)
        return .signedIn(result)
    }

    /// A first factor's stamp when a second factor is still to come: written on its own, with the same checks.
    private func stampAlone(_ stamp: SignInStamp, of user: UserRecord, in project: ProjectContext) async throws {
        var stamp = stamp
        stamp.refuseDisabled = true
        guard try await store.stampSignIn(stamp) != nil else {
            throw try await staleStamp(of: user, verifiedPassword: stamp.verifiedPasswordHash != nil, in: project)
        }
    }

    /// Why a stamp found the account changed: disabled meanwhile, or its password changed while this sign-in
    /// hashed the old one (the sign-in fails as a wrong password would), or gone.
    private func staleStamp(of user: UserRecord, verifiedPassword: Bool, in project: ProjectContext) async throws -> AuthFailure {
        let now = try await store.user(projectID: user.projectID, tenantID: user.tenantID, localID: user.localID)
        if now?.disabled == true { return .userDisabled }
        // A password sign-in fails as a wrong password would, whatever happened: it tells nothing about the account.
        guard verifiedPassword else { return .userNotFound }
        return project.settings.enableImprovedEmailPrivacy ? .invalidLoginCredentials : .invalidPassword
    }
}
