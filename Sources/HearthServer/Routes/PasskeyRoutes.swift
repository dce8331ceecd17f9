import HearthCore
import HearthWire
import Hummingbird

/// `v2/accounts/passkeyEnrollment:start|finalize` and `passkeySignIn:start|finalize` (emulator mode; see
/// ``Passkeys``). Removal is `accounts:update` with `deletePasskey` (AccountRoutes).
enum PasskeyRoutes {
    static func startEnrollment(_ call: Call, _ request: StartPasskeyEnrollmentRequest) async throws -> any ResponseGenerator {
        let options = try await call.services.accounts.passkeys.startEnrollment(in: try call.clientProject, idToken: request.idToken)
        return StartPasskeyEnrollmentResponse(relyingParty: options.relyingPartyID, userID: options.userHandle,
                                              userName: options.userName, userDisplayName: options.userDisplayName,
                                              challenge: options.challenge)
    }

    static func finalizeEnrollment(_ call: Call, _ request: FinalizePasskeyEnrollmentRequest) async throws -> any ResponseGenerator {
        let result = try await call.services.accounts.passkeys.finalizeEnrollment(
            in: try call.clientProject, idToken: request.idToken,
            hasResponse: request.authenticatorRegistrationResponse != nil,
            credentialID: request.authenticatorRegistrationResponse?.id, name: request.name, displayName: request.displayName)
        return PasskeyTokensResponse(localId: result.user.localID, idToken: result.tokens.idToken,
                                     refreshToken: result.tokens.refreshToken)
    }

    static func startSignIn(_ call: Call, _ request: StartPasskeySignInRequest) async throws -> any ResponseGenerator {
        let (challenge, relyingParty) = call.services.accounts.passkeys.startSignIn(in: try call.clientProject)
        return StartPasskeySignInResponse(challenge: challenge, relyingParty: relyingParty)
    }

    static func finalizeSignIn(_ call: Call, _ request: FinalizePasskeySignInRequest) async throws -> any ResponseGenerator {
        let outcome = try await call.services.accounts.passkeys.finalizeSignIn(
            in: try call.clientProject, hasResponse: request.authenticatorAuthenticationResponse != nil,
            credentialID: request.authenticatorAuthenticationResponse?.id)
        switch outcome {
        case .signedIn(let result):
            return PasskeyTokensResponse(localId: result.user.localID, idToken: result.tokens.idToken,
                                         refreshToken: result.tokens.refreshToken)
        case .secondFactorRequired(let required):
            return MFARoutes.pending(required)
        }
    }
}
