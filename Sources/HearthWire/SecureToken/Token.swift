/// `securetoken.googleapis.com/v1/token`: exchange a refresh token for a new ID token. JSON or form-encoded;
/// the response is snake_case.
public struct TokenRequest: Codable, Sendable, Equatable {
    public var grantType: String?
    public var refreshToken: String?

    public init(grantType: String? = "refresh_token", refreshToken: String?) {
        self.grantType = grantType
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case grantType = "grant_type", refreshToken = "refresh_token"
    }
}

/// `code` is deprecated, and ignored by Google.
extension TokenRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["code"]
}

public struct TokenResponse: Codable, Sendable, Equatable {
    public var idToken: String
    public var accessToken: String
    public var expiresIn: String
    public var tokenType = "Bearer"
    public var refreshToken: String
    public var userId: String
    /// The project *number*.
    public var projectId: String

    public init(idToken: String, expiresIn: String, refreshToken: String, userId: String, projectId: String) {
        self.idToken = idToken
        self.accessToken = idToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.userId = userId
        self.projectId = projectId
    }

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token", accessToken = "access_token", expiresIn = "expires_in"
        case tokenType = "token_type", refreshToken = "refresh_token", userId = "user_id", projectId = "project_id"
    }
}
