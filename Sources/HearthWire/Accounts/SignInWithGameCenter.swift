/// `accounts:signInWithGameCenter`: Game Center's identity-verification signature for the local player, as
/// FirebaseAuth's `GameCenterAuthProvider` sends it (`signature` and `salt` base64, `timestamp` in milliseconds).
///
/// ```json
/// { "playerId": "G:123", "teamPlayerId": "T:456", "gamePlayerId": "A:789", "displayName": "Ada",
///   "publicKeyUrl": "https://static.gc.apple.com/public-key/gc-prod-10.cer", "signature": "…", "salt": "…",
///   "timestamp": 1732450000000 }
/// ```
public struct SignInWithGameCenterRequest: Codable, Sendable, Equatable {
    public var playerId: String?
    public var teamPlayerId: String?
    public var gamePlayerId: String?
    public var displayName: String?
    public var publicKeyUrl: String?
    public var signature: String?
    public var salt: String?
    public var timestamp: Int64?
    /// Links Game Center to this signed-in user instead of signing in.
    public var idToken: String?
    public var tenantId: String?

    public init(playerId: String?, teamPlayerId: String?, gamePlayerId: String?, displayName: String?,
                publicKeyUrl: String?, signature: String?, salt: String?, timestamp: Int64?, idToken: String? = nil,
                tenantId: String? = nil) {
        self.playerId = playerId
        self.teamPlayerId = teamPlayerId
        self.gamePlayerId = gamePlayerId
        self.displayName = displayName
        self.publicKeyUrl = publicKeyUrl
        self.signature = signature
        self.salt = salt
        self.timestamp = timestamp
        self.idToken = idToken
        self.tenantId = tenantId
    }
}

extension SignInWithGameCenterRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["returnSecureToken"]
}

public struct SignInWithGameCenterResponse: Codable, Sendable, Equatable {
    public var localId: String
    public var playerId: String?
    public var teamPlayerId: String?
    public var gamePlayerId: String?
    public var displayName: String?
    public var isNewUser: Bool
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: String
    /// A multi-factor user's first-factor answer: no tokens, the pending credential and the factors to pick from.
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAInfoWire]?

    public init(localId: String, playerId: String?, teamPlayerId: String?, gamePlayerId: String?, displayName: String?,
                isNewUser: Bool, idToken: String, refreshToken: String, expiresIn: String) {
        self.localId = localId
        self.playerId = playerId
        self.teamPlayerId = teamPlayerId
        self.gamePlayerId = gamePlayerId
        self.displayName = displayName
        self.isNewUser = isNewUser
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
