import Foundation

/// The options a client hands the authenticator to create a passkey (`passkeyEnrollment:start`).
public struct PasskeyCreationOptions: Sendable, Equatable {
    public var relyingPartyID: String
    /// The WebAuthn user handle: the account's local id.
    public var userHandle: String
    public var userName: String
    public var userDisplayName: String
    public var challenge: String
}

/// Passkeys (WebAuthn credentials): enrollment by a signed-in user, sign-in by credential, removal through
/// `accounts:update` (`deletePasskey`).
///
/// Emulator mode answers as Firebase's emulator does: a mock that records the credential id it is given and
/// checks no signature and no challenge. Production does not serve these calls yet (the route table refuses them):
/// an unverified credential must never sign anyone in.
public struct Passkeys: UseCase {
    public let context: AccountContext
    public init(context: AccountContext) { self.context = context }

    /// The emulator's relying party.
    static let emulatorRelyingParty = "localhost"

    /// `passkeyEnrollment:start`: options for the signed-in user's new credential.
    public func startEnrollment(in project: ProjectContext, idToken: String?) async throws -> PasskeyCreationOptions {
        let (user, _) = try await authenticate(idToken, in: project)
        return PasskeyCreationOptions(
            relyingPartyID: Self.emulatorRelyingParty, userHandle: Data(user.localID.utf8).base64EncodedString(),
            userName: user.email ?? "user@example.com", userDisplayName: user.displayName ?? "User",
            challenge: SecureRandom.token())
    }

    /// `passkeyEnrollment:finalize`: the credential is added to the signed-in user (named `name`, else
    /// `displayName`, else "Unnamed Passkey"), and a passkey session begins. A credential id another account holds
    /// is `CREDENTIAL_ALREADY_IN_USE`.
    public func finalizeEnrollment(in project: ProjectContext, idToken: String?, hasResponse: Bool,
                                   credentialID: String?, name: String?, displayName: String?) async throws -> SignInResult {
        guard let idToken, !idToken.isEmpty else { throw AuthFailure.missingIDToken }
        guard hasResponse else { throw AuthFailure.missingAuthenticatorResponse }
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .linkCredential)
        guard let credentialID, !credentialID.isEmpty, credentialID.utf8.count <= 1024 else {
            throw AuthFailure.invalidCredentialID
        }
        let label = [name, displayName].compactMap { $0 }.first { !$0.isEmpty } ?? "Unnamed Passkey"
        let now = clock.now()
        let user: UserRecord
        do {
            user = try await modifyUser(stored, in: project, session: claims) { user in
                if (user.passkeys ?? []).contains(where: { $0.credentialID == credentialID }) {
                    throw AuthFailure.credentialAlreadyInUse
                }
                user.passkeys = (user.passkeys ?? []) + [PasskeyCredential(credentialID: credentialID, name: label, createdAt: now)]
            }
        } catch AuthFailure.federatedUserIDAlreadyLinked {
            throw AuthFailure.credentialAlreadyInUse  // held by another account: the store's identity index said so
        }
        return try await completeSignIn(user, provider: PasskeyCredential.providerID, in: project, now: now,
                                        .reissued(secondFactor: nil, secondFactorID: nil)).signedIn()
    }

    /// `accounts:update` with `deletePasskey`: the named credentials leave the signed-in user (ids it does not hold
    /// are ignored, as Firebase's emulator ignores them). Like unlinking a provider, it needs a recent sign-in: a
    /// stolen session must not remove the owner's way back in.
    public func delete(in project: ProjectContext, idToken: String?, credentialIDs: [String]) async throws -> UserRecord {
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .unlinkProvider)
        return try await modifyUser(stored, in: project, session: claims) { user in
            let kept = (user.passkeys ?? []).filter { !credentialIDs.contains($0.credentialID) }
            user.passkeys = kept.isEmpty ? nil : kept
        }
    }

    /// `passkeySignIn:start`: a challenge for any of the project's passkeys (discoverable credentials).
    public func startSignIn(in project: ProjectContext) -> (challenge: String, relyingPartyID: String) {
        (SecureRandom.token(), Self.emulatorRelyingParty)
    }

    /// `passkeySignIn:finalize`: the account holding the credential signs in with provider `passkey`.
    public func finalizeSignIn(in project: ProjectContext, hasResponse: Bool, credentialID: String?) async throws
        -> SignInOutcome
    {
        guard hasResponse else { throw AuthFailure.missingAuthenticatorResponse }
        guard let credentialID, !credentialID.isEmpty, credentialID.utf8.count <= 1024 else {
            throw AuthFailure.invalidCredentialID
        }
        guard let user = try await store.user(projectID: project.id, tenantID: project.tenantID,
                                              providerID: PasskeyCredential.providerID, rawID: credentialID)
        else { throw AuthFailure.passkeyCredentialNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        let now = clock.now()
        let stamp = SignInStamp(projectID: project.id, tenantID: user.tenantID, localID: user.localID, at: now, signedIn: true)
        return try await completeSignIn(user, provider: PasskeyCredential.providerID, in: project, now: now,
                                        .firstFactor(stamp: stamp))
    }
}
