import Foundation
import HearthWire

/// A user's profile at one provider (``User/providerData``), or the Firebase user itself.
///
/// ```swift
/// for info in Auth.auth().currentUser?.providerData ?? [] { print(info.providerID, info.uid) }
/// ```
public protocol UserInfo: Sendable {
    var providerID: String { get }
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

/// One linked provider's profile, as the server reports it.
struct ProviderInfo: UserInfo, Codable, Equatable {
    var providerID: String
    var uid: String
    var displayName: String?
    var photoURL: URL?
    var email: String?
    var phoneNumber: String?

    init(_ wire: ProviderUserInfoWire) {
        providerID = wire.providerId
        uid = wire.rawId ?? wire.federatedId ?? wire.email ?? wire.phoneNumber ?? ""
        displayName = wire.displayName
        photoURL = wire.photoUrl.flatMap(URL.init(string:))
        email = wire.email
        phoneNumber = wire.phoneNumber
    }
}

/// When the account was created and last signed in.
public struct UserMetadata: Sendable, Equatable, Codable {
    public var creationDate: Date?
    public var lastSignInDate: Date?
}

/// What a sign-in returns: the user, what the provider said, and the provider's credential.
///
/// ```swift
/// let result = try await Auth.auth().signIn(with: credential)
/// print(result.user.uid, result.additionalUserInfo?.isNewUser ?? false)
/// ```
public final class AuthDataResult: NSObject, NSSecureCoding, @unchecked Sendable {
    public let user: User
    public let additionalUserInfo: AdditionalUserInfo?
    /// The provider's tokens (OAuth sign-ins only).
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo?, credential: OAuthCredential? = nil) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
    }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) {
        coder.encode(user, forKey: "user")
        coder.encode(additionalUserInfo, forKey: "additionalUserInfo")
        coder.encode(credential, forKey: "credential")
    }

    public init?(coder: NSCoder) {
        guard let user = coder.decodeObjectIfPresent(of: User.self, forKey: "user") else { return nil }
        self.user = user
        additionalUserInfo = coder.decodeObjectIfPresent(of: AdditionalUserInfo.self, forKey: "additionalUserInfo")
        credential = coder.decodeObjectIfPresent(of: OAuthCredential.self, forKey: "credential")
    }
}

/// The provider's view of a sign-in.
public final class AdditionalUserInfo: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The provider of the sign-in; empty for anonymous and custom-token sign-ins, as in FirebaseAuth.
    public let providerID: String
    /// The provider's profile (its `rawUserInfo`), as JSON values.
    public let profile: [String: Any]?
    /// The provider's user name (Twitter/X, GitHub).
    public let username: String?
    /// Whether this sign-in created the account.
    public let isNewUser: Bool

    init(providerID: String?, profile: [String: Any]? = nil, username: String? = nil, isNewUser: Bool) {
        self.providerID = providerID ?? ""
        self.profile = profile
        self.username = username
        self.isNewUser = isNewUser
    }

    /// ``isNewUser`` as a method, FirebaseAuth's Objective-C-era spelling.
    public func newUser() -> Bool { isNewUser }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) {
        coder.encodeString(providerID, "providerID")
        if let profile, let data = try? JSONSerialization.data(withJSONObject: profile) { coder.encode(data as NSData, forKey: "profile") }
        coder.encodeString(username, "username")
        coder.encode(isNewUser, forKey: "isNewUser")
    }

    public init?(coder: NSCoder) {
        guard let providerID = coder.decodeString("providerID") else { return nil }
        self.providerID = providerID
        profile = coder.decodeObjectIfPresent(of: NSData.self, forKey: "profile").flatMap {
            try? JSONSerialization.jsonObject(with: Data(referencing: $0)) as? [String: Any]
        }
        username = coder.decodeString("username")
        isNewUser = coder.decodeBool(forKey: "isNewUser")
    }
}

/// An ID token and its claims, read without verifying the signature (a client cannot; servers verify).
///
/// ```swift
/// let result = try await user.getIDTokenResult(forcingRefresh: false)
/// if result.claims["admin"] as? Bool == true { … }
/// ```
public final class AuthTokenResult: NSObject, NSSecureCoding, @unchecked Sendable {
    public let token: String
    public let expirationDate: Date
    /// When the user last signed in (the `auth_time` claim); unchanged by refreshes, so a server can ask for a
    /// recent sign-in before a sensitive action.
    public let authDate: Date
    /// `authDate` under the claim's name, for code written against the JavaScript SDK's `authTime`.
    public var authTime: Date { authDate }
    public let issuedAtDate: Date
    public let signInProvider: String
    public let signInSecondFactor: String
    public let claims: [String: Any]

    init(token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw AuthErrorFactory.make(.malformedJWT, detail: "The ID token is not a JWT.") }
        func date(_ key: String) -> Date {
            Date(timeIntervalSince1970: (claims[key] as? NSNumber)?.doubleValue ?? 0)
        }
        self.token = token
        self.claims = claims
        expirationDate = date("exp")
        authDate = date("auth_time")
        issuedAtDate = date("iat")
        let firebase = claims["firebase"] as? [String: Any]
        signInProvider = firebase?["sign_in_provider"] as? String ?? ""
        signInSecondFactor = firebase?["sign_in_second_factor"] as? String ?? ""
    }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) { coder.encodeString(token, "token") }

    /// Read again from the token (its claims are the token's).
    public convenience init?(coder: NSCoder) {
        guard let token = coder.decodeString("token") else { return nil }
        try? self.init(token: token)
    }
}
