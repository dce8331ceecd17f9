import Foundation

/// The way an account came to be: each path that creates one names itself to ``AccountContext/create(_:origin:in:)``.
public enum AccountOrigin: String, Sendable, CaseIterable {
    case password, anonymous, federated, gameCenter, phone, emailLink, customToken, admin, `import`

    /// Whether an end user made the account themselves: what `disabledUserSignup` refuses. A custom token's account
    /// is the administrator's doing (their server minted the token), as are created and imported ones.
    public var isEndUserSignUp: Bool { ![.customToken, .admin, .import].contains(self) }
}

/// A rule that acts on every new account and every completed sign-in, whichever way it came: blocking functions,
/// password policy and events plug in here. Both calls may refuse by throwing an ``AuthFailure``.
///
/// ```swift
/// struct NoExampleDotCom: AccountHook {
///     func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, event: AccountEvent,
///                       in project: ProjectContext) async throws {
///         if user.email?.hasSuffix("@example.com") == true { throw AuthFailure.adminOnlyOperation }
///     }
/// }
/// accounts.hooks.append(NoExampleDotCom())
/// ```
public protocol AccountHook: Sendable {
    /// Before a new account is stored; may change it.
    func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, event: AccountEvent, in project: ProjectContext)
        async throws
    /// Before the first tokens of a sign-in are issued (a sign-up's included, after its second factor if it has
    /// one); may change the account, which is stored with the sign-in, and return claims (a JSON object) for this
    /// session's ID tokens.
    func beforeSignIn(_ user: inout UserRecord, event: AccountEvent, in project: ProjectContext) async throws -> String?
    /// Before an action email or a verification SMS goes out (a test number's code sends none): may refuse it.
    func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws
}

extension AccountHook {
    public func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, event: AccountEvent,
                             in project: ProjectContext) async throws {}
    public func beforeSignIn(_ user: inout UserRecord, event: AccountEvent, in project: ProjectContext) async throws
        -> String? { nil }
    public func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws {}
}

/// An email or SMS about to be sent, as a hook sees it (Firebase's `beforeSendEmail` and `beforeSendSms` events).
public struct OutgoingMessage: Sendable, Equatable {
    public enum Channel: Sendable, Equatable {
        /// Firebase's `email_type`: `PASSWORD_RESET`, `EMAIL_SIGN_IN`, `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`,
        /// `RECOVER_EMAIL`.
        case email(type: String, address: String)
        /// Firebase's `sms_type`: `SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_ENROLLMENT`, `MULTI_FACTOR_SIGN_IN`.
        case sms(type: String, phoneNumber: String)
    }

    public var channel: Channel
    /// The account it is about, when there is one (an email-link sign-up has none yet): for the audit log only, as
    /// Identity Platform's token for these events carries no account.
    public var localID: String?
    /// The tenant the message is sent in.
    public var tenantID: String?

    public init(_ channel: Channel, localID: String?, tenantID: String?) {
        self.channel = channel
        self.localID = localID
        self.tenantID = tenantID
    }

    /// Firebase's event name for it.
    public var eventType: String {
        if case .email = channel { return "beforeSendEmail" }
        return "beforeSendSms"
    }
}

/// What a hook is told about the creation or sign-in it guards (the facts Firebase's blocking functions receive).
public struct AccountEvent: Sendable, Equatable {
    /// Firebase's `sign_in_method`: `password`, `emailLink`, `phone`, `anonymous`, `custom`, a provider id.
    public var signInMethod: String?
    public var isNewUser: Bool
    /// `phone` or `totp` when a second factor was just passed.
    public var secondFactor: String?
    /// The identity provider's profile (a JSON object) and a SAML sign-in's attribute statements.
    public var rawUserInfo: String?
    public var signInAttributes: String?
    /// The provider's own credentials, which a blocking function receives when the project forwards them.
    public var oauthIDToken: String?
    public var oauthAccessToken: String?
    public var oauthRefreshToken: String?
    public var oauthExpiresIn: Int?
    public var oauthTokenSecret: String?

    public init(signInMethod: String? = nil, isNewUser: Bool = false) {
        self.signInMethod = signInMethod
        self.isNewUser = isNewUser
    }

    /// A federated sign-in's facts.
    init(_ assertion: FederatedAssertion) {
        self.init(signInMethod: assertion.providerID)
        rawUserInfo = assertion.rawUserInfo
        signInAttributes = assertion.signInAttributes
        oauthIDToken = assertion.oauthIdToken
        oauthAccessToken = assertion.oauthAccessToken
        oauthRefreshToken = assertion.oauthRefreshToken
        oauthExpiresIn = assertion.oauthExpiresIn
        oauthTokenSecret = assertion.oauthTokenSecret
    }

    /// The sign-in method an account created by `origin` signs in with (`nil`: none, an administrator's).
    static func signInMethod(of origin: AccountOrigin) -> String? {
        switch origin {
        case .password: "password"
        case .anonymous: "anonymous"
        case .gameCenter: "gc.apple.com"
        case .phone: "phone"
        case .emailLink: "emailLink"
        case .customToken: "custom"
        case .federated, .admin, .import: nil
        }
    }
}

/// Who made the request being served: the server sets it for each request (core knows no HTTP), and hooks pass it
/// on (a blocking function's `ip_address`, `user_agent` and `locale`).
public struct CallerInfo: Sendable, Equatable {
    public var ipAddress: String?
    public var userAgent: String?
    public var locale: String?
    /// The address as budgets count it (an IPv6 client by its /64, an IPv4 one behind NAT64 by its IPv4 address):
    /// the server works it out, since parsing addresses is the network layer's.
    public var addressKey: String?

    public init(ipAddress: String? = nil, userAgent: String? = nil, locale: String? = nil, addressKey: String? = nil) {
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.locale = locale
        self.addressKey = addressKey
    }

    @TaskLocal public static var current = CallerInfo()
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
    /// The one step every new account passes through, before it is stored: `client.permissions.disabledUserSignup`,
    /// then the hooks' `beforeCreate`.
    func create(_ user: UserRecord, origin: AccountOrigin, in project: ProjectContext, event: AccountEvent? = nil)
        async throws -> UserRecord {
        if origin.isEndUserSignUp, project.settings.declared.bool(.disabledUserSignup) {
            throw AuthFailure.adminOnlyOperation
        }
        var user = user
        var event = event ?? AccountEvent(signInMethod: AccountEvent.signInMethod(of: origin))
        event.isNewUser = true
        for hook in hooks {
            try await auditingRefusal("beforeCreate", localID: user.localID, in: project) {
                try await hook.beforeCreate(&user, origin: origin, event: event, in: project)
            }
        }
        return user
    }

    /// The one step every action email and verification SMS passes before it is sent: the hooks' `beforeSend`.
    func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws {
        for hook in hooks {
            try await auditingRefusal(message.eventType, localID: message.localID, in: project) {
                try await hook.beforeSend(message, in: project)
            }
        }
    }

    /// Runs a hook's step; a blocking function's refusal or failure is also an audit event, then thrown on.
    func auditingRefusal(_ step: String, localID: String?, in project: ProjectContext,
                         _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch AuthFailure.blockingFunctionError(let reason) {
            await audit?.record(SecurityEvent(kind: .blockingFunctionRefused, projectID: project.id, localID: localID,
                                              details: ["event": step, "reason": String(reason.prefix(300))]))
            throw AuthFailure.blockingFunctionError(reason)
        }
    }

    /// The hooks' `beforeSignIn`: their changes to an existing account are stored before the sign-in goes on (a new
    /// account's are stored with it), their session claims merged over `claims`. An account a hook disabled (or one
    /// created disabled) is stored so, then refused, as Firebase does.
    func beforeSignIn(_ user: UserRecord, event: AccountEvent, isNew: Bool, in project: ProjectContext,
                      claims: inout String?) async throws -> UserRecord {
        var changed = user
        if !user.disabled {
            for hook in hooks {
                var session: String?
                try await auditingRefusal("beforeSignIn", localID: user.localID, in: project) {
                    session = try await hook.beforeSignIn(&changed, event: event, in: project)
                }
                if let session { claims = ClaimsJSON.merge(session, over: claims) }
            }
        }
        if changed.disabled {
            if isNew { try await insert(changed, project: project) } else if changed != user { try await save(changed, project: project) }
            throw AuthFailure.userDisabled
        }
        if !isNew, changed != user { changed = try await save(changed, project: project) }
        return changed
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
                        _ kind: SignInKind, extraClaims: String? = nil, event given: AccountEvent? = nil)
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
        var user = user
        var extraClaims = extraClaims
        if event != nil {  // a sign-in, not tokens reissued after a change
            var facts = given ?? AccountEvent(signInMethod: provider)
            facts.isNewUser = isNew
            facts.secondFactor = secondFactor
            user = try await beforeSignIn(user, event: facts, isNew: isNew, in: project, claims: &extraClaims)
        }

        let now = try await tokenInstant(for: user, now: now)
        let session = SignInSession(signInProvider: provider, authTime: now, secondFactor: secondFactor,
                                    secondFactorID: secondFactorID, extraClaims: extraClaims,
                                    signInAttributes: given?.signInAttributes)
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
        // The request's rate-limit slots that success gives back go in this unit (see HeldSlots).
        let held = RateLimiter.heldUntilSuccess
        let released = held?.claim()
        do {
            let done: UnitOfWork.Outcome
            do {
                done = try await store.write { tx in
                    if isNew { tx.insertUser(user, uniqueEmail: !project.settings[.allowDuplicateEmails]) }
                    if var stamp {
                        stamp.refuseDisabled = true
                        tx.stampSignIn(stamp)
                    }
                    tx.insertRefreshToken(record, keepingLatest: sessionsPerUser)
                    if let row { tx.insertAuditEvent(row) }
                    if let released { RateLimiter.release(released, in: &tx) }
                }
            } catch {
                if released != nil { held?.unclaim() }
                throw error
            }
            if let stamped = done.stamped { signedIn = stamped }
        } catch StoreError.emailExists {
            throw AuthFailure.emailExists
        } catch StoreError.identityLinked {
            throw AuthFailure.federatedUserIDAlreadyLinked
        } catch StoreError.stale {
            throw try await staleStamp(of: user, stamp: stamp, in: project)
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
            throw try await staleStamp(of: user, stamp: stamp, in: project)
        }
    }

    /// Why a stamp found the account changed: disabled meanwhile, or its password changed while this sign-in
    /// hashed the old one (the sign-in fails as a wrong password would), or gone.
    private func staleStamp(of user: UserRecord, stamp: SignInStamp?, in project: ProjectContext) async throws -> AuthFailure {
        let now = try await store.user(projectID: user.projectID, tenantID: user.tenantID, localID: user.localID)
        if now?.disabled == true { return .userDisabled }
        if let counter = stamp?.passkeyCounter, let now {
            // Another assertion with this counter value (or a later one) signed in first, or the passkey is gone.
            guard let passkey = now.passkeys?.first(where: { $0.credentialID == counter.credentialID }) else {
                return .passkeyCredentialNotFound
            }
            return .invalidAuthenticatorResponse(
                WebAuthnError.counterWentBackwards(stored: passkey.signCount ?? 0, given: counter.count).description)
        }
        // A password sign-in fails as a wrong password would, whatever happened: it tells nothing about the account.
        guard stamp?.verifiedPasswordHash != nil else { return .userNotFound }
        return project.settings[.enableImprovedEmailPrivacy] ? .invalidLoginCredentials : .invalidPassword
    }
}
