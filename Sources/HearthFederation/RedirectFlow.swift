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
        if providerID.hasPrefix("saml.") { throw AuthFailure.samlSignInUnsupported }
        guard let config = project.settings.identityProviders?[providerID], config.enabled else {
            throw AuthFailure.providerNotEnabled(providerID)
        }
        return config
    }

    public func authorize(_ redirect: FederatedRedirect, scopes: [String], customParameters: [String: String],
                          project: ProjectContext) async throws -> (url: String, redirect: FederatedRedirect) {
        let config = try enabledConfig(redirect.providerID, project: project)
        if redirect.providerID == "twitter.com" {
            return try await twitterRequestToken(redirect, config: config, customParameters: customParameters)
        }
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
        let responseMode = ProviderDefaults.responseMode(redirect.providerID)
        if let responseMode { items.append(URLQueryItem(name: "response_mode", value: responseMode)) }
        for (name, value) in customParameters.sorted(by: { $0.key < $1.key })
        where !Self.reservedParameters.contains(name) && !(responseMode != nil && name == "response_mode") {
            items.append(URLQueryItem(name: name, value: value))
        }
        components.queryItems = items
        guard let url = components.url?.absoluteString else { throw AuthFailure.invalidIDPResponse("bad authorization URL") }
        return (url, redirect)
    }

    public func exchange(code: String, redirect: FederatedRedirect, requestURI: String, project: ProjectContext)
        async throws -> FederatedAssertion
    {
        let config = try enabledConfig(redirect.providerID, project: project)
        if let requestToken = redirect.oauth1Token, let requestSecret = redirect.oauth1Secret {
            return try await twitterAccessToken(verifier: code, requestToken: requestToken, requestSecret: requestSecret,
                                                config: config)
        }
        var endpoint = config.tokenUri ?? ProviderDefaults.token(redirect.providerID)
        if config.tokenUri == nil, config.issuer != nil || endpoint == nil,
           let issuer = config.issuer ?? ProviderDefaults.issuer(redirect.providerID) {
            endpoint = try await keys.discovery(issuer: issuer, now: clock.now()).token_endpoint ?? endpoint
        }
        guard let endpoint else { throw AuthFailure.invalidIDPResponse("\(redirect.providerID) has no token endpoint configured") }
        var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirect.redirectURI,
                    "client_id": config.clientId, "code_verifier": redirect.codeVerifier]
        if let secret = try await clientSecret(redirect.providerID, config: config) { form["client_secret"] = secret }
        let tokens = try await postForm(endpoint, form, refusal: "the provider refused the authorization code")
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
        if redirect.providerID == "apple.com",
           let user = URLComponents(string: requestURI)?.queryItems?.first(where: { $0.name == "user" })?.value {
            Self.applyAppleName(user, to: &assertion)
        }
        return assertion
    }
}

/// Twitter's three-legged OAuth 1.0a: a request token before the browser leaves (its callback carries our `state`),
/// then the verifier exchanged for the user's token and secret.
extension HTTPIdentityProviderVerifier {
    func twitterRequestToken(_ redirect: FederatedRedirect, config: IdentityProviderConfig,
                             customParameters: [String: String]) async throws -> (url: String, redirect: FederatedRedirect) {
        guard let secret = config.clientSecret else {
            throw AuthFailure.invalidIDPResponse("twitter.com needs its API key and secret (clientId, clientSecret)")
        }
        var callback = URLComponents(string: redirect.redirectURI)
        let existing = callback?.queryItems ?? []
        callback?.queryItems = existing + [URLQueryItem(name: "state", value: redirect.state)]
        let callbackURL = callback?.string ?? redirect.redirectURI
        let url = config.requestTokenUri ?? "https://api.twitter.com/oauth/request_token"
        let header = OAuth1.authorization(method: "POST", url: url, consumerKey: config.clientId, consumerSecret: secret,
                                          token: "", tokenSecret: "", extra: ["oauth_callback": callbackURL])
        let fields = try await postOAuth1(url, authorization: header)
        guard let token = fields["oauth_token"], let tokenSecret = fields["oauth_token_secret"],
              fields["oauth_callback_confirmed"] == "true"
        else { throw AuthFailure.invalidIDPResponse("twitter.com did not issue a request token") }
        var kept = redirect
        kept.oauth1Token = token
        kept.oauth1Secret = tokenSecret
        var authorize = URLComponents(string: config.authorizationUri ?? "https://api.twitter.com/oauth/authenticate")
        var items = [URLQueryItem(name: "oauth_token", value: token)]
        if let language = customParameters["lang"] { items.append(URLQueryItem(name: "lang", value: language)) }
        authorize?.queryItems = items
        guard let authorizeURL = authorize?.string else { throw AuthFailure.invalidIDPResponse("bad authorization URL") }
        return (authorizeURL, kept)
    }

    func twitterAccessToken(verifier: String, requestToken: String, requestSecret: String,
                            config: IdentityProviderConfig) async throws -> FederatedAssertion {
        guard let secret = config.clientSecret else {
            throw AuthFailure.invalidIDPResponse("twitter.com needs its API key and secret (clientId, clientSecret)")
        }
        let url = config.tokenUri ?? "https://api.twitter.com/oauth/access_token"
        let header = OAuth1.authorization(method: "POST", url: url, consumerKey: config.clientId, consumerSecret: secret,
                                          token: requestToken, tokenSecret: requestSecret,
                                          extra: ["oauth_verifier": verifier])
        let fields = try await postOAuth1(url, authorization: header)
        guard let token = fields["oauth_token"], let tokenSecret = fields["oauth_token_secret"] else {
            throw AuthFailure.invalidIDPResponse("twitter.com refused the verifier")
        }
        return try await twitterOAuth1(token: token, secret: tokenSecret, config: config)
    }

    /// A signed POST whose answer is form-encoded.
    func postOAuth1(_ url: String, authorization: String) async throws -> [String: String] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let (response, buffer) = try await http.askProvider(request, timeout: timeout, limit: 64 * 1024)
        let body = String(buffer: buffer)
        guard response.status == .ok else {
            throw AuthFailure.invalidIDPResponse("twitter.com refused the request (\(response.status.code))")
        }
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
