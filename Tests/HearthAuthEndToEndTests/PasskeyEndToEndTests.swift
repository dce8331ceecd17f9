import Foundation
import HearthAuth
import HearthCore
import HearthTestSupport
import Testing

/// HearthAuth's passkey calls, FirebaseAuth's names, on Linux: the raw options go to a software authenticator (the
/// fido2 package) as a platform's would, and its genuine answers enroll, sign in and are removed.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil && SoftwareAuthenticator.unavailableReason() == nil,
                "needs authlib, aiosmtpd and fido2: \(LiveHearth.unavailableReason ?? SoftwareAuthenticator.unavailableReason() ?? "")"),
       .serialized)
struct PasskeyEndToEndTests {
    static func bytes(_ any: Any?) throws -> Data { try #require((any as? String).flatMap(Base64URL.decode)) }

    /// The platform's side: what `ASAuthorizationController` does on Apple platforms, done by the software authenticator.
    static func register(_ options: PasskeyRegistrationOptions, with authenticator: SoftwareAuthenticator) throws -> PasskeyRegistration {
        let made = try authenticator.create(["credentialCreationOptions": [
            "rp": ["id": options.relyingPartyIdentifier], "user": ["id": options.userID.base64EncodedString()],
            "challenge": options.challenge.base64EncodedString()]], origin: LiveHearth.passkeyOrigin, ["alg": "eddsa"])
        let response = try #require(made["response"] as? [String: Any])
        return PasskeyRegistration(credentialID: try bytes(made["id"]), rawClientDataJSON: try bytes(response["clientDataJSON"]),
                                   rawAttestationObject: try bytes(response["attestationObject"]))
    }

    static func assert(_ options: PasskeyAssertionOptions, with authenticator: SoftwareAuthenticator) throws -> PasskeyAssertion {
        let made = try authenticator.get(["credentialRequestOptions": [
            "rpId": options.relyingPartyIdentifier, "challenge": options.challenge.base64EncodedString()]], origin: LiveHearth.passkeyOrigin)
        let response = try #require(made["response"] as? [String: Any])
        return PasskeyAssertion(credentialID: try bytes(made["id"]), rawClientDataJSON: try bytes(response["clientDataJSON"]),
                                rawAuthenticatorData: try bytes(response["authenticatorData"]), signature: try bytes(response["signature"]),
                                userID: try bytes(response["userHandle"]))
    }

    @Test func enrollSignInAndUnenroll() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let user = try await auth.createUser(withEmail: "passkey@example.com", password: "secret123").user
            let authenticator = try SoftwareAuthenticator()
            let options = try await user.startPasskeyEnrollment(withName: "Laptop")
            #expect(options.relyingPartyIdentifier == "localhost" && options.userID == Data(user.uid.utf8) && options.challenge.count == 32)
            let enrolled = try await user.finalizePasskeyEnrollment(withPlatformCredential: try Self.register(options, with: authenticator))
            #expect(enrolled.user.enrolledPasskeys?.map(\.name) == ["Laptop"])

            try auth.signOut()
            let assertion = try Self.assert(try await auth.startPasskeySignIn(), with: authenticator)
            let signedIn = try await auth.finalizePasskeySignIn(withPlatformCredential: assertion)
            #expect(signedIn.user.uid == user.uid && auth.currentUser?.uid == user.uid)
            #expect(try await signedIn.user.getIDTokenResult().signInProvider == "passkey")
            do {
                _ = try await auth.finalizePasskeySignIn(withPlatformCredential: assertion)
                Issue.record("a replayed assertion signed in")
            } catch let error as NSError {
                #expect(error.code == AuthErrorCode.invalidAuthenticatorResponse.rawValue, "\(error)")
            }

            let credential = try #require(signedIn.user.enrolledPasskeys?.first?.credentialID)
            try await signedIn.user.unenrollPasskey(withCredentialID: credential)
            #expect(signedIn.user.enrolledPasskeys?.isEmpty == true)
            do {
                _ = try await auth.finalizePasskeySignIn(withPlatformCredential: try Self.assert(try await auth.startPasskeySignIn(), with: authenticator))
                Issue.record("a removed passkey signed in")
            } catch let error as NSError {
                #expect(error.code == AuthErrorCode.userNotFound.rawValue, "\(error)")
            }
        }
    }
}
