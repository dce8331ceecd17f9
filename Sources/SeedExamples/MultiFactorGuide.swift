import Foundation
import HearthAuth

/// Multi-factor enrollment as FirebaseAuth apps write it (there is no seed guide for it; the sign-in side is in
/// ``LinkProvidersGuide/signInAndMerge()``). Compiled with HearthAuth; `// harness:` lines hand results to tests.
@MainActor
public final class MultiFactorGuide: GuideViewController {
    public var phoneNumber = ""
    public var verificationCode = ""
    public private(set) var totpSecret: TOTPSecret?  // harness

    // Enroll a phone number as a second factor.
    public func enrollPhone() {
        let user = Auth.auth().currentUser
        user?.multiFactor.getSessionWithCompletion({ session, error in
          PhoneAuthProvider.provider().verifyPhoneNumber(
            self.phoneNumber,
            uiDelegate: nil,
            multiFactorSession: session
          ) { verificationId, error in
            if let error = error {
              // Failed to verify phone number.
              self.finish(error)  // harness
              return              // harness
            }
            let credential = PhoneAuthProvider.provider().credential(
              withVerificationID: verificationId!,
              verificationCode: self.verificationCode
            )
            let assertion = PhoneMultiFactorGenerator.assertion(with: credential)
            // Complete enrollment. This will update the underlying tokens
            // and trigger ID token change listener.
            user?.multiFactor.enroll(with: assertion, displayName: "Work phone") { error in
              // ...
              self.finish(error)  // harness
            }
          }
        })
    }

    // Enroll an authenticator app (TOTP).
    public func enrollAuthenticatorApp() async throws {
        let user = Auth.auth().currentUser!
        let session = try await user.multiFactor.session()
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
        // Show secret.sharedSecretKey() or a QR code of
        // secret.generateQRCodeURL(withAccountName:issuer:) to the user.
        totpSecret = secret  // harness
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: verificationCode)
        try await user.multiFactor.enroll(with: assertion, displayName: "Authenticator app")
    }

    // Unenroll a factor.
    public func unenroll() async throws {
        let user = Auth.auth().currentUser!
        let factor = user.multiFactor.enrolledFactors[0]
        try await user.multiFactor.unenroll(with: factor)
    }
}
