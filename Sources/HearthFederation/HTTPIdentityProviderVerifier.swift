import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import JWTKit
import NIOCore
import NIOFoundationCompat

/// Verifies IdP credentials over HTTP for `signInWithIdp`:
///
/// - an `id_token` (google.com, apple.com, microsoft.com, any `oidc.*`): signature against the issuer's key set
///   (from its discovery document), `iss`, `aud` = the configured client id, `exp`/`iat` (60 s skew), the `nonce`
///   when the client sent one (raw or SHA-256, as Apple hashes it), and single use — a replayed token is refused;
/// - an `access_token` (facebook.com Graph `/me`, github.com `/user` + `/user/emails`, twitter.com X API v2, or an
///   OIDC provider's userinfo): the profile the provider returns for it.
///
/// ```swift
/// let verifier = HTTPIdentityProviderVerifier(store: store, clock: SystemClock())
/// let assertion = try await verifier.assertion(providerID: "google.com", fields: ["id_token": token],
///                                              requestURI: "http://localhost", project: project)
/// ```
public struct HTTPIdentityProviderVerifier: IdentityProviderVerifier {
    let http: HTTPClient
    let store: any SecretStore
    let clock: any HearthClock
    let timeout: TimeAmount
    let keys: OIDCKeys

    public init(store: any SecretStore, clock: any HearthClock, httpClient: HTTPClient = .shared,
                timeout: TimeAmount = .seconds(10)) {
        self.http = httpClient
        self.store = store
        self.clock = clock
        self.timeout = timeout
        keys = OIDCKeys(http: httpClient, timeout: timeout)
    }

    public func assertion(providerID: String, fields: [String: String], requestURI: String, project: ProjectContext)
        async throws -> FederatedAssertion
    {
        if providerID.hasPrefix("saml.") { throw AuthFailure.samlSignInUnsupported }
        guard let config = project.settings.identityProviders?[providerID], config.enabled else {
            throw AuthFailure.providerNotEnabled(providerID)
        }
        if providerID == GameCenter.providerID { return try await gameCenter(fields, config: config, project: project) }
        if let idToken = fields["id_token"], !idToken.isEmpty {
            var assertion = try await verifyIDToken(idToken, providerID: providerID, config: config,
                                                    nonce: fields["nonce"], project: project)
            assertion.oauthAccessToken = fields["access_token"]
            if providerID == "apple.com", let user = fields["user"] { Self.applyAppleName(user, to: &assertion) }
            return assertion
        }
        if let accessToken = fields["access_token"], !accessToken.isEmpty {
            if let secret = fields["oauth_token_secret"], !secret.isEmpty {
                return try await twitterOAuth1(token: accessToken, secret: secret, config: config)
            }
            return try await profile(accessToken: accessToken, providerID: providerID, config: config)
        }
        throw AuthFailure.invalidIDPResponse("postBody needs an id_token or an access_token")
    }

    // MARK: OIDC ID tokens

    struct IDTokenClaims: JWTPayload {
        var iss: String
        var aud: AudienceClaim
        var sub: String
        var exp: Double
        var iat: Double?
        var nonce: String?
        var email: String?
        var email_verified: FlexibleBool?
        var name: String?
        var picture: String?
        var given_name: String?
        var family_name: String?
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Apple sends `email_verified` as a string.
    struct FlexibleBool: Codable, Equatable {
        var value: Bool
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) { value = bool } else {
                value = (try? container.decode(String.self)) == "true"
            }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    func verifyIDToken(_ token: String, providerID: String, config: IdentityProviderConfig, nonce: String?,
                       project: ProjectContext) async throws -> FederatedAssertion {
        let now = clock.now()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count < 16_384, let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let payloadData = Base64URL.decode(parts[1])
        else { throw AuthFailure.invalidIDPResponse("the id_token is not a JWT") }
        guard let alg = header["alg"] as? String, alg != "none", !alg.hasPrefix("HS") else {
            throw AuthFailure.invalidIDPResponse("the id_token must be signed with the provider's key")
        }
        guard let issuer = config.issuer ?? ProviderDefaults.issuer(providerID) else {
            throw AuthFailure.invalidIDPResponse("no issuer is configured for \(providerID)")
        }
        let jwksURL: String
        if let override = config.jwksUri { jwksURL = override } else {
            jwksURL = try await keys.discovery(issuer: issuer, now: now).jwks_uri
        }
        let collection = try await keys.keys(url: jwksURL, kid: header["kid"] as? String, now: now)
        let claims: IDTokenClaims
        do {
            claims = try await collection.verify(token, as: IDTokenClaims.self)
        } catch {
            throw AuthFailure.invalidIDPResponse("the id_token's signature does not verify with the provider's keys")
        }
        // Microsoft's multi-tenant issuer names the tenant; its template stands for any.
        let issuerMatches = claims.iss == issuer
            || (issuer.contains("/common/") && claims.iss.hasPrefix("https://login.microsoftonline.com/"))
        guard issuerMatches else { throw AuthFailure.invalidIDPResponse("the id_token's issuer is \(claims.iss), not \(issuer)") }
        guard claims.aud.value.contains(config.clientId) else {
            throw AuthFailure.invalidIDPResponse("the id_token is for another client (aud)")
        }
        let seconds = now.timeIntervalSince1970
        guard claims.exp + 60 > seconds else { throw AuthFailure.invalidIDPResponse("the id_token has expired") }
        guard (claims.iat ?? 0) <= seconds + 60 else { throw AuthFailure.invalidIDPResponse("the id_token is issued in the future") }
        if let nonce {
            let hashed = SHA256.hash(data: Data(nonce.utf8)).hexString
            guard let claimed = claims.nonce, claimed == nonce || claimed == hashed else {
                throw AuthFailure.invalidIDPResponse("MISSING_OR_INVALID_NONCE : the id_token's nonce does not match")
            }
        }
        let fresh = try await store.useAssertionOnce(
            digest: storageDigest("idp:" + project.id + ":" + token),
            expiresAt: Date(timeIntervalSince1970: claims.exp + 60), now: now)
        guard fresh else { throw AuthFailure.invalidIDPResponse("the id_token was already used") }

        var assertion = FederatedAssertion(providerID: providerID, rawID: claims.sub, email: claims.email,
                                           emailVerified: claims.email_verified?.value ?? false,
                                           displayName: claims.name, photoURL: claims.picture,
                                           rawUserInfo: String(decoding: payloadData, as: UTF8.self))
        assertion.firstName = claims.given_name
        assertion.lastName = claims.family_name
        if assertion.displayName == nil, let first = claims.given_name {
            assertion.displayName = [first, claims.family_name].compactMap { $0 }.joined(separator: " ")
        }
        assertion.oauthIdToken = token
        return assertion
    }

    /// Apple sends the user's name once, in the `user` JSON of the first sign-in.
    static func applyAppleName(_ json: String, to assertion: inout FederatedAssertion) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let name = object["name"] as? [String: Any] else { return }
        assertion.firstName = name["firstName"] as? String ?? assertion.firstName
        assertion.lastName = name["lastName"] as? String ?? assertion.lastName
        let full = [assertion.firstName, assertion.lastName].compactMap { $0 }.joined(separator: " ")
        if !full.isEmpty { assertion.displayName = full }
    }

    // MARK: OAuth 2.0 access tokens

    func profile(accessToken: String, providerID: String, config: IdentityProviderConfig) async throws
        -> FederatedAssertion
    {
        var userInfoURL = config.userInfoUri ?? ProviderDefaults.userInfo(providerID)
        if userInfoURL == nil, let issuer = config.issuer ?? ProviderDefaults.issuer(providerID) {
            userInfoURL = try await keys.discovery(issuer: issuer, now: clock.now()).userinfo_endpoint
        }
        guard let userInfoURL else { throw AuthFailure.invalidIDPResponse("\(providerID) has no profile endpoint configured") }
        let (object, raw) = try await getJSON(userInfoURL, token: accessToken)
        var assertion: FederatedAssertion
        switch providerID {
        case "facebook.com":
            guard let id = object["id"] as? String else { throw AuthFailure.invalidIDPResponse("the profile has no id") }
            // Facebook does not say whether an email is verified: Firebase treats it as unverified.
            assertion = FederatedAssertion(providerID: providerID, rawID: id, email: object["email"] as? String,
                                           emailVerified: false, displayName: object["name"] as? String,
                                           photoURL: ((object["picture"] as? [String: Any])?["data"] as? [String: Any])?["url"] as? String,
                                           rawUserInfo: raw)
            assertion.firstName = object["first_name"] as? String
            assertion.lastName = object["last_name"] as? String
        case "github.com":
            guard let id = (object["id"] as? NSNumber)?.stringValue ?? object["id"] as? String else {
                throw AuthFailure.invalidIDPResponse("the profile has no id")
            }
            assertion = FederatedAssertion(providerID: providerID, rawID: id, email: nil, emailVerified: false,
                                           displayName: object["name"] as? String ?? object["login"] as? String,
                                           photoURL: object["avatar_url"] as? String, rawUserInfo: raw)
            assertion.screenName = object["login"] as? String
            // The primary address and whether GitHub verified it (the profile's `email` may be empty or stale).
            if let emailsURL = config.emailsUri ?? ProviderDefaults.emails(providerID),
               let emails = try? await getJSONArray(emailsURL, token: accessToken),
               let primary = emails.first(where: { $0["primary"] as? Bool == true }) {
                assertion.email = primary["email"] as? String
                assertion.emailVerified = primary["verified"] as? Bool ?? false
            } else {
                assertion.email = object["email"] as? String
            }
        case "twitter.com":
            guard let data = object["data"] as? [String: Any], let id = data["id"] as? String else {
                throw AuthFailure.invalidIDPResponse("the profile has no id")
            }
            assertion = FederatedAssertion(providerID: providerID, rawID: id, displayName: data["name"] as? String,
                                           photoURL: data["profile_image_url"] as? String, rawUserInfo: raw)
            assertion.screenName = data["username"] as? String
        default:  // OIDC userinfo
            guard let sub = object["sub"] as? String else { throw AuthFailure.invalidIDPResponse("the profile has no sub") }
            assertion = FederatedAssertion(providerID: providerID, rawID: sub, email: object["email"] as? String,
                                           emailVerified: object["email_verified"] as? Bool ?? false,
                                           displayName: object["name"] as? String, photoURL: object["picture"] as? String,
                                           rawUserInfo: raw)
        }
        assertion.oauthAccessToken = accessToken
        return assertion
    }

    // MARK: OAuth 1.0a (twitter.com)

    /// Twitter's `oauth_token` + `oauth_token_secret`: `verify_credentials`, signed with the app's consumer key and
    /// secret (the configured client id and secret) and the user's token.
    func twitterOAuth1(token: String, secret: String, config: IdentityProviderConfig) async throws -> FederatedAssertion {
        guard let consumerSecret = config.clientSecret else {
            throw AuthFailure.invalidIDPResponse("twitter.com needs its API key and secret (clientId, clientSecret) for OAuth 1.0a")
        }
        let url = config.verifyCredentialsUri
            ?? "https://api.twitter.com/1.1/account/verify_credentials.json?include_email=true&skip_status=true"
        let header = OAuth1.authorization(method: "GET", url: url, consumerKey: config.clientId,
                                          consumerSecret: consumerSecret, token: token, tokenSecret: secret)
        let data = try await get(url, authorization: header)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let id = object["id_str"] as? String ?? (object["id"] as? NSNumber)?.stringValue
        else { throw AuthFailure.invalidIDPResponse("the profile has no id") }
        var assertion = FederatedAssertion(providerID: "twitter.com", rawID: id, email: object["email"] as? String,
                                           emailVerified: false, displayName: object["name"] as? String,
                                           photoURL: object["profile_image_url_https"] as? String,
                                           rawUserInfo: String(decoding: data, as: UTF8.self))
        assertion.screenName = object["screen_name"] as? String
        assertion.oauthAccessToken = token
        assertion.oauthTokenSecret = secret
        return assertion
    }

    func get(_ url: String, token: String) async throws -> Data {
        try await get(url, authorization: "Bearer " + token)
    }

    func get(_ url: String, authorization: String) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Hearth")
        let (response, body) = try await http.askProvider(request, timeout: timeout)
        guard response.status == .ok else {
            throw AuthFailure.invalidIDPResponse("the identity provider refused the access token (\(response.status.code))")
        }
        return Data(buffer: body)
    }

    func getJSON(_ url: String, token: String) async throws -> ([String: Any], String) {
        let data = try await get(url, token: token)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw AuthFailure.invalidIDPResponse("the identity provider's profile is not JSON")
        }
        return (object, String(decoding: data, as: UTF8.self))
    }

    func getJSONArray(_ url: String, token: String) async throws -> [[String: Any]] {
        let data = try await get(url, token: token)
        return (try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }
}
