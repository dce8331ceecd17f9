import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `v2/accounts/passkeyEnrollment:start|finalize` and `passkeySignIn:start|finalize` (see ``Passkeys``: verified
/// WebAuthn in production, the emulator's mock in emulator mode), and `v2/projects/{project}/passkeyConfig` (and a
/// tenant's), the relying party. Removal is `accounts:update` with `deletePasskey` (AccountRoutes).
enum PasskeyRoutes {
    static func startEnrollment(_ call: Call, _ request: StartPasskeyEnrollmentRequest) async throws -> any ResponseGenerator {
        let options = try await call.services.accounts.passkeys.startEnrollment(in: try call.clientProject, idToken: request.idToken)
        return StartPasskeyEnrollmentResponse(
            relyingParty: options.relyingPartyID, userID: options.userHandle, userName: options.userName,
            userDisplayName: options.userDisplayName, challenge: options.challenge,
            verified: call.configuration.isEmulator ? nil : (options.excludeCredentials, options.userVerification))
    }

    static func finalizeEnrollment(_ call: Call, _ request: FinalizePasskeyEnrollmentRequest) async throws -> any ResponseGenerator {
        let result = try await call.services.accounts.passkeys.finalizeEnrollment(
            in: try call.clientProject, idToken: request.idToken, response: request.authenticatorRegistrationResponse.map(response),
            name: request.name, displayName: request.displayName)
        return PasskeyTokensResponse(result)
    }

    static func startSignIn(_ call: Call, _ request: StartPasskeySignInRequest) async throws -> any ResponseGenerator {
        let (challenge, party) = try await call.services.accounts.passkeys.startSignIn(in: try call.clientProject)
        return StartPasskeySignInResponse(challenge: challenge, relyingParty: party.id,
                                          userVerification: party.requireUserVerification ? "required" : "preferred")
    }

    static func finalizeSignIn(_ call: Call, _ request: FinalizePasskeySignInRequest) async throws -> any ResponseGenerator {
        let outcome = try await call.services.accounts.passkeys.finalizeSignIn(
            in: try call.clientProject, response: request.authenticatorAuthenticationResponse.map(response))
        switch outcome {
        case .signedIn(let result):
            return PasskeyTokensResponse(result)
        case .secondFactorRequired(let required):
            return SecondFactorRequiredResponse(required)
        }
    }

    static func response(_ wire: AuthenticatorResponse) -> PasskeyResponse {
        PasskeyResponse(credentialID: wire.id ?? wire.rawId, clientDataJSON: wire.response?.clientDataJSON,
                        attestationObject: wire.response?.attestationObject,
                        authenticatorData: wire.response?.authenticatorData, signature: wire.response?.signature,
                        userHandle: wire.response?.userHandle)
    }

    // MARK: passkeyConfig

    static func getConfig(_ call: Call) async throws -> Response {
        let (project, tenant) = try await owner(call)
        return json(resource(tenant.map { $0.passkeys } ?? project.record.settings.passkeys, call: call))
    }

    /// Sets the fields `updateMask` names (all the body has without one); the result must be a whole, valid config.
    static func patchConfig(_ call: Call) async throws -> Response {
        let patch = try call.decode(PasskeyConfigResource.self)
        let writable = Set(PasskeyConfigResource.paths)
        let paths = try UpdateMask(call).resolved(expand: { writable.contains($0) ? [$0] : [] }, writable: writable, lenient: false)
            ?? Set(patch.presentPaths)
        func apply(_ current: PasskeyConfig?) throws -> PasskeyConfig {
            var config = current ?? PasskeyConfig(rpID: "", expectedOrigins: [])
            if paths.contains("rpId") { config.rpID = patch.rpId ?? "" }
            if paths.contains("expectedOrigins") { config.expectedOrigins = patch.expectedOrigins ?? [] }
            if paths.contains("requireUserVerification") { config.requireUserVerification = patch.requireUserVerification }
            return try config.validated()
        }
        let (project, tenant) = try await owner(call)
        if let tenant {
            guard let updated = try await call.services.accounts.tenants.modify(tenant.id, in: project, { $0.passkeys = try apply($0.passkeys) })
            else { throw APIError.business(.tenantNotFound) }
            return json(resource(updated.passkeys, call: call))
        }
        let updated = try await call.services.projects.modify(project.id) { $0.settings.passkeys = try apply($0.settings.passkeys) }
        return json(resource(updated.record.settings.passkeys, call: call))
    }

    private static func owner(_ call: Call) async throws -> (ProjectContext, TenantRecord?) {
        let project = try await call.adminProject(nil)
        guard call.parameter("tenantID") != nil else { return (project, nil) }
        return (project, try await TenantRoutes.tenant(call))
    }

    private static func resource(_ config: PasskeyConfig?, call: Call) -> PasskeyConfigResource {
        let owner = call.request.uri.path.split(separator: "/").drop { $0 != "projects" }.dropLast().joined(separator: "/")
        guard let config else { return PasskeyConfigResource(name: owner + "/passkeyConfig", rpId: nil, expectedOrigins: nil,
                                                             requireUserVerification: nil) }
        return PasskeyConfigResource(config, name: owner + "/passkeyConfig")
    }
}
