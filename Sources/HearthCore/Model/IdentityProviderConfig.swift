import Foundation

/// One identity provider of a project. Built-in providers know their endpoints; every URL can be overridden
/// (self-hosted IdPs, tests).
///
/// ```json
/// { "google.com": { "enabled": true, "clientId": "123.apps.googleusercontent.com" },
///   "github.com": { "enabled": true, "clientId": "Iv1.abc", "clientSecret": "…" },
///   "oidc.acme":  { "enabled": true, "clientId": "hearth", "issuer": "https://login.acme.example" } }
/// ```
public struct IdentityProviderConfig: Sendable, Codable, Equatable {
    public var enabled: Bool
    /// The name the console and sign-in pages show (OIDC and SAML providers).
    public var displayName: String?
    /// The OAuth client id: the audience of the provider's ID tokens. A SAML provider's is its service-provider
    /// entity id (`spConfig.spEntityId`), the audience of its assertions.
    public var clientId: String
    public var clientSecret: String?
    public var scopes: [String]?
    /// OIDC issuer; its discovery document (`/.well-known/openid-configuration`) names the key set.
    public var issuer: String?
    /// OIDC `responseType`: `true` for the authorization-code flow (`code`, needs `clientSecret`), otherwise the
    /// implicit ID-token flow (`idToken`, Identity Platform's default).
    public var codeFlow: Bool?
    /// SAML providers (`saml.*`) only: the identity provider's side.
    public var saml: SAMLIdentityProvider?
    /// Overrides: the key set, the profile endpoint (Graph's `/me`, GitHub's `/user`, X's `/2/users/me`, OIDC
    /// userinfo), GitHub's `/user/emails`, and the OAuth endpoints of the redirect flow.
    public var jwksUri: String?
    public var userInfoUri: String?
    public var emailsUri: String?
    public var authorizationUri: String?
    public var tokenUri: String?
    /// twitter.com's OAuth 1.0a endpoints (its redirect flow is OAuth 1.0a, as Firebase's): the request token, and
    /// `verify_credentials` for a user's token and secret (`userInfoUri` is X's API v2 for OAuth 2.0 tokens).
    public var requestTokenUri: String?
    public var verifyCredentialsUri: String?
    /// The token revocation endpoint (apple.com: `https://appleid.apple.com/auth/revoke`).
    public var revokeUri: String?
    /// apple.com: the key Hearth signs its client secret with (Apple's "Sign in with Apple" key, a `.p8` PEM), its
    /// key id and the team id. Without them `clientSecret` is sent as it is (a client-secret JWT made elsewhere).
    public var teamId: String?
    public var keyId: String?
    public var privateKey: String?

    public init(enabled: Bool = true, clientId: String, clientSecret: String? = nil, issuer: String? = nil) {
        self.enabled = enabled
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.issuer = issuer
    }
}

/// The identity provider's half of a SAML provider (Identity Platform's `inboundSamlConfigs` `idpConfig`, plus
/// `spConfig.callbackUri`); the service provider's entity id is the config's `clientId`.
public struct SAMLIdentityProvider: Sendable, Codable, Equatable {
    public var entityID: String
    /// Where browsers are sent to sign in (`ssoUrl`).
    public var ssoURL: String
    /// PEM or base64 DER certificates that may sign the provider's responses.
    public var certificates: [String]
    /// Whether Hearth's authentication requests are signed.
    public var signRequest: Bool
    /// The assertion consumer service URL the provider posts its response to.
    public var callbackURI: String

    public init(entityID: String, ssoURL: String, certificates: [String], signRequest: Bool = false,
                callbackURI: String) {
        self.entityID = entityID
        self.ssoURL = ssoURL
        self.certificates = certificates
        self.signRequest = signRequest
        self.callbackURI = callbackURI
    }
}
