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
    public var linkProviderUserInfo: ProviderUserInfoWire?
    /// `mfa.enrollments`: the second factors to set (an empty list removes them all).
    public var mfaEnrollments: [MFAInfoWire]?
}

extension UpdateAccountRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        email = try body.string("email")
        password = try body.string("password")
        displayName = try body.string("displayName")
        photoUrl = try body.string("photoUrl")
        if let names = try body.strings("deleteAttribute") {
            var attributes: [Attribute] = []
            for (index, name) in names.enumerated() {
                guard let attribute = Attribute(rawValue: name) else {
                    throw .wrongType(path: "/deleteAttribute/\(index)", expected: "equal to one of the allowed values")
                }
                attributes.append(attribute)
            }
            deleteAttribute = attributes
        }
        deleteProvider = try body.strings("deleteProvider")
        oobCode = try body.string("oobCode")
        tenantId = try body.string("tenantId")
        returnSecureToken = try body.bool("returnSecureToken")
        localId = try body.string("localId")
        customAttributes = try body.string("customAttributes")
        disableUser = try body.bool("disableUser")
        emailVerified = try body.bool("emailVerified")
        validSince = try body.int64("validSince")
        phoneNumber = try body.string("phoneNumber")
        if var link = try body.object("linkProviderUserInfo") {
            linkProviderUserInfo = ProviderUserInfoWire(
                providerId: try link.string("providerId") ?? "", rawId: try link.string("rawId"),
                federatedId: try link.string("federatedId"), email: try link.string("email"),
                displayName: try link.string("displayName"), photoUrl: try link.string("photoUrl"),
                phoneNumber: try link.string("phoneNumber"), screenName: try link.string("screenName"))
            body.absorb(link)
        }
        if var mfa = try body.object("mfa") {
            if mfa.isNull("enrollments") { throw .wrongType(path: "/mfa/enrollments", expected: "array") }
            var enrollments: [MFAInfoWire] = []
            for var entry in try mfa.objects("enrollments") ?? [] {
                enrollments.append(try MFAInfoWire.read(&entry))
                mfa.absorb(entry)
            }
            mfaEnrollments = enrollments
            body.absorb(mfa)
        }
        body.ignore("captchaChallenge", "captchaResponse", "instanceId", "delegatedProjectNumber", "targetProjectId")
    }
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
