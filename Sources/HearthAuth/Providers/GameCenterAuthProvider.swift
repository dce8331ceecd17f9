import Foundation

/// Game Center sign-in, as FirebaseAuth's `GameCenterAuthProvider`: the local player's identity-verification
/// signature from GameKit, checked by the server against Apple's key and the app's bundle id (the project's
/// `gc.apple.com` provider, whose `clientId` is the bundle id).
///
/// ```swift
/// GKLocalPlayer.local.authenticateHandler = { _, _ in
///     Task { let result = try await Auth.auth().signIn(with: try await GameCenterAuthProvider.getCredential()) }
/// }
/// ```
///
/// The GameKit half exists on Apple platforms only and has never been compiled here (see docs/hearthauth.md, Porting); the
/// credential and the exchange with the server are the same code on every platform and are tested on Linux.
public final class GameCenterAuthProvider: @unchecked Sendable {
    public static let id = "gc.apple.com"

    private init() {}

    #if canImport(GameKit)
    /// The local player's credential; the player must be authenticated with Game Center first.
    public class func getCredential() async throws -> AuthCredential {
        try await GameKitSignature.credential()
    }

    public class func getCredential(completion: @escaping @MainActor @Sendable (AuthCredential?, (any Error)?) -> Void) {
        deliver(completion) { try await getCredential() }
    }
    #endif
}

/// What GameKit signs for the local player, and the server checks.
final class GameCenterAuthCredential: AuthCredential, @unchecked Sendable {
    let playerID: String
    let teamPlayerID: String?
    let gamePlayerID: String?
    let publicKeyURL: URL
    let signature: Data
    let salt: Data
    /// Milliseconds since 1970, as GameKit gives it.
    let timestamp: UInt64
    let displayName: String?

    init(playerID: String, teamPlayerID: String?, gamePlayerID: String?, publicKeyURL: URL, signature: Data,
         salt: Data, timestamp: UInt64, displayName: String?) {
        self.playerID = playerID
        self.teamPlayerID = teamPlayerID
        self.gamePlayerID = gamePlayerID
        self.publicKeyURL = publicKeyURL
        self.signature = signature
        self.salt = salt
        self.timestamp = timestamp
        self.displayName = displayName
        super.init(provider: GameCenterAuthProvider.id)
    }
}

#if canImport(GameKit)
import GameKit

/// The GameKit call, kept to one function: `fetchItems(forIdentityVerificationSignature:)` (iOS 13.5+, macOS
/// 10.15.5+, tvOS 13.4.5+, watchOS 6.5+).
enum GameKitSignature {
    @MainActor
    static func credential() async throws -> AuthCredential {
        let player = GKLocalPlayer.local
        guard player.isAuthenticated else {
            throw AuthErrorFactory.make(.localPlayerNotAuthenticated, detail: "Authenticate the local player with Game Center first.")
        }
        let (url, signature, salt, timestamp) = try await player.fetchItemsForIdentityVerificationSignature()
        return GameCenterAuthCredential(playerID: player.gamePlayerID, teamPlayerID: player.teamPlayerID,
                                        gamePlayerID: player.gamePlayerID, publicKeyURL: url, signature: signature,
                                        salt: salt, timestamp: timestamp, displayName: player.displayName)
    }
}
#endif
