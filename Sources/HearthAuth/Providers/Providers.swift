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

/// FirebaseAuth's provider ids.
public enum AuthProviderID: String, Sendable, CaseIterable {
    case apple = "apple.com"
    case email = "password"
    case facebook = "facebook.com"
    case gameCenter = "gc.apple.com"
    case gitHub = "github.com"
    case google = "google.com"
    case phone = "phone"
    case microsoft = "microsoft.com"
    case twitter = "twitter.com"
    case yahoo = "yahoo.com"
}
