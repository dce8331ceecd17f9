/// `v2/accounts:revokeToken`: revokes a token the identity provider issued (Sign in with Apple's account-deletion
/// requirement). `tokenType` comes as the enum's name (`CODE`, `REFRESH_TOKEN`, `ACCESS_TOKEN`) from the web SDKs
/// and as its number (3, 1, 2) from the iOS SDK.
public struct RevokeTokenRequest: Sendable, Equatable {
    public var idToken: String?
    public var providerId: String?
    public var tokenType: String?
    public var token: String?
    public var redirectUri: String?

    public init(idToken: String?, providerId: String?, tokenType: String?, token: String?, redirectUri: String? = nil) {
        self.idToken = idToken
        self.providerId = providerId
        self.tokenType = tokenType
        self.token = token
        self.redirectUri = redirectUri
    }
}

extension RevokeTokenRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        providerId = try body.string("providerId")
        tokenType = try body.string("tokenType")
        token = try body.string("token")
        redirectUri = try body.string("redirectUri")
        body.ignore("tenantId")
    }
}
