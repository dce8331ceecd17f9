import Crypto
import Foundation

/// The redirect flow's HTTP side, implemented with the verifier: where to send the browser, and the code exchange.
public protocol FederatedRedirectProvider: Sendable {
    /// The provider's authorization URL for `redirect`, with scopes and custom parameters, and the redirect as it
    /// must be kept (OAuth 1.0a adds its request token).
    func authorize(_ redirect: FederatedRedirect, scopes: [String], customParameters: [String: String],
                   project: ProjectContext) async throws -> (url: String, redirect: FederatedRedirect)
    /// Exchanges the authorization `code` (with the PKCE verifier) and verifies what comes back; `requestURI` is
    /// where the browser landed (Apple adds the user's name there, once).
    func exchange(code: String, redirect: FederatedRedirect, requestURI: String, project: ProjectContext) async throws
        -> FederatedAssertion
    /// Revokes a token at the provider (`accounts:revokeToken`); an authorization code is first exchanged for the
    /// refresh token it stands for.
    func revoke(_ token: String, kind: ProviderTokenKind, providerID: String, redirectURI: String?,
                project: ProjectContext) async throws
}

/// A redirect flow in progress (`createAuthUri` with `providerId`): what the return through `requestUri` must match.
public struct FederatedRedirect: Sendable, Codable, Equatable {
    public var providerID: String
    /// Where the provider sends the browser back (`continueUri`); the code exchange repeats it.
    public var redirectURI: String
    public var state: String
    /// PKCE (RFC 7636): the verifier whose S256 challenge went into the authorization URL.
    public var codeVerifier: String
    public var nonce: String
    /// OAuth 1.0a (twitter.com): the request token and its secret, obtained before the browser leaves.
    public var oauth1Token: String?
    public var oauth1Secret: String?

    public init(providerID: String, redirectURI: String) {
        self.providerID = providerID
        self.redirectURI = redirectURI
        state = SecureRandom.token(byteCount: 24)
        codeVerifier = SecureRandom.token(byteCount: 48)
        nonce = SecureRandom.token(byteCount: 24)
    }

    /// `code_challenge` for S256.
    public var codeChallenge: String { Base64URL.encode(SHA256.hash(data: Data(codeVerifier.utf8))) }
}

/// What `accounts:revokeToken` revokes, by its wire names (the enum's name, or its number as the iOS SDK sends it).
public enum ProviderTokenKind: String, Sendable {
    case refreshToken = "refresh_token", accessToken = "access_token", code

    public init?(wire: String?) {
        switch wire {
        case "REFRESH_TOKEN", "1": self = .refreshToken
        case "ACCESS_TOKEN", "2": self = .accessToken
        case "CODE", "3": self = .code
        default: return nil
        }
    }
}
