import Foundation
import HearthWire

/// A passkey of the user (FirebaseAuth's `PasskeyInfo`): its name and the credential id the server knows it by.
public final class PasskeyInfo: NSObject, Sendable {
    public let name: String?
    public let credentialID: String?

    init(_ wire: PasskeyInfoWire) {
        name = wire.name
        credentialID = wire.credentialId
    }
}

/// What an authenticator needs to make a passkey for the signed-in user. On Apple platforms
/// `User.startPasskeyEnrollment(withName:)` turns it into AuthenticationServices' registration request; elsewhere it
/// goes to the authenticator as it is (`relyingPartyIdentifier`, `challenge`, `userID`, `name`).
public struct PasskeyRegistrationOptions: Sendable, Equatable {
    public let relyingPartyIdentifier: String
    public let challenge: Data
    public let userID: Data
    public let name: String
}

/// What an authenticator answered to ``PasskeyRegistrationOptions``: AuthenticationServices'
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration`, as raw data.
public struct PasskeyRegistration: Sendable, Equatable {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    public let rawAttestationObject: Data

    public init(credentialID: Data, rawClientDataJSON: Data, rawAttestationObject: Data) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
    }
}

/// What an authenticator needs to sign in with any of the project's passkeys.
public struct PasskeyAssertionOptions: Sendable, Equatable {
    public let relyingPartyIdentifier: String
    public let challenge: Data
}

/// What an authenticator answered to ``PasskeyAssertionOptions``: AuthenticationServices'
/// `ASAuthorizationPlatformPublicKeyCredentialAssertion`, as raw data.
public struct PasskeyAssertion: Sendable, Equatable {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    public let rawAuthenticatorData: Data
    public let signature: Data
    public let userID: Data

    public init(credentialID: Data, rawClientDataJSON: Data, rawAuthenticatorData: Data, signature: Data, userID: Data) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
    }
}

extension User {
    /// The user's passkeys, as the server listed them at the last sign-in or reload.
    public var enrolledPasskeys: [PasskeyInfo]? { snapshot.passkeys.map(PasskeyInfo.init) }

    /// FirebaseAuth's name when the app gives none.
    static let defaultPasskeyName = "Unnamed account (Apple)"

    /// Starts making a passkey for this user: the options for the authenticator, with the server's fresh challenge.
    /// Finish with ``finalizePasskeyEnrollment(withPlatformCredential:)-(PasskeyRegistration)``.
    ///
    /// ```swift
    /// let options = try await user.passkeyRegistrationOptions(withName: "Laptop")
    /// let made = try authenticator.register(options)            // your platform's authenticator
    /// try await user.finalizePasskeyEnrollment(withPlatformCredential: made)
    /// ```
    public func passkeyRegistrationOptions(withName name: String?) async throws -> PasskeyRegistrationOptions {
        var request = StartPasskeyEnrollmentRequest(idToken: try await getIDToken())
        request.tenantId = tenantID
        let reply = try await call(Endpoints.startPasskeyEnrollment, request)
        let options = reply.credentialCreationOptions
        guard let challenge = Data(base64Encoded: options.challenge), let userID = Data(base64Encoded: options.user.id) else {
            throw AuthErrorFactory.make(.internalError, detail: "The server's passkey options are not base64.")
        }
        let chosen = name?.isEmpty == false ? name! : Self.defaultPasskeyName
        lock.locked { pendingPasskeyName = chosen }
        return PasskeyRegistrationOptions(relyingPartyIdentifier: options.rp.id, challenge: challenge, userID: userID, name: chosen)
    }

    /// Adds the passkey the authenticator made to this user; the session continues as a passkey sign-in.
    @discardableResult
    public func finalizePasskeyEnrollment(withPlatformCredential credential: PasskeyRegistration) async throws -> AuthDataResult {
        guard !credential.credentialID.isEmpty, !credential.rawClientDataJSON.isEmpty, !credential.rawAttestationObject.isEmpty else {
            throw AuthErrorFactory.make(.internalError,
                                        detail: "Invalid platform credential: missing credentialID, clientDataJSON, or attestationObject.")
        }
        var response = AuthenticatorResponse(id: credential.credentialID.base64EncodedString())
        response.response = .init(clientDataJSON: credential.rawClientDataJSON.base64EncodedString(),
                                  attestationObject: credential.rawAttestationObject.base64EncodedString())
        var request = FinalizePasskeyEnrollmentRequest(idToken: try await getIDToken(), credentialID: nil,
                                                       name: lock.locked { pendingPasskeyName } ?? Self.defaultPasskeyName)
        request.authenticatorRegistrationResponse = response
        request.tenantId = tenantID
        let reply = try await call(Endpoints.finalizePasskeyEnrollment, request)
        try await adopt(SignInReply(localId: reply.localId, idToken: reply.idToken, refreshToken: reply.refreshToken, expiresIn: nil))
        lock.locked { pendingPasskeyName = nil }
        return AuthDataResult(user: self, additionalUserInfo: nil)
    }

    /// Removes one of this user's passkeys (its ``PasskeyInfo/credentialID``).
    public func unenrollPasskey(withCredentialID credentialID: String) async throws {
        guard !credentialID.isEmpty else { throw AuthErrorFactory.make(.missingPasskeyEnrollment) }
        var request = UpdateAccountRequest(idToken: try await getIDToken())
        request.deletePasskey = [credentialID]
        let reply = try await call(Endpoints.update, request)
        try await adopt(reply.signIn)
    }
}

extension Auth {
    /// Starts a passkey sign-in: the options for the authenticator, with the server's fresh challenge.
    ///
    /// ```swift
    /// let options = try await Auth.auth().passkeyAssertionOptions()
    /// let assertion = try authenticator.assert(options)         // your platform's authenticator
    /// let result = try await Auth.auth().finalizePasskeySignIn(withPlatformCredential: assertion)
    /// ```
    public func passkeyAssertionOptions() async throws -> PasskeyAssertionOptions {
        var request = StartPasskeySignInRequest()
        request.tenantId = tenantID
        let reply = try await core.call(Endpoints.startPasskeySignIn, request)
        guard let challenge = Data(base64Encoded: reply.credentialRequestOptions.challenge) else {
            throw AuthErrorFactory.make(.internalError, detail: "The server's passkey challenge is not base64.")
        }
        return PasskeyAssertionOptions(relyingPartyIdentifier: reply.credentialRequestOptions.rpId, challenge: challenge)
    }

    /// Signs in with the passkey assertion the authenticator made.
    @discardableResult
    public func finalizePasskeySignIn(withPlatformCredential credential: PasskeyAssertion) async throws -> AuthDataResult {
        var response = AuthenticatorResponse(id: credential.credentialID.base64EncodedString())
        response.response = .init(clientDataJSON: credential.rawClientDataJSON.base64EncodedString(),
                                  authenticatorData: credential.rawAuthenticatorData.base64EncodedString(),
                                  signature: credential.signature.base64EncodedString(),
                                  userHandle: credential.userID.base64EncodedString())
        var request = FinalizePasskeySignInRequest(credentialID: nil)
        request.authenticatorAuthenticationResponse = response
        request.tenantId = tenantID
        let reply = try await core.call(Endpoints.finalizePasskeySignIn, request)
        return try await finishSignIn(SignInReply(localId: reply.localId, idToken: reply.idToken, refreshToken: reply.refreshToken,
                                                  expiresIn: nil), additional: AdditionalUserInfo(providerID: "passkey", isNewUser: false))
    }
}
