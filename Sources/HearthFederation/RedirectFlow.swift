import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOFoundationCompat

/// The authorization-code flow with PKCE, for any provider: the authorization URL, then the code exchange.
extension HTTPIdentityProviderVerifier: FederatedRedirectProvider {
    static let reservedParameters: Set<String> = ["client_id", "redirect_uri", "response_type", "scope", "state",
                                                   "code_challenge", "code_challenge_method", "nonce"]

    func enabledConfig(_ providerID: String, project: ProjectContext) throws -> IdentityProviderConfig {
        guard let config = project.settings.identityProviders?[providerID], config.enabled else {
            throw AuthFailure.providerNotEnabled(providerID)
        }
        return config
    }

    public func authorizationURL(for redirect: FederatedRedirect, scopes: [String], customParameters: [String: String],
                                 project: ProjectContext) async throws -> String {
        let config = try enabledConfig(redirect.providerID, project: project)
        var endpoint = config.authorizationUri ?? ProviderDefaults.authorization(redirect.providerID)
        if endpoint == nil || config.issuer != nil, config.authorizationUri == nil,
           let issuer = config.issuer ?? ProviderDefaults.issuer(redirect.providerID) {
            endpoint = try await keys.discovery(issuer: issuer, now: clock.now()).authorization_endpoint ?? endpoint
        }
        guard let endpoint, var components = URLComponents(string: endpoint) else {
            throw AuthFailure.invalidIDPResponse("\(redirect.providerID) has no authorization endpoint configured")
        }
        let allScopes = scopes.isEmpty ? (config.scopes ?? ProviderDefaults.scopes(redirect.providerID)) : scopes
        var items = components.queryItems ?? []
        items += [
            URLQueryItem(name: "client_id", value: config.clientId),
            URLQueryItem(name: "redirect_uri", value: redirect.redirectURI),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: allScopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: redirect.state),
            URLQueryItem(name: "code_challenge", value: redirect.codeChallenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
            URLQueryItem(name: "nonce", value: redirect.nonce),
        ]
        for (name, value) in customParameters.sorted(by: { $0.key < $1.key }) where !Self.reservedParameters.contains(name) {
            items.append(URLQueryItem(name: name, value: value))
        }
        components.queryItems = items
        guard let url = components.url?.absoluteString else { throw AuthFailure.invalidIDPResponse("bad authorization URL") }
        return url
    }

    public func exchange(code: String, redirect: FederatedRedirect, project: ProjectContext) async throws
        -> FederatedAssertion
    {
        let config = try enabledConfig(redirect.providerID, project: project)
        var endpoint = config.tokenUri ?? ProviderDefaults.token(redirect.providerID)
        if config.tokenUri == nil, config.issuer != nil || endpoint == nil,
           let issuer = config.issuer ?? ProviderDefaults.issuer(redirect.providerID) {
            endpoint = try await keys.discovery(issuer: issuer, now: clock.now()).token_endpoint ?? endpoint
        }
        guard let endpoint else { throw AuthFailure.invalidIDPResponse("\(redirect.providerID) has no token endpoint configured") }
        var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirect.redirectURI,
                    "client_id": config.clientId, "code_verifier": redirect.codeVerifier]
        if let secret = config.clientSecret { form["client_secret"] = secret }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw AuthFailure.invalidIDPResponse("the identity provider cannot be reached")
        }
        let body = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        guard response.status == .ok,
              let tokens = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw AuthFailure.invalidIDPResponse("the provider refused the authorization code (\(response.status.code))")
        }
        let accessToken = tokens["access_token"] as? String
        var assertion: FederatedAssertion
        if let idToken = tokens["id_token"] as? String {
            assertion = try await verifyIDToken(idToken, providerID: redirect.providerID, config: config,
                                                nonce: redirect.nonce, project: project)
            assertion.oauthAccessToken = accessToken
        } else if let accessToken {
            assertion = try await profile(accessToken: accessToken, providerID: redirect.providerID, config: config)
        } else {
            throw AuthFailure.invalidIDPResponse("the token response has neither id_token nor access_token")
        }
        assertion.oauthRefreshToken = tokens["refresh_token"] as? String
        assertion.oauthExpiresIn = (tokens["expires_in"] as? NSNumber)?.intValue
        return assertion
    }
}
