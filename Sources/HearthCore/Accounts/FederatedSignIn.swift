import Crypto
import Foundation

/// What an identity provider asserted about a user, once its credential was verified (an OIDC ID token's claims,
/// a Graph/GitHub profile, …). Field names follow `signInWithIdp`'s response.
public struct FederatedAssertion: Sendable, Codable, Equatable {
    public var providerID: String
    /// The provider's stable user id (`sub`, Facebook's or GitHub's numeric id).
    public var rawID: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: String?
    public var screenName: String?
    public var firstName: String?
    public var lastName: String?
    /// The provider's profile, as a JSON object string (`rawUserInfo`).
    public var rawUserInfo: String
    /// A SAML provider's attribute statements (a JSON object): the sign-in's ID token carries them as
    /// `firebase.sign_in_attributes`.
    public var signInAttributes: String?
    public var oauthAccessToken: String?
    public var oauthIdToken: String?
    public var oauthTokenSecret: String?
    public var oauthRefreshToken: String?
    public var oauthExpiresIn: Int?

    public init(providerID: String, rawID: String, email: String? = nil, emailVerified: Bool = false,
                displayName: String? = nil, photoURL: String? = nil, rawUserInfo: String = "{}") {
        self.providerID = providerID
        self.rawID = rawID
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.rawUserInfo = rawUserInfo
    }

    /// `federatedId` as Firebase reports it (Google's is a URL).
    public var federatedID: String {
        providerID == "google.com" ? "https://accounts.google.com/" + rawID : rawID
    }

    /// The `providerUserInfo` entry it becomes.
    var providerInfo: ProviderUserInfo {
        ProviderUserInfo(providerID: providerID, rawID: rawID, federatedID: rawID, email: email,
                         displayName: displayName, photoURL: photoURL, screenName: screenName)
    }
}

/// How a `signInWithIdp` ended.
public enum FederatedOutcome: Sendable {
    /// Signed in (or linked): tokens.
    case signedIn(AccountContext.SignInResult)
    /// The IdP's email is not verified and an account already has it: the app must sign in to that account first
    /// and link (`needConfirmation`, the client's `accountExistsWithDifferentCredential`).
    case needConfirmation(existing: UserRecord)
    /// A 200 with `errorMessage` (when the client asked for the credential back): `FEDERATED_USER_ID_ALREADY_LINKED`
    /// or `EMAIL_EXISTS`; the app can sign in with the credential and merge.
    case credentialInUse(code: String)
    /// An existing user with enrolled second factors: a pending credential instead of tokens.
    case secondFactorRequired(SecondFactorRequired)

    init(_ outcome: AccountContext.SignInOutcome) {
        switch outcome {
        case .signedIn(let result): self = .signedIn(result)
        case .secondFactorRequired(let required): self = .secondFactorRequired(required)
        }
    }
}

/// Identity providers: sign-in and linking with a provider's credential, the redirect flow, unlinking.
public struct FederatedSignIn: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// Keeps a verified assertion for a later `signInWithIdp` with `pendingToken` (after `needConfirmation` or a
    /// conflict the app resolves), since the IdP's own credential is single use. 10 minutes, single use.
    public func pendingToken(for assertion: FederatedAssertion, in project: ProjectContext) async throws -> String {
        let now = clock.now()
        let token = SecureRandom.token()
        try await store.insertPending(PendingRecord(
            digest: pendingKey(token, in: project), projectID: project.id, kind: .idpCredential,
            payload: try RecordCoding.encode(assertion), expiresAt: now + Self.pendingLifetime), now: now)
        return token
    }

    /// The assertion behind a `pendingToken`, used up.
    public func redeemPendingToken(_ token: String, in project: ProjectContext) async throws -> FederatedAssertion {
        guard token.utf8.count <= 256,
              let record = try await store.consumePending(projectID: project.id, digest: pendingKey(token, in: project)),
              record.kind == .idpCredential, record.expiresAt > clock.now(),
              let assertion = try? RecordCoding.decode(FederatedAssertion.self, from: record.payload)
        else { throw AuthFailure.invalidIDPResponse("INVALID_PENDING_TOKEN") }
        return assertion
    }
}

extension FederatedSignIn {
    /// `accounts:signInWithIdp` once the IdP's credential is verified, with Firebase's account rules:
    ///
    /// - the identity is linked to a user → that user (linking it to someone else: FEDERATED_USER_ID_ALREADY_LINKED);
    /// - with `idToken` → linked to the signed-in user (an anonymous one keeps its `localId`); an email owned by
    ///   another account under one-account-per-email → EMAIL_EXISTS;
    /// - an account has the IdP's email → verified by the IdP: sign in to it and link (an account whose own email
    ///   was unverified is taken over: its password and other identities are dropped, as Firebase does); unverified:
    ///   `needConfirmation`;
    /// - otherwise a new user.
    ///
    /// With `returnIdpCredential`, the two conflicts come back as ``FederatedOutcome/credentialInUse(code:)``.
    public func signInWithIdp(in project: ProjectContext, _ assertion: FederatedAssertion, idToken: String?,
                              returnIdpCredential: Bool) async throws -> FederatedOutcome {
        let now = clock.now()
        let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, providerID: assertion.providerID,
                                         rawID: assertion.rawID)
        func conflict(_ failure: AuthFailure, _ code: String) throws -> FederatedOutcome {
            if returnIdpCredential { return .credentialInUse(code: code) }
            throw failure
        }

        if let idToken, !idToken.isEmpty {
            let (current, claims) = try await authenticate(idToken, in: project)
            try requireRecentLogin(claims, for: .linkCredential)
            // Linked already, to this user or another: Firebase refuses both.
            if owner != nil { return try conflict(.federatedUserIDAlreadyLinked, "FEDERATED_USER_ID_ALREADY_LINKED") }
            if let email = assertion.email, !project.settings[.allowDuplicateEmails],
               let other = try await store.user(projectID: project.id, tenantID: project.tenantID, email: email),
               other.localID != current.localID {
                return try conflict(.emailExists, "EMAIL_EXISTS")
            }
            let user: UserRecord
            do {
                user = try await modifyUser(current, in: project, session: claims) { [emulatorRules] user in
                    link(assertion, to: &user)
                    if user.email == nil, let email = assertion.email, !project.settings[.allowDuplicateEmails] {
                        user.email = email
                        user.emailVerified = assertion.emailVerified
                    } else if assertion.emailVerified, assertion.isTrustedForEmail || emulatorRules,
                              let email = assertion.email, user.email.map(EmailAddress.normalized) == EmailAddress.normalized(email) {
                        // The user's own address, verified by a provider authoritative for it.
                        user.emailVerified = true
                    }
                }
            } catch AuthFailure.federatedUserIDAlreadyLinked {  // linked elsewhere a moment ago
                return try conflict(.federatedUserIDAlreadyLinked, "FEDERATED_USER_ID_ALREADY_LINKED")
            }
            // The new session is the provider just linked, as Firebase sets `firebase.sign_in_provider` after a link.
            return .signedIn(try await completeSignIn(user, provider: assertion.providerID, in: project, now: now,
                                                      .reissued(secondFactor: nil, secondFactorID: nil)).signedIn())
        }

        if let owner {
            guard !owner.disabled else { throw AuthFailure.userDisabled }
            let user = try await modifyUser(owner, in: project) { user in
                guard !user.disabled else { throw AuthFailure.userDisabled }
                link(assertion, to: &user)
                user.lastLoginAt = now
                user.lastRefreshAt = now
            }
            return FederatedOutcome(try await completeSignIn(user, provider: assertion.providerID, in: project, now: now,
                                                             .firstFactor(stamp: nil), event: AccountEvent(assertion)))
        }

        if let email = assertion.email, !project.settings[.allowDuplicateEmails],
           let existing = try await store.user(projectID: project.id, tenantID: project.tenantID, email: email) {
            // Only a provider that is authoritative for the address may sign in to an account it did not create;
            // any other must be linked by the owner (`needConfirmation`), or an IdP an attacker controls could
            // claim anyone's email.
            guard assertion.emailVerified, assertion.isTrustedForEmail || emulatorRules else { return .needConfirmation(existing: existing) }
            guard !existing.disabled else { throw AuthFailure.userDisabled }
            // A take-over also drops the stored refresh tokens: the revocation instant alone would let one from
            // that very instant through under the emulator's rules.
            let user = try await modifyUser(existing, in: project, revokeRefreshTokens: !existing.emailVerified) { user in
                guard !user.disabled else { throw AuthFailure.userDisabled }
                _ = user.endPreProofAccess(now: now)
                // The profile becomes the IdP's, what it lacks cleared, as Firebase does.
                user.displayName = assertion.displayName
                user.photoURL = assertion.photoURL
                user.screenName = assertion.screenName
                user.emailVerified = true
                link(assertion, to: &user)
                user.lastLoginAt = now
                user.lastRefreshAt = now
            }
            return FederatedOutcome(try await completeSignIn(user, provider: assertion.providerID, in: project, now: now,
                                                             .firstFactor(stamp: nil), event: AccountEvent(assertion)))
        }

        // Several accounts per email: the address stays on the identity only, as Firebase does.
        let email = project.settings[.allowDuplicateEmails] ? nil : assertion.email
        var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(), email: email,
                              emailVerified: email != nil && assertion.emailVerified,
                              displayName: assertion.displayName, photoURL: assertion.photoURL,
                              validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
        user.screenName = assertion.screenName
        link(assertion, to: &user)
        user = try await create(user, origin: assertion.providerID == "gc.apple.com" ? .gameCenter : .federated, in: project,
                                 event: AccountEvent(assertion))
        do {
            return .signedIn(try await completeSignIn(user, provider: assertion.providerID, in: project, now: now,
                                                      .created, event: AccountEvent(assertion)).signedIn())
        } catch AuthFailure.federatedUserIDAlreadyLinked {
            // A simultaneous first sign-in created the account a moment ago: sign in to it.
            return try await signInWithIdp(in: project, assertion, idToken: nil, returnIdpCredential: returnIdpCredential)
        }
    }

    /// Adds (or refreshes) the identity on the user; profile fields the user lacks are filled from it.
    func link(_ assertion: FederatedAssertion, to user: inout UserRecord) {
        user.providers.removeAll { $0.providerID == assertion.providerID }
        user.providers.append(assertion.providerInfo)
        if user.displayName == nil { user.displayName = assertion.displayName }
        if user.photoURL == nil { user.photoURL = assertion.photoURL }
    }

    /// Client `accounts:update` with `deleteProvider`: unlinks identities (`phone` clears the number, `password`
    /// the password). The last way to sign in cannot be removed only if nothing else is left — Firebase allows
    /// unlinking everything; so does Hearth.
    public func unlink(in project: ProjectContext, idToken: String?, providers: [String]) async throws -> UserRecord {
        let (user, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .unlinkProvider)
        return try await modifyUser(user, in: project, session: claims) { user in
            for provider in providers {
                switch provider {
                case "phone": user.phoneNumber = nil
                case "password": user.passwordHash = nil
                default: user.providers.removeAll { $0.providerID == provider }
                }
            }
        }
    }
}

extension UserRecord {
    /// The address's owner just proved it (an email link, a reset code, a trusted provider's verified email) on
    /// an account whose email was unverified: whoever registered it first may not be the owner, so what they set
    /// before the proof — password, email link, other identities, second factors, sessions (revoked from this
    /// instant) — stops working.
    /// Returns whether anything was taken away; a verified account is left alone.
    mutating func endPreProofAccess(now: Date) -> Bool {
        guard !emailVerified, email != nil else { return false }
        passwordHash = nil
        passwordUpdatedAt = nil
        emailLinkSignin = nil
        providers = []
        mfaEnrollments = nil
        validSince = now.epochSeconds
        tokensValidAfter = now
        return true
    }
}

extension FederatedAssertion {
    /// Whether this provider is authoritative for the email it asserts, as Firebase's trusted providers are:
    /// Google for Gmail addresses, Apple, Microsoft for its consumer addresses, Yahoo for Yahoo's. Any other
    /// provider (Facebook, GitHub, Twitter, generic OIDC and SAML) may vouch for an address it does not host.
    public var isTrustedForEmail: Bool {
        guard let email, let at = email.lastIndex(of: "@") else { return false }
        let domain = email[email.index(after: at)...].lowercased()
        switch providerID {
        case "google.com": return ["gmail.com", "googlemail.com"].contains(domain)
        case "apple.com": return true
        case "microsoft.com": return ["outlook.com", "hotmail.com", "live.com", "msn.com"].contains(domain)
        case "yahoo.com": return domain.hasPrefix("yahoo.") || domain == "ymail.com"
        default: return false
        }
    }
}

extension FederatedSignIn {
    /// `accounts:revokeToken`: the signed-in user revokes what Apple issued to the app for them (Apple requires it
    /// when an account is deleted). Only apple.com, as in Firebase, and only for a user linked to it.
    public func revokeProviderToken(in project: ProjectContext, idToken: String?, providerID: String?,
                                    tokenType: String?, token: String?, redirectURI: String?,
                                    provider: (any FederatedRedirectProvider)?) async throws {
        let (user, _) = try await authenticate(idToken, in: project)
        guard let providerID, !providerID.isEmpty else { throw AuthFailure.invalidProviderID }
        guard providerID == "apple.com" else {
            throw AuthFailure.invalidArgument("only apple.com tokens can be revoked")
        }
        guard let kind = ProviderTokenKind(wire: tokenType) else {
            throw AuthFailure.invalidArgument("tokenType must be CODE, REFRESH_TOKEN or ACCESS_TOKEN")
        }
        guard let token, !token.isEmpty, token.utf8.count <= 4096 else {
            throw AuthFailure.invalidArgument("token is missing")
        }
        guard user.providers.contains(where: { $0.providerID == providerID }) else {
            throw AuthFailure.invalidArgument("the user has not signed in with \(providerID)")
        }
        guard let provider else { throw AuthFailure.providerNotEnabled(providerID) }
        try await provider.revoke(token, kind: kind, providerID: providerID, redirectURI: redirectURI, project: project)
    }
}

extension FederatedSignIn {
    /// Starts a redirect flow: a single-use session (10 minutes) behind the returned `sessionId`.
    public func startRedirect(_ redirect: FederatedRedirect, in project: ProjectContext) async throws -> String {
        let sessionID = SecureRandom.token(byteCount: 24)
        try await startRedirect(redirect, sessionDigest: storageDigest(sessionID), in: project)
        return sessionID
    }

    /// The same for a session the client made up and sent hashed (`/__/auth/handler?sessionId=<SHA-256 hex>`, as
    /// the Firebase SDKs do): the raw id comes back with `signInWithIdp`.
    public func startRedirect(_ redirect: FederatedRedirect, sessionDigest: String, in project: ProjectContext) async throws {
        let now = clock.now()
        guard sessionDigest.utf8.count == 64, sessionDigest.allSatisfy(\.isHexDigit) else {
            throw AuthFailure.invalidIDPResponse("sessionId must be the SHA-256 (hex) of the client's session id")
        }
        do {
            try await store.insertPending(PendingRecord(
                digest: Self.pendingKey(digest: sessionDigest.lowercased(), tenantID: project.tenantID), projectID: project.id,
                kind: .idpRedirect,
                payload: try RecordCoding.encode(redirect), expiresAt: now + Self.pendingLifetime), now: now)
        } catch StoreError.pendingExists {
            // First start wins: someone who saw the digest in the browser's address cannot put their own flow
            // (and account) behind the app's session id.
            throw AuthFailure.invalidIDPResponse("this sessionId has already started a sign-in; start again with a new one")
        }
    }

    /// Remembers, by the flow's `state`, where the hosted handler sends the browser once the provider is done.
    public func rememberReturn(_ target: String, state: String, in project: ProjectContext) async throws {
        let now = clock.now()
        try await store.insertPending(PendingRecord(
            digest: storageDigest("return:" + state), projectID: project.id, kind: .idpReturn, payload: target,
            expiresAt: now + Self.pendingLifetime), now: now)
    }

    /// Where to send the browser back for `state` (used up), or `nil`.
    public func takeReturn(state: String, in project: ProjectContext) async throws -> String? {
        guard state.utf8.count <= 256,
              let record = try await store.consumePending(projectID: project.id, digest: storageDigest("return:" + state)),
              record.kind == .idpReturn, record.expiresAt > clock.now()
        else { return nil }
        return record.payload
    }

    /// Ends a redirect flow: the session is used up; the `state` in `requestURI` must be the session's.
    public func finishRedirect(sessionID: String, requestURI: String, in project: ProjectContext) async throws
        -> (redirect: FederatedRedirect, code: String)
    {
        guard sessionID.utf8.count <= 256,
              let record = try await store.consumePending(projectID: project.id, digest: pendingKey(sessionID, in: project)),
              record.kind == .idpRedirect,
              let redirect = try? RecordCoding.decode(FederatedRedirect.self, from: record.payload)
        else { throw AuthFailure.invalidIDPResponse("the sessionId is unknown or was already used") }
        guard record.expiresAt > clock.now() else { throw AuthFailure.sessionExpired }
        let items = URLComponents(string: requestURI)?.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = item("error") { throw AuthFailure.invalidIDPResponse("the provider refused: \(error)") }
        guard let state = item("state"), constantTimeEquals(Array(state.utf8), Array(redirect.state.utf8)) else {
            throw AuthFailure.invalidIDPResponse("the state does not match the session")
        }
        if let requestToken = redirect.oauth1Token {  // OAuth 1.0a: the verifier stands for the code
            guard item("oauth_token") == requestToken, let verifier = item("oauth_verifier"), !verifier.isEmpty else {
                throw AuthFailure.invalidIDPResponse("requestUri has no oauth_verifier for this session's request token")
            }
            return (redirect, verifier)
        }
        guard let code = item("code"), !code.isEmpty else { throw AuthFailure.invalidIDPResponse("requestUri has no code") }
        return (redirect, code)
    }
}
