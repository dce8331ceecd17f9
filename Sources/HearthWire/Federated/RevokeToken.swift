/// `v2/accounts:revokeToken`: revokes a token the identity provider issued (Sign in with Apple's account-deletion
/// requirement). `tokenType` comes as the enum's name (`CODE`, `REFRESH_TOKEN`, `ACCESS_TOKEN`) from the web SDKs
/// and as its number (3, 1, 2) from the iOS SDK.
public struct RevokeTokenRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var providerId: String?
    public var tokenType: String?
    public var token: String?
    public var redirectUri: String?
    public var tenantId: String?

    public init(idToken: String?, providerId: String?, tokenType: String?, token: String?, redirectUri: String? = nil,
                tenantId: String? = nil) {
        self.tenantId = tenantId
        self.idToken = idToken
        self.providerId = providerId
        self.tokenType = tokenType
        self.token = token
        self.redirectUri = redirectUri
    }
}

