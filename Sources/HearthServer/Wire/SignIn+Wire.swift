import Foundation
import HearthCore
import HearthWire
import Hummingbird

// The answers of the first-factor sign-in routes, from the use cases' `SignInResult`. The second-factor challenge
// every one of them may answer instead is `SecondFactorRequiredResponse` (MFA+Wire.swift).

extension SignUpResponse {
    init(_ result: AccountContext.SignInResult) {
        self.init(localId: result.user.localID, email: result.user.email, displayName: result.user.displayName,
                  idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                  expiresIn: String(result.tokens.expiresIn))
    }
}

extension SignInWithPasswordResponse {
    init(_ result: AccountContext.SignInResult) {
        self.init(localId: result.user.localID, email: result.user.email, displayName: result.user.displayName,
                  profilePicture: result.user.photoURL, idToken: result.tokens.idToken,
                  refreshToken: result.tokens.refreshToken, expiresIn: String(result.tokens.expiresIn))
    }
}

extension SignInWithCustomTokenResponse {
    init(_ result: AccountContext.SignInResult) {
        self.init(isNewUser: result.isNewUser, idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                  expiresIn: String(result.tokens.expiresIn))
    }
}

extension SignInWithGameCenterResponse {
    /// The player's ids are echoed from the request, as Firebase does.
    init(_ result: AccountContext.SignInResult, for request: SignInWithGameCenterRequest) {
        self.init(localId: result.user.localID, playerId: request.playerId, teamPlayerId: request.teamPlayerId,
                  gamePlayerId: request.gamePlayerId, displayName: result.user.displayName, isNewUser: result.isNewUser,
                  idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                  expiresIn: String(result.tokens.expiresIn))
    }
}

extension AccountContext.SignInOutcome {
    /// The answer to a first-factor sign-in: `signedIn`'s response with tokens, else the pending credential.
    func response(_ signedIn: (AccountContext.SignInResult) -> any ResponseGenerator) -> any ResponseGenerator {
        switch self {
        case .signedIn(let result): signedIn(result)
        case .secondFactorRequired(let required): SecondFactorRequiredResponse(required)
        }
    }
}
