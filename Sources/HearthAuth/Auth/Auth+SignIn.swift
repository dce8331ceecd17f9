import Foundation
import HearthWire

/// Completion types of the sign-in methods (FirebaseAuth calls them on the main thread; so does Hearth).
public typealias AuthDataResultCallback = @MainActor @Sendable (AuthDataResult?, (any Error)?) -> Void

extension Auth {
    // MARK: email and password

    /// Signs in with an email and password.
    ///
    /// ```swift
    /// let result = try await Auth.auth().signIn(withEmail: "ada@example.com", password: "s3cret!")
    /// ```
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, password: password))
    }

    public func signIn(withEmail email: String, password: String, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signIn(withEmail: email, password: password) }
    }

    /// Creates an email/password account and signs it in.
    ///
    /// ```swift
    /// let result = try await Auth.auth().createUser(withEmail: "ada@example.com", password: "s3cret!")
    /// ```
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        var request = SignUpRequest(email: email, password: password)
        request.tenantId = tenantID
        let reply = try await core.call(Endpoints.signUp, request)
        return try await finishSignIn(reply.signIn, additional: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: true))
    }

    public func createUser(withEmail email: String, password: String, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.createUser(withEmail: email, password: password) }
    }

    /// Signs in a new anonymous user — or returns the current user if it is already anonymous.
    ///
    /// ```swift
    /// let guest = try await Auth.auth().signInAnonymously().user
    /// ```
    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = core.user, user.isAnonymous {
            return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: nil, isNewUser: false))
        }
        var request = SignUpRequest()
        request.tenantId = tenantID
        let reply = try await core.call(Endpoints.signUp, request)
        return try await finishSignIn(reply.signIn, additional: AdditionalUserInfo(providerID: nil, isNewUser: true))
    }

    public func signInAnonymously(completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signInAnonymously() }
    }

    /// Signs in with a custom token minted by your server (HearthAdmin's `createCustomToken`, firebase-admin's
    /// `create_custom_token`).
    ///
    /// ```swift
    /// let result = try await Auth.auth().signIn(withCustomToken: tokenFromMyServer)
    /// ```
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        var request = SignInWithCustomTokenRequest(token: token)
        request.tenantId = tenantID
        let reply = try await core.call(Endpoints.signInWithCustomToken, request)
        return try await finishSignIn(reply.signIn, additional: AdditionalUserInfo(providerID: nil, isNewUser: reply.isNewUser))
    }

    public func signIn(withCustomToken token: String, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signIn(withCustomToken: token) }
    }

    // MARK: any credential

    /// Signs in with a credential from any provider.
    ///
    /// ```swift
    /// let credential = GoogleAuthProvider.credential(withIDToken: idToken, accessToken: accessToken)
    /// let result = try await Auth.auth().signIn(with: credential)
    /// ```
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        try await exchange(credential, idToken: nil)
    }

    public func signIn(with credential: AuthCredential, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signIn(with: credential) }
    }

    /// The form older guides use, with the optional credential `getCredentialWith` hands over.
    public func signIn(with credential: AuthCredential?, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signIn(with: try AuthCredential.given(credential)) }
    }

    /// Presents `credential` to the server — as a sign-in, or for the user of `idToken` (link) — and finishes
    /// with whatever comes back. `finish` decides what the tokens become (a new current user by default).
    func exchange(_ credential: AuthCredential, idToken: String?,
                  finish: (@Sendable (SignInReply, AdditionalUserInfo?, OAuthCredential?) async throws -> AuthDataResult)? = nil)
        async throws -> AuthDataResult {
        let complete = finish ?? { reply, additional, oauth in
            try await self.becomeCurrent(reply, additional: additional, credential: oauth)
        }
        // A sign-in, link or reauthentication of a multi-factor user is challenged; the resolver completes it.
        let finish: @Sendable (SignInReply, AdditionalUserInfo?, OAuthCredential?) async throws -> AuthDataResult = {
            reply, additional, oauth in
            try await self.answer(reply) { try await complete($0, additional, oauth) }
        }
        switch credential {
        case let email as EmailAuthCredential:
            if let link = email.link {
                guard let code = ActionCodeURL.oobCode(in: link) else {
                    throw AuthErrorFactory.make(.invalidActionCode, detail: "The link has no oobCode.")
                }
                var request = SignInWithEmailLinkRequest(email: email.email, oobCode: code)
                request.idToken = idToken
                request.tenantId = tenantID
                let reply = try await core.call(Endpoints.signInWithEmailLink, request)
                return try await finish(reply.signIn, AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: reply.isNewUser), nil)
            }
            if let idToken {
                // Linking a password: the account gains email and password in place.
                let request = UpdateAccountRequest(idToken: idToken, email: email.email, password: email.password)
                let reply = try await core.call(Endpoints.update, request)
                return try await finish(reply.signIn, AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: false), nil)
            }
            var request = SignInWithPasswordRequest(email: email.email, password: email.password)
            request.tenantId = tenantID
            let reply = try await core.call(Endpoints.signInWithPassword, request)
            return try await finish(reply.signIn, AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: false), nil)
        case let oauth as OAuthCredential:
            var request = SignInWithIdpRequest(requestUri: oauth.requestURI ?? "http://localhost", postBody: nil,
                                               idToken: idToken, returnIdpCredential: true)
            request.returnSecureToken = true
            if let pending = oauth.pendingToken {
                // Already verified by the server; the provider's own token may not be presented twice.
                request.pendingToken = pending
                request.postBody = "providerId=" + FormEncoding.escape(oauth.provider)
            } else {
                request.postBody = oauth.requestURI == nil ? oauth.postBody : nil
                request.sessionId = oauth.sessionID
            }
            request.tenantId = tenantID
            let reply = try await core.call(Endpoints.signInWithIdp, request)
            func value(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
            let returned = OAuthCredential(providerID: value(reply.providerId) ?? oauth.provider,
                                           idToken: value(reply.oauthIdToken), accessToken: value(reply.oauthAccessToken),
                                           secret: value(reply.oauthTokenSecret), pendingToken: value(reply.pendingToken))
            if let pending = value(reply.pendingToken) { oauth.pendingToken = pending }
            var extra: [String: Any] = [AuthErrors.userInfoUpdatedCredentialKey: returned]
            if let email = value(reply.email) { extra[AuthErrors.userInfoEmailKey] = email }
            if let message = value(reply.errorMessage) {
                throw ServerErrorTable.error(message: message, extra: extra)
            }
            if reply.needConfirmation == true {
                throw AuthErrorFactory.make(.accountExistsWithDifferentCredential, extra: extra)
            }
            let profile = value(reply.rawUserInfo).flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let additional = AdditionalUserInfo(providerID: returned.provider, profile: profile,
                                                username: value(reply.screenName), isNewUser: reply.isNewUser ?? false)
            return try await finish(reply.signIn, additional, returned)
        case let phone as PhoneAuthCredential:
            let request = SignInWithPhoneNumberRequest(
                sessionInfo: phone.verificationID, code: phone.verificationCode, temporaryProof: phone.temporaryProof,
                phoneNumber: phone.phoneNumber, idToken: idToken, tenantId: tenantID)
            let reply = try await core.call(Endpoints.signInWithPhoneNumber, request)
            if let proof = reply.temporaryProof, !proof.isEmpty, let number = reply.phoneNumber, !number.isEmpty {
                let updated = PhoneAuthCredential(temporaryProof: proof, phoneNumber: number)
                throw AuthErrorFactory.make(.credentialAlreadyInUse, detail: "This phone number is already linked to another account.",
                                            extra: [AuthErrors.userInfoUpdatedCredentialKey: updated])
            }
            return try await finish(reply.signIn, AdditionalUserInfo(providerID: PhoneAuthProvider.id,
                                                                     isNewUser: reply.isNewUser ?? false), nil)
        case let player as GameCenterAuthCredential:
            var request = SignInWithGameCenterRequest(
                playerId: player.playerID, teamPlayerId: player.teamPlayerID, gamePlayerId: player.gamePlayerID,
                displayName: player.displayName, publicKeyUrl: player.publicKeyURL.absoluteString,
                signature: player.signature.base64EncodedString(), salt: player.salt.base64EncodedString(),
                timestamp: Int64(player.timestamp), idToken: idToken)
            request.tenantId = tenantID
            let reply = try await core.call(Endpoints.signInWithGameCenter, request)
            return try await finish(reply.signIn, AdditionalUserInfo(providerID: GameCenterAuthProvider.id,
                                                                     isNewUser: reply.isNewUser), nil)
        default:
            throw AuthErrorFactory.make(.invalidCredential, detail: "Unsupported credential \(credential.provider).")
        }
    }

    /// Tokens in `reply` become the current user; a second-factor challenge becomes
    /// ``AuthErrorCode/secondFactorRequired`` with a ``MultiFactorResolver``.
    func finishSignIn(_ reply: SignInReply, additional: AdditionalUserInfo?, credential: OAuthCredential? = nil) async throws
        -> AuthDataResult {
        try await answer(reply) { try await self.becomeCurrent($0, additional: additional, credential: credential) }
    }

    /// `complete(reply)` — unless `reply` is a second-factor challenge, which is thrown with a resolver that calls
    /// `complete` with the answer of the second factor.
    func answer(_ reply: SignInReply, complete: @escaping @Sendable (SignInReply) async throws -> AuthDataResult) async throws
        -> AuthDataResult {
        if let pending = reply.mfaPendingCredential {
            let hints = reply.mfaInfo.map(MultiFactorInfo.make)
            let resolver = MultiFactorResolver(auth: self, session: MultiFactorSession(pendingCredential: pending),
                                               hints: hints, finish: complete)
            throw AuthErrorFactory.make(.secondFactorRequired, extra: [AuthErrors.userInfoMultiFactorResolverKey: resolver])
        }
        return try await complete(reply)
    }

    /// The tokens of `reply` as the new current user.
    func becomeCurrent(_ reply: SignInReply, additional: AdditionalUserInfo?, credential: OAuthCredential?) async throws
        -> AuthDataResult {
        let user = try await user(from: reply)
        core.setCurrentUser(user, auth: self)
        return AuthDataResult(user: user, additionalUserInfo: additional, credential: credential)
    }

    /// A user object for fresh tokens: the account as `accounts:lookup` sees it.
    func user(from reply: SignInReply) async throws -> User {
        guard let idToken = reply.idToken, let refreshToken = reply.refreshToken else {
            throw AuthErrorFactory.make(.internalError, detail: "The server's sign-in answer had no tokens.")
        }
        let snapshot = try await UserSnapshot.fetch(core: core, idToken: idToken, refreshToken: refreshToken,
                                                    expiresIn: reply.expiresIn, previous: nil)
        return User(core: core, snapshot: snapshot)
    }
}

extension Auth {
    /// Revokes what Apple issued for the signed-in user, before deleting their account (Apple requires it): the
    /// server exchanges the authorization code Sign in with Apple just gave the app, then revokes its token. As in
    /// FirebaseAuth, nothing happens when nobody is signed in.
    ///
    /// ```swift
    /// let code = String(decoding: appleIDCredential.authorizationCode!, as: UTF8.self)
    /// try await Auth.auth().revokeToken(withAuthorizationCode: code)
    /// try await Auth.auth().currentUser?.delete()
    /// ```
    public func revokeToken(withAuthorizationCode authorizationCode: String) async throws {
        guard let user = currentUser else { return }
        let request = RevokeTokenRequest(idToken: try await user.getIDToken(), providerId: "apple.com",
                                         tokenType: "CODE", token: authorizationCode, tenantId: tenantID)
        _ = try await core.call(Endpoints.revokeToken, request)
    }

    public func revokeToken(withAuthorizationCode authorizationCode: String,
                            completion: (@MainActor @Sendable ((any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.revokeToken(withAuthorizationCode: authorizationCode) }
    }
}
