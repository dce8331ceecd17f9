import Foundation

/// Email and password (`password`) and email-link (`emailLink`) credentials.
///
/// ```swift
/// let credential = EmailAuthProvider.credential(withEmail: email, password: password)
/// ```
public enum EmailAuthProvider {
    public static let id = "password"
    public static let emailPasswordSignInMethod = "password"
    public static let emailLinkSignInMethod = "emailLink"

    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, password: password)
    }

    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        EmailAuthCredential(email: email, link: link)
    }
}

/// Google Sign-In's ID token (and access token).
///
/// ```swift
/// let credential = GoogleAuthProvider.credential(withIDToken: idToken, accessToken: accessToken)
/// ```
public enum GoogleAuthProvider {
    public static let id = "google.com"

    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: idToken, accessToken: accessToken)
    }
}

/// Facebook Login's access token.
///
/// ```swift
/// let credential = FacebookAuthProvider.credential(withAccessToken: token)
/// ```
public enum FacebookAuthProvider {
    public static let id = "facebook.com"

    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: accessToken)
    }
}

/// A GitHub OAuth access token.
///
/// ```swift
/// let credential = GitHubAuthProvider.credential(withToken: token)
/// ```
public enum GitHubAuthProvider {
    public static let id = "github.com"

    public static func credential(withToken token: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: token)
    }
}

/// Twitter/X OAuth 1.0a token and secret.
///
/// ```swift
/// let credential = TwitterAuthProvider.credential(withToken: token, secret: secret)
/// ```
public enum TwitterAuthProvider {
    public static let id = "twitter.com"

    public static func credential(withToken token: String, secret: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: token, secret: secret)
    }
}

/// A provider id, as FirebaseAuth 12 spells them: `.google`, `.apple`, or `.custom("oidc.acme")` for any other.
///
/// ```swift
/// let provider = OAuthProvider(providerID: .custom("oidc.acme"))
/// ```
public struct AuthProviderID: Equatable, Hashable, Sendable {
    public let rawValue: String
    private init(rawValue: String) { self.rawValue = rawValue }

    public static var apple: Self { Self(rawValue: "apple.com") }
    public static var email: Self { Self(rawValue: "password") }
    public static var facebook: Self { Self(rawValue: "facebook.com") }
    public static var gameCenter: Self { Self(rawValue: "gc.apple.com") }
    public static var gitHub: Self { Self(rawValue: "github.com") }
    public static var google: Self { Self(rawValue: "google.com") }
    public static var phone: Self { Self(rawValue: "phone") }
    /// Providers Firebase names only as strings, here for convenience.
    public static var microsoft: Self { Self(rawValue: "microsoft.com") }
    public static var twitter: Self { Self(rawValue: "twitter.com") }
    public static var yahoo: Self { Self(rawValue: "yahoo.com") }

    /// Any other provider: `oidc.*`, `saml.*`, or a built-in one by its id.
    public static func custom(_ value: String) -> Self { Self(rawValue: value) }
}
