import Foundation

/// Any OAuth 2.0 / OpenID Connect / OAuth 1.0a provider: credentials from tokens the app already has, or a web
/// sign-in through Hearth's hosted `/__/auth/handler`.
///
/// ```swift
/// let provider = OAuthProvider(providerID: "twitter.com")
/// provider.customParameters = ["lang": "fr"]
/// let credential = try await provider.getCredentialWith(nil)
/// let result = try await Auth.auth().signIn(with: credential)
/// print(result.credential?.accessToken ?? "", result.credential?.secret ?? "")
/// ```
public final class OAuthProvider: FederatedAuthProvider, @unchecked Sendable {
    /// FirebaseAuth's constant for generic OAuth providers.
    public static let id = "OAuth"
    public let providerID: String
    private let auth: Auth
    private let lock = NSLock()
    private var _scopes: [String]?
    private var _customParameters: [String: String]?

    public init(providerID: String, auth: Auth = Auth.auth()) {
        self.providerID = providerID
        self.auth = auth
    }

    public convenience init(providerID: AuthProviderID, auth: Auth = Auth.auth()) {
        self.init(providerID: providerID.rawValue, auth: auth)
    }

    public class func provider(providerID: String) -> OAuthProvider { OAuthProvider(providerID: providerID) }
    public class func provider(providerID: String, auth: Auth) -> OAuthProvider { OAuthProvider(providerID: providerID, auth: auth) }
    public class func provider(providerID: AuthProviderID) -> OAuthProvider { OAuthProvider(providerID: providerID) }
    public class func provider(providerID: AuthProviderID, auth: Auth) -> OAuthProvider {
        OAuthProvider(providerID: providerID, auth: auth)
    }

    /// Extra scopes to ask for.
    public var scopes: [String]? {
        get { lock.locked { _scopes } }
        set { lock.locked { _scopes = newValue } }
    }

    /// Extra parameters of the provider's authorization request (`lang`, `login_hint`, `prompt`, …).
    public var customParameters: [String: String]? {
        get { lock.locked { _customParameters } }
        set { lock.locked { _customParameters = newValue } }
    }

    // MARK: credentials from tokens

    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String?,
                                  accessToken: String?) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken)
    }

    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, rawNonce: rawNonce)
    }

    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, accessToken: accessToken)
    }

    public static func credential(providerID: AuthProviderID, idToken: String, rawNonce: String,
                                  accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    public static func credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken)
    }

    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, accessToken: accessToken)
    }

    /// Sign in with Apple: its ID token, the nonce whose SHA-256 the request carried, and the name Apple gives only
    /// on the first sign-in.
    public static func appleCredential(withIDToken idToken: String, rawNonce: String?,
                                       fullName: PersonNameComponents?) -> OAuthCredential {
        let name = fullName.map { PersonNameParts(givenName: $0.givenName, familyName: $0.familyName, middleName: $0.middleName) }
        return OAuthCredential(providerID: AuthProviderID.apple.rawValue, idToken: idToken, rawNonce: rawNonce, fullName: name)
    }

    // MARK: web sign-in

    /// Runs the provider's sign-in in a browser and returns a credential for ``Auth/signIn(with:)``,
    /// ``User/link(with:)`` or ``User/reauthenticate(with:)``.
    ///
    /// The browser opens Hearth's `/__/auth/handler`, which talks to the provider and sends the browser back to a
    /// one-shot listener on 127.0.0.1 (RFC 8252's loopback redirect). Only the SHA-256 of the session id travels
    /// through the browser; the id itself stays here, so the link alone signs nobody in. `uiDelegate` nil opens
    /// ``Auth/defaultUIDelegate`` if set; otherwise, in an app bundle on iOS/macOS, `ASWebAuthenticationSession`
    /// (which receives Hearth's `app-<bundle id>://` redirect itself), else the system browser (``SystemBrowser``).
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        try await credential(opener: urlOpener(uiDelegate))
    }

    /// The web sign-in, with what opens the page (nil: ``Auth/defaultUIDelegate``, then the platform's own way).
    func credential(opener: (any AuthURLOpener)?) async throws -> AuthCredential {
        guard let domain = auth.endpoints.authDomain else {
            throw AuthErrorFactory.make(.invalidAPIKey, detail: "No authDomain: set AuthEndpoints.authDomain.")
        }
        let session = randomToken()
        #if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
        if opener == nil, auth.defaultUIDelegate == nil, let bundleID = Bundle.main.bundleIdentifier {
            let url = handlerURL(domain: domain, session: session, returnTo: ("appId", bundleID))
            let scheme = "app-" + bundleID.replacingOccurrences(of: ":", with: "-")
            let link = try await WebAuthenticationSessionFlow.run(url, callbackScheme: scheme)
            return OAuthCredential(providerID: providerID, requestURI: link, sessionID: session)
        }
        #endif
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        let url = handlerURL(domain: domain, session: session,
                             returnTo: ("redirectUrl", "http://127.0.0.1:\(receiver.port)/__/hearth/callback"))
        // Listen before opening: a browser (or its driver) may wait for the last page to load before returning.
        let waiting = Task { try await receiver.waitForCallback() }
        do {
            try await (opener ?? auth.defaultUIDelegate ?? SystemBrowser()).open(url)
        } catch {
            receiver.close()
            _ = await waiting.result
            throw error
        }
        let callback = try await waiting.value
        let items = URLComponents(string: callback)?.queryItems ?? []
        guard let link = items.first(where: { $0.name == "link" })?.value else {
            let reason = items.first(where: { $0.name == "error" })?.value ?? "the browser came back without a result"
            throw AuthErrorFactory.make(.webSignInUserInteractionFailure, detail: reason)
        }
        return OAuthCredential(providerID: providerID, requestURI: link, sessionID: session)
    }

    /// `/__/auth/handler` with what it needs: the key, the provider, the session id's digest, where to come back, and
    /// the tenant (`tid`).
    func handlerURL(domain: URL, session: String, returnTo: (String, String)) -> URL {
        var query = [
            ("apiKey", auth.options.apiKey), ("appName", auth.options.appName), ("authType", "signInViaRedirect"),
            returnTo, ("v", "hearth-swift"), ("eventId", randomToken(bytes: 8)), ("providerId", providerID),
            ("sessionId", SHA256.hex(session)),
        ]
        if let scopes, !scopes.isEmpty { query.append(("scopes", scopes.joined(separator: ","))) }
        if let customParameters, !customParameters.isEmpty,
           let json = try? JSONSerialization.data(withJSONObject: customParameters, options: [.sortedKeys]) {
            query.append(("customParameters", String(decoding: json, as: UTF8.self)))
        }
        if let language = auth.languageCode { query.append(("hl", language)) }
        if let tenantID = auth.tenantID { query.append(("tid", tenantID)) }  // the tenant's providers, as FirebaseAuth
        let handler = domain.absoluteString.hasSuffix("/") ? String(domain.absoluteString.dropLast()) : domain.absoluteString
        return URL(string: handler + "/__/auth/handler?" + query.map { "\($0.0)=\(FormEncoding.escape($0.1))" }
            .joined(separator: "&"))!
    }

    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?,
                                  completion: (@MainActor @Sendable (AuthCredential?, (any Error)?) -> Void)?) {
        let opener = urlOpener(uiDelegate)
        deliver(completion) { try await self.credential(opener: opener) }
    }

    /// ``FederatedAuthProvider``'s requirement: ``getCredentialWith(_:)``.
    public func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        try await getCredentialWith(uiDelegate)
    }
}

extension Auth {
    /// What web sign-ins (``OAuthProvider/getCredentialWith(_:)``) and authenticator links open pages with when
    /// no opener is given; nil: `ASWebAuthenticationSession` in Apple app bundles, else the system browser.
    public var defaultUIDelegate: (any AuthURLOpener)? {
        get { core.defaultUIDelegate }
        set { core.defaultUIDelegate = newValue }
    }
}
