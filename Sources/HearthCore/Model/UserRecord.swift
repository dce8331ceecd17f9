import Foundation

/// One account, as the store keeps it. Field names follow Firebase's `UserInfo` resource.
///
/// A user is keyed by `(projectID, tenantID, localID)`. Everything that is not needed for lookups lives in
/// `Codable` fields so that backends can keep it in one JSON column next to the indexed ones.
public struct UserRecord: Sendable, Codable, Equatable {
    public var projectID: String
    /// Tenant id, or `nil` for the project's own users. Rows are keyed by it so tenants slot in later.
    public var tenantID: String?
    public var localID: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    /// A self-describing hash string (see ``PasswordHash``), or `nil` for accounts without a password.
    public var passwordHash: String?
    public var passwordUpdatedAt: Date?
    /// Imported with a password identity but no hash: its password is still only at the source project (see
    /// ``LazyPasswordMigration``). Set until a password is stored here.
    public var passwordAtSource: Bool? = nil
    /// Tokens issued before this second are no longer accepted.
    public var validSince: Int64
    /// The precise instant of the last revocation (password or email change). Refresh tokens created before it
    /// fail with `TOKEN_EXPIRED`; `validSince` alone is whole seconds and would let a same-second token through.
    public var tokensValidAfter: Date?
    public var disabled: Bool
    public var createdAt: Date
    public var lastLoginAt: Date?
    public var lastRefreshAt: Date?
    /// The JSON object of custom claims, as Firebase's `customAttributes` string.
    public var customAttributes: String?
    /// Linked identities other than the password provider (federated, phone, …).
    public var providers: [ProviderUserInfo]
    /// Whether the user has signed in with an email link (Firebase's `emailLinkSignin`); `nil` means never.
    public var emailLinkSignin: Bool?
    /// The IdP's handle (Twitter's, GitHub's login), copied at sign-up with an IdP as Firebase does.
    public var screenName: String? = nil
    /// The address the account had before its first email change (Firebase's `initialEmail`).
    public var initialEmail: String? = nil
    /// Enrolled second factors (`nil` for none; read through ``enrollments``). Emulator mode keeps `[]` after the
    /// last factor is withdrawn, as Firebase's emulator does.
    public var mfaEnrollments: [MFAEnrollment]?
    /// Passkeys (`passkeyInfo`), oldest first; `nil` for none.
    public var passkeys: [PasskeyCredential]? = nil
    /// Set when the account was created by an anonymous sign-up; `nil` otherwise. Read through ``isAnonymous``.
    public var anonymousSignUp: Bool? = nil
    /// Signed in with a custom token at least once (Firebase's `customAuth`): a credential, so not anonymous.
    public var customAuth: Bool? = nil
    /// How many times the stored account has been written (`nil`: never since it was created). Every
    /// ``IdentityStore/updateUser(_:uniqueEmail:revokeRefreshTokens:)`` compares it with the stored one and
    /// moves it on, so a change based on a stale read fails instead of silently undoing another.
    public var version: Int64?

    /// Enrolled second factors, oldest first.
    public var enrollments: [MFAEnrollment] {
        get { mfaEnrollments ?? [] }
        set { mfaEnrollments = newValue.isEmpty ? nil : newValue }
    }

    public init(
        projectID: String, tenantID: String? = nil, localID: String, email: String? = nil,
        emailVerified: Bool = false, displayName: String? = nil, photoURL: String? = nil,
        phoneNumber: String? = nil, passwordHash: String? = nil, passwordUpdatedAt: Date? = nil,
        validSince: Int64, disabled: Bool = false, createdAt: Date, lastLoginAt: Date? = nil,
        lastRefreshAt: Date? = nil, customAttributes: String? = nil, providers: [ProviderUserInfo] = []
    ) {
        self.projectID = projectID
        self.tenantID = tenantID
        self.localID = localID
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.passwordHash = passwordHash
        self.passwordUpdatedAt = passwordUpdatedAt
        self.validSince = validSince
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.lastRefreshAt = lastRefreshAt
        self.customAttributes = customAttributes
        self.providers = providers
    }

    /// Anonymous, as Firebase means it: signed up anonymously, and no credential of any kind since (no email or
    /// password, phone, linked provider, passkey or custom-token sign-in). The one definition auto-delete, the
    /// console, `hearth users list` and the wire read. A custom-token account is not anonymous: it never was.
    public var isAnonymous: Bool {
        anonymousSignUp == true && email == nil && !hasEmailCredential && phoneNumber == nil && providers.isEmpty
            && (passkeys ?? []).isEmpty && customAuth != true
    }

    /// The normalized email used for lookups and uniqueness.
    public var normalizedEmail: String? { email.map(EmailAddress.normalized) }

    /// Whether the email is a sign-in identity: a password or an email link.
    public var hasEmailCredential: Bool { passwordHash != nil || emailLinkSignin == true }

    /// Provider entries as Firebase reports them in `providerUserInfo`: the password provider first (email-link
    /// users are listed under it too, as Firebase lists them), then a `phone` entry for a phone number.
    public var providerUserInfo: [ProviderUserInfo] {
        var result: [ProviderUserInfo] = []
        if hasEmailCredential, let email {
            result.append(ProviderUserInfo(providerID: "password", rawID: email, federatedID: email, email: email,
                                           displayName: displayName, photoURL: photoURL))
        }
        if let phoneNumber, !providers.contains(where: { $0.providerID == "phone" }) {
            result.append(ProviderUserInfo(providerID: "phone", rawID: phoneNumber, phoneNumber: phoneNumber))
        }
        return result + providers
    }

    /// The `firebase.identities` claim: provider id → identifiers (password users are listed under `email`).
    public var identities: [String: [String]] {
        var map: [String: [String]] = [:]
        if let email, hasEmailCredential || providers.contains(where: { $0.email == email }) {
            map["email"] = [email]
        }
        if let phoneNumber { map["phone"] = [phoneNumber] }
        for provider in providers where provider.providerID != "phone" {
            map[provider.providerID, default: []].append(provider.rawID)
        }
        return map
    }
}

/// One linked identity: Firebase's `ProviderUserInfo`.
public struct ProviderUserInfo: Sendable, Codable, Equatable {
    public var providerID: String
    public var rawID: String
    public var federatedID: String?
    public var email: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var screenName: String?

    public init(providerID: String, rawID: String, federatedID: String? = nil, email: String? = nil,
                displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil,
                screenName: String? = nil) {
        self.providerID = providerID
        self.rawID = rawID
        self.federatedID = federatedID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }
}
