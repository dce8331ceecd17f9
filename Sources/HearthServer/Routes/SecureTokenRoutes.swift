import HearthCore
import HearthWire
import Hummingbird

/// `securetoken.googleapis.com/v1/token`.
enum SecureTokenRoutes {
    static func token(_ call: Call, _ request: TokenRequest) async throws -> any ResponseGenerator {
        guard let grantType = request.grantType, !grantType.isEmpty else { throw AuthFailure.missingGrantType }
        guard grantType == "refresh_token" else { throw AuthFailure.invalidGrantType }
        guard let refreshToken = request.refreshToken, !refreshToken.isEmpty else {
            throw AuthFailure.missingRefreshToken
        }
        let project = try call.clientProject
        let result = try await call.services.accounts.sessions.refresh(in: project, refreshToken: refreshToken)
        return TokenResponse(idToken: result.tokens.idToken, expiresIn: String(result.tokens.expiresIn),
                             refreshToken: result.tokens.refreshToken, userId: result.user.localID,
                             projectId: call.projectNumber(project))
    }
}
