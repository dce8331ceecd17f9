import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `accounts:signInWithIdp` (v3 `verifyAssertion`), `accounts:signInWithGameCenter`, `createAuthUri` with a
/// provider, and `v2/accounts:revokeToken`.
enum FederatedRoutes {
    /// Game Center: the player's signature is checked by the federation verifier (`gc.apple.com`, whose `clientId`
    /// is the app's bundle id), then the account rules of `signInWithIdp` apply; `idToken` links instead.
    static func signInWithGameCenter(_ call: Call, _ request: SignInWithGameCenterRequest) async throws -> any ResponseGenerator {
        let project = try call.clientProject
        guard let verifier = call.services.federation else { throw AuthFailure.providerNotEnabled("gc.apple.com") }
        var fields: [String: String] = [:]
        fields["playerId"] = request.playerId
        fields["teamPlayerId"] = request.teamPlayerId
        fields["gamePlayerId"] = request.gamePlayerId
        fields["displayName"] = request.displayName
        fields["publicKeyUrl"] = request.publicKeyUrl
        fields["signature"] = request.signature
        fields["salt"] = request.salt
        fields["timestamp"] = request.timestamp.map(String.init)
        let assertion = try await verifier.assertion(providerID: "gc.apple.com", fields: fields, requestURI: "",
                                                     project: project)
        let outcome = try await call.services.accounts.federated.signInWithIdp(in: project, assertion, idToken: request.idToken,
                                                                     returnIdpCredential: false)
        switch outcome {
        case .signedIn(let result):
            return SignInWithGameCenterResponse(result, for: request)
        case .secondFactorRequired(let required):
            return SecondFactorRequiredResponse(required)
        case .needConfirmation, .credentialInUse:
            // Game Center identities carry no email, so neither arises; refused rather than half-answered.
            throw AuthFailure.invalidIDPResponse("this Game Center player cannot sign in to this account")
        }
    }

    static func signInWithIdp(_ call: Call, _ request: SignInWithIdpRequest) async throws -> any ResponseGenerator {
        guard let requestURI = request.requestUri, !requestURI.isEmpty else { throw AuthFailure.missingRequestURI }
        let project = try call.clientProject
        let fields = request.postBodyFields
        let accounts = call.services.accounts
        let assertion: FederatedAssertion
        if let pending = request.pendingToken, !pending.isEmpty {
            assertion = try await accounts.federated.redeemPendingToken(pending, in: project)
        } else if let sessionID = request.sessionId, !sessionID.isEmpty, requestURI.contains("code=") || requestURI.contains("error=") || requestURI.contains("oauth_verifier=") {
            let (redirect, code) = try await accounts.federated.finishRedirect(sessionID: sessionID, requestURI: requestURI, in: project)
            guard let redirects = call.services.redirects else { throw AuthFailure.providerNotEnabled(redirect.providerID) }
            assertion = try await redirects.exchange(code: code, redirect: redirect, requestURI: requestURI, project: project)
        } else if call.configuration.isEmulator {
            // Any provider, fake tokens, no configuration: read from requestUri, postBody and the fragment, as the
            // emulator's widget and SDKs send them (docs/modes.md).
            assertion = try EmulatorIdPToken.assertion(EmulatorIdPToken.fields(requestURI: requestURI, postBody: fields))
        } else if fields["providerId"]?.isEmpty ?? true {
            throw AuthFailure.invalidIDPResponse("postBody has no providerId")
        } else if let verifier = call.services.federation, let providerID = fields["providerId"] {
            assertion = try await verifier.assertion(providerID: providerID, fields: fields, requestURI: requestURI,
                                                     project: project)
        } else {
            throw AuthFailure.providerNotEnabled(fields["providerId"] ?? "")
        }
        let outcome = try await accounts.federated.signInWithIdp(
            in: project, assertion, idToken: request.idToken, returnIdpCredential: request.returnIdpCredential == true)
        var response = SignInWithIdpResponse(assertion)
        response.tenantId = project.tenantID
        switch outcome {
        case .signedIn(let result):
            response.localId = result.user.localID
            response.isNewUser = result.isNewUser ? true : nil
            response.idToken = result.tokens.idToken
            response.refreshToken = result.tokens.refreshToken
            response.expiresIn = String(result.tokens.expiresIn)
        case .needConfirmation(let existing):
            response.needConfirmation = true
            // Production does not name the other account: its id is nobody else's business (enumeration).
            if call.configuration.isEmulator { response.localId = existing.localID }
            // Production names none of the other account's providers either; the emulator lists them.
            response.verifiedProvider = call.configuration.isEmulator
                ? existing.providers.map(\.providerID).filter { $0 != "phone" } : []
            if !call.configuration.isEmulator { response.pendingToken = try await accounts.federated.pendingToken(for: assertion, in: project) }
        case .credentialInUse(let code):
            response.errorMessage = code
            if !call.configuration.isEmulator { response.pendingToken = try await accounts.federated.pendingToken(for: assertion, in: project) }
        case .secondFactorRequired(let required):
            return SecondFactorRequiredResponse(required)
        }
        return response
    }
}

extension FederatedRoutes {
    /// `createAuthUri` with `providerId`: the provider's authorization URL (state, PKCE, nonce, scopes, custom
    /// parameters) and the `sessionId` that `signInWithIdp` must bring back with the `requestUri` it lands on.
    static func createAuthUri(_ call: Call, _ request: CreateAuthUriRequest, providerID: String) async throws -> Response {
        let project = try call.clientProject
        guard let given = request.continueUri, !given.isEmpty else { throw AuthFailure.missingContinueURI }
        let continueURI = try AuthorizedDomains.check(given, in: call.configuration.continueURLDomains(for: project.record))
        guard let redirects = call.services.redirects else { throw AuthFailure.providerNotEnabled(providerID) }
        let redirect = FederatedRedirect(providerID: providerID, redirectURI: continueURI)
        let scopes = (request.oauthScope ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        let (url, kept) = try await redirects.authorize(redirect, scopes: scopes,
                                                        customParameters: request.customParameter ?? [:], project: project)
        let sessionID = try await call.services.accounts.federated.startRedirect(kept, in: project)
        var response = CreateAuthUriResponse(registered: nil, allProviders: nil, signinMethods: nil, sessionId: sessionID)
        response.authUri = url
        response.providerId = providerID
        return json(response)
    }
}

extension FederatedRoutes {
    /// `v2/accounts:revokeToken`: revokes what Apple issued for the signed-in user (an authorization code is
    /// exchanged, then its refresh token revoked). Answers `{}`.
    static func revokeToken(_ call: Call, _ request: RevokeTokenRequest) async throws -> any ResponseGenerator {
        try await call.services.accounts.federated.revokeProviderToken(
            in: try call.clientProject, idToken: request.idToken, providerID: request.providerId,
            tokenType: request.tokenType, token: request.token, redirectURI: request.redirectUri,
            provider: call.services.redirects)
        return [String: String]()
    }
}
