import Foundation

/// Where the SDK sends its calls: Google's hosts by default, a Hearth server (or Firebase's emulator) with
/// ``emulator(host:port:)`` or ``hearth(_:)``.
///
/// ```swift
/// let options = AuthOptions(apiKey: "AIza…", projectID: "my-app", endpoints: .hearth(URL(string: "https://auth.example.com")!))
/// let auth = Auth.auth(options: options)
/// ```
public struct AuthEndpoints: Sendable, Equatable {
    /// Base of the Identity Toolkit API (`…/v1/accounts:signUp`, `…/v2/accounts/mfaEnrollment:start`).
    public var identityToolkit: URL
    /// Base of the Secure Token API (`…/v1/token`).
    public var secureToken: URL
    /// The host of `/__/auth/handler` for web sign-in flows (Firebase's `authDomain`).
    public var authDomain: URL?

    public init(identityToolkit: URL, secureToken: URL, authDomain: URL? = nil) {
        self.identityToolkit = identityToolkit
        self.secureToken = secureToken
        self.authDomain = authDomain
    }

    /// Google's production hosts; `authDomain` is `https://<projectID>.firebaseapp.com` unless given.
    public static func google(projectID: String?, authDomain: String? = nil) -> AuthEndpoints {
        let domain = authDomain ?? projectID.map { "\($0).firebaseapp.com" }
        return AuthEndpoints(identityToolkit: URL(string: "https://identitytoolkit.googleapis.com")!,
                             secureToken: URL(string: "https://securetoken.googleapis.com")!,
                             authDomain: domain.flatMap { URL(string: $0.contains("://") ? $0 : "https://" + $0) })
    }

    /// A Hearth server (or anything with the emulator's layout: Google's host name as the first path segment).
    public static func hearth(_ baseURL: URL) -> AuthEndpoints {
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        return AuthEndpoints(identityToolkit: URL(string: base + "/identitytoolkit.googleapis.com")!,
                             secureToken: URL(string: base + "/securetoken.googleapis.com")!,
                             authDomain: URL(string: base))
    }

    /// `http://host:port` with the emulator's layout, as ``Auth/useEmulator(withHost:port:)`` sets.
    public static func emulator(host: String, port: Int) -> AuthEndpoints {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return hearth(URL(string: "http://\(bracketed):\(port)")!)
    }
}
