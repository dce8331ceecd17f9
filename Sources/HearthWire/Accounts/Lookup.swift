/// `accounts:lookup` (v3 `getAccountInfo`) with the signed-in user's `idToken`.
public struct LookupRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var tenantId: String?
    /// Admin lookups (`projects/{id}/accounts:lookup`): by uid and by email.
    public var localId: [String]?
    public var email: [String]?
    public var phoneNumber: [String]?
    public var federatedUserId: [FederatedUserID]?

    public struct FederatedUserID: Codable, Sendable, Equatable {
        public var providerId: String?
        public var rawId: String?
    }

    public init(idToken: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.tenantId = tenantId
    }

    /// An admin lookup by uid, email or phone number.
    public init(localId: [String]? = nil, email: [String]? = nil, phoneNumber: [String]? = nil) {
        self.localId = localId
        self.email = email
        self.phoneNumber = phoneNumber
    }
}

extension LookupRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["delegatedProjectNumber", "targetProjectId"]
}

public struct LookupResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#GetAccountInfoResponse"
    /// Omitted (not empty) when nothing matched, as Firebase does.
    public var users: [UserInfo]?

    public init(users: [UserInfo]?) { self.users = users }
}

/// Firebase's `UserInfo` resource. Timestamps follow Google's mapping: `createdAt`/`lastLoginAt` are epoch
/// milliseconds as strings, `validSince` epoch seconds as a string, `passwordUpdatedAt` a number of
/// milliseconds, `lastRefreshAt` RFC 3339.
public struct UserInfo: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var disabled: Bool?
    /// Always redacted (`UkVEQUNURUQ=`, base64 of "REDACTED") outside of exports.
    public var passwordHash: String?
    public var salt: String?
    public var passwordUpdatedAt: Double?
    public var validSince: String?
    public var lastLoginAt: String?
    public var createdAt: String?
    public var lastRefreshAt: String?
    public var customAttributes: String?
    public var providerUserInfo: [ProviderUserInfoWire]?
    public var mfaInfo: [MFAInfoWire]?
    public var passkeyInfo: [PasskeyInfoWire]?
    public var tenantId: String?
    public var screenName: String?
    /// The address before the first email change.
    public var initialEmail: String?
    /// Present (true) once the user has signed in with an email link.
    public var emailLinkSignin: Bool?
    /// Present (true) once the user has signed in with a custom token ("authenticated by the developer").
    public var customAuth: Bool?

    public init(localId: String) { self.localId = localId }

    /// base64("REDACTED"): what production Firebase returns instead of a password hash.
    public static let redactedPasswordHash = "UkVEQUNURUQ="
}

/// One entry of `providerUserInfo`.
public struct ProviderUserInfoWire: Codable, Sendable, Equatable {
    public var providerId: String
    public var rawId: String?
    public var federatedId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var screenName: String?

    public init(providerId: String, rawId: String?, federatedId: String?, email: String?, displayName: String?,
                photoUrl: String?, phoneNumber: String?, screenName: String?) {
        self.providerId = providerId
        self.rawId = rawId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }
}
