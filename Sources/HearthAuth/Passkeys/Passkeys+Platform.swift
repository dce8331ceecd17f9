import Foundation

#if os(iOS) || os(tvOS) || os(macOS) || targetEnvironment(macCatalyst)
import AuthenticationServices

/// FirebaseAuth's passkey calls, with AuthenticationServices' types, as its passkey preview spells them.
@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension User {
    /// A registration request for `ASAuthorizationController`, with the server's challenge.
    ///
    /// ```swift
    /// let request = try await user.startPasskeyEnrollment(withName: "iPhone")
    /// // run ASAuthorizationController(authorizationRequests: [request]); in its delegate:
    /// try await user.finalizePasskeyEnrollment(withPlatformCredential: registration)
    /// ```
    public func startPasskeyEnrollment(withName name: String?) async throws
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        let options = try await passkeyRegistrationOptions(withName: name)
        return ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingPartyIdentifier)
            .createCredentialRegistrationRequest(challenge: options.challenge, name: options.name, userID: options.userID)
    }

    @discardableResult
    public func finalizePasskeyEnrollment(withPlatformCredential credential: ASAuthorizationPlatformPublicKeyCredentialRegistration)
        async throws -> AuthDataResult {
        try await finalizePasskeyEnrollment(withPlatformCredential: PasskeyRegistration(
            credentialID: credential.credentialID, rawClientDataJSON: credential.rawClientDataJSON,
            rawAttestationObject: credential.rawAttestationObject ?? Data()))
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension Auth {
    /// An assertion request for `ASAuthorizationController`, with the server's challenge.
    public func startPasskeySignIn() async throws -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        let options = try await passkeyAssertionOptions()
        return ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingPartyIdentifier)
            .createCredentialAssertionRequest(challenge: options.challenge)
    }

    @discardableResult
    public func finalizePasskeySignIn(withPlatformCredential credential: ASAuthorizationPlatformPublicKeyCredentialAssertion)
        async throws -> AuthDataResult {
        try await finalizePasskeySignIn(withPlatformCredential: PasskeyAssertion(
            credentialID: credential.credentialID, rawClientDataJSON: credential.rawClientDataJSON,
            rawAuthenticatorData: credential.rawAuthenticatorData, signature: credential.signature, userID: credential.userID))
    }
}
#else
/// FirebaseAuth's passkey names where AuthenticationServices is absent (Linux): the options as data, for an
/// authenticator the app drives itself.
extension User {
    /// ```swift
    /// let options = try await user.startPasskeyEnrollment(withName: "Laptop")
    /// try await user.finalizePasskeyEnrollment(withPlatformCredential: authenticator.register(options))
    /// ```
    public func startPasskeyEnrollment(withName name: String?) async throws -> PasskeyRegistrationOptions {
        try await passkeyRegistrationOptions(withName: name)
    }
}

extension Auth {
    public func startPasskeySignIn() async throws -> PasskeyAssertionOptions {
        try await passkeyAssertionOptions()
    }
}
#endif
