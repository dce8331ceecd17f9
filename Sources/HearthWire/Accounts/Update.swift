/// `accounts:update` (v3 `setAccountInfo`) by the signed-in user: profile, email and password changes.
public struct UpdateAccountRequest: Codable, Sendable, Equatable {
    /// Attributes `deleteAttribute` may name.
    public enum Attribute: String, Codable, Sendable, CaseIterable {
        case displayName = "DISPLAY_NAME"
        case photoURL = "PHOTO_URL"
        case email = "EMAIL"
        case password = "PASSWORD"
        case provider = "PROVIDER"
        case rawUserInfo = "RAW_USER_INFO"
    }

    public var idToken: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var deleteAttribute: [Attribute]?
    public var deleteProvider: [String]?
    /// Credential ids of passkeys to remove.
    public var deletePasskey: [String]?
    public var oobCode: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?

    public init(idToken: String?, email: String? = nil, password: String? = nil, displayName: String? = nil,
                photoUrl: String? = nil, deleteAttribute: [Attribute]? = nil, returnSecureToken: Bool? = true) {
        self.idToken = idToken
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.deleteAttribute = deleteAttribute
        self.returnSecureToken = returnSecureToken
    }
    /// Admin-only fields (`projects/{id}/accounts:update`).
    public var localId: String?
    public var customAttributes: String?
    public var disableUser: Bool?
    public var emailVerified: Bool?
    public var validSince: Int64?
    public var phoneNumber: String?
    /// Links a federated identity given by the administrator (Admin SDKs' `providerToLink`).
    public var linkProviderUserInfo: ProviderUserInfoInput?
    /// `mfa.enrollments`: the second factors to set (an empty list removes them all).
    public var mfa: MFAUpdate?
    public var mfaEnrollments: [MFAInfoWire]? { mfa?.enrollments }

    public struct MFAUpdate: Codable, Sendable, Equatable {
        public var enrollments: [MFAInfoWire]
        public init(enrollments: [MFAInfoWire]) { self.enrollments = enrollments }
    }
}

extension UpdateAccountRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["captchaChallenge", "captchaResponse", "instanceId", "delegatedProjectNumber",
                                           "targetProjectId"]
}

public struct UpdateAccountResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#SetAccountInfoResponse"
    public var localId: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var passwordHash: String?
    public var providerUserInfo: [ProviderUserInfoWire]?
    public var newEmail: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?

    public init(localId: String) { self.localId = localId }
}
