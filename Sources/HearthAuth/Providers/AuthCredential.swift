import Foundation

/// A credential from a sign-in method, handed to `Auth.signIn(with:)`, `User.link(with:)` or
/// `User.reauthenticate(with:)`. Made by the providers (``EmailAuthProvider``,
/// ``GoogleAuthProvider``, ``OAuthProvider``, ``PhoneAuthProvider`` …), never directly.
///
/// ```swift
/// let credential = EmailAuthProvider.credential(withEmail: "ada@example.com", password: "s3cret!")
/// try await Auth.auth().currentUser?.link(with: credential)
/// ```
open class AuthCredential: NSObject, @unchecked Sendable {
    /// The provider ID (`password`, `google.com`, `phone`, …).
    public let provider: String

    init(provider: String) { self.provider = provider }

    /// The credential an older-style call was handed, or ``AuthErrorCode/invalidCredential`` for none.
    static func given(_ credential: AuthCredential?) throws -> AuthCredential {
        guard let credential else { throw AuthErrorFactory.make(.invalidCredential, detail: "No credential was given.") }
        return credential
    }
}

/// An email and password, or an email and a sign-in link.
final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    let email: String
    let password: String?
    let link: String?

    init(email: String, password: String? = nil, link: String? = nil) {
        self.email = email
        self.password = password
        self.link = link
        super.init(provider: link == nil ? EmailAuthProvider.id : EmailAuthProvider.emailLinkSignInMethod)
    }
}

/// A credential from an OAuth 2.0 / OpenID Connect / OAuth 1.0a provider. Sign-in results carry one
/// (``AuthDataResult/credential``) with the provider's tokens.
///
/// ```swift
/// let credential = OAuthProvider.credential(withProviderID: "oidc.acme", idToken: idToken, rawNonce: nonce,
///                                           accessToken: nil)
/// ```
public final class OAuthCredential: AuthCredential, NSSecureCoding, @unchecked Sendable {
    /// The provider's ID token, if any.
    public let idToken: String?
    /// The provider's access token (OAuth 1.0a: the token).
    public let accessToken: String?
    /// The OAuth 1.0a token secret (Twitter/X).
    public let secret: String?
    let rawNonce: String?
    let fullName: PersonNameParts?
    /// A redirect flow's result: the URL the browser came back to and the secret session id.
    let requestURI: String?
    let sessionID: String?
    private let lock = NSLock()
    private var _pendingToken: String?

    /// Hearth and Google give a verified credential back as a pending token when it cannot be used where it was
    /// presented (already linked elsewhere, needs confirmation); the same object then signs in with it, because the
    /// provider's own ID token is single use.
    var pendingToken: String? {
        get { lock.locked { _pendingToken } }
        set { lock.locked { _pendingToken = newValue } }
    }

    init(providerID: String, idToken: String? = nil, accessToken: String? = nil, secret: String? = nil,
         rawNonce: String? = nil, fullName: PersonNameParts? = nil, requestURI: String? = nil, sessionID: String? = nil,
         pendingToken: String? = nil) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.requestURI = requestURI
        self.sessionID = sessionID
        self._pendingToken = pendingToken
        super.init(provider: providerID)
    }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) {
        coder.encodeString(provider, "provider")
        coder.encodeString(idToken, "idToken")
        coder.encodeString(accessToken, "accessToken")
        coder.encodeString(secret, "secret")
        coder.encodeString(rawNonce, "rawNonce")
        coder.encodeString(requestURI, "requestURI")
        coder.encodeString(sessionID, "sessionID")
        coder.encodeString(pendingToken, "pendingToken")
    }

    public init?(coder: NSCoder) {
        guard let provider = coder.decodeString("provider") else { return nil }
        idToken = coder.decodeString("idToken")
        accessToken = coder.decodeString("accessToken")
        secret = coder.decodeString("secret")
        rawNonce = coder.decodeString("rawNonce")
        fullName = nil
        requestURI = coder.decodeString("requestURI")
        sessionID = coder.decodeString("sessionID")
        _pendingToken = coder.decodeString("pendingToken")
        super.init(provider: provider)
    }

    /// `postBody` of `signInWithIdp`, form-encoded.
    var postBody: String {
        var items = [("providerId", provider)]
        if let idToken { items.append(("id_token", idToken)) }
        if let accessToken { items.append(("access_token", accessToken)) }
        if let secret { items.append(("oauth_token_secret", secret)) }
        if let rawNonce { items.append(("nonce", rawNonce)) }
        if let fullName, let json = try? JSONSerialization.data(withJSONObject: ["name": fullName.json]) {
            items.append(("user", String(decoding: json, as: UTF8.self)))
        }
        return items.map { "\($0.0)=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
    }
}

/// The parts of a person's name, as Sign in with Apple gives them on the first sign-in.
public struct PersonNameParts: Sendable, Equatable {
    public var givenName: String?
    public var familyName: String?
    public var middleName: String?

    public init(givenName: String? = nil, familyName: String? = nil, middleName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
        self.middleName = middleName
    }

    var json: [String: String] {
        var result: [String: String] = [:]
        if let givenName { result["firstName"] = givenName }
        if let familyName { result["lastName"] = familyName }
        if let middleName { result["middleName"] = middleName }
        return result
    }
}

/// A phone number proven by an SMS code (``PhoneAuthProvider/credential(withVerificationID:verificationCode:)``),
/// or the server's proof that a number belongs to another account.
public final class PhoneAuthCredential: AuthCredential, NSSecureCoding, @unchecked Sendable {
    let verificationID: String?
    let verificationCode: String?
    let temporaryProof: String?
    /// The phone number, for a credential made from a temporary proof.
    public let phoneNumber: String?

    init(verificationID: String, verificationCode: String) {
        self.verificationID = verificationID
        self.verificationCode = verificationCode
        self.temporaryProof = nil
        self.phoneNumber = nil
        super.init(provider: PhoneAuthProvider.id)
    }

    init(temporaryProof: String, phoneNumber: String) {
        self.verificationID = nil
        self.verificationCode = nil
        self.temporaryProof = temporaryProof
        self.phoneNumber = phoneNumber
        super.init(provider: PhoneAuthProvider.id)
    }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) {
        coder.encodeString(verificationID, "verificationID")
        coder.encodeString(verificationCode, "verificationCode")
        coder.encodeString(temporaryProof, "temporaryProof")
        coder.encodeString(phoneNumber, "phoneNumber")
    }

    public init?(coder: NSCoder) {
        verificationID = coder.decodeString("verificationID")
        verificationCode = coder.decodeString("verificationCode")
        temporaryProof = coder.decodeString("temporaryProof")
        phoneNumber = coder.decodeString("phoneNumber")
        guard (verificationID != nil && verificationCode != nil) || (temporaryProof != nil && phoneNumber != nil) else {
            return nil
        }
        super.init(provider: PhoneAuthProvider.id)
    }
}

enum FormEncoding {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
