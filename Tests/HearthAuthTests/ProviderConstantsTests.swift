import Foundation
import HearthAuth
import Testing

/// FirebaseAuth's Objective-C-era globals (its own `SwiftGlobalTests` lists them) and the provider-id struct.
@Suite struct ProviderConstantsTests {
    @Test func globalsHoldFirebasesValues() {
        let values: [(String, String)] = [
            (EmailAuthProviderID, "password"), (EmailLinkAuthSignInMethod, "emailLink"),
            (EmailPasswordAuthSignInMethod, "password"), (FacebookAuthProviderID, "facebook.com"),
            (GameCenterAuthProviderID, "gc.apple.com"), (GitHubAuthProviderID, "github.com"),
            (GoogleAuthProviderID, "google.com"), (PhoneAuthProviderID, "phone"), (TwitterAuthProviderID, "twitter.com"),
            (PhoneMultiFactorID, "phone"), (TOTPMultiFactorID, "totp"), (AuthErrorDomain, "FIRAuthErrorDomain"),
        ]
        for (value, expected) in values { #expect(value == expected) }
        #expect(NSNotification.Name.AuthStateDidChange == Auth.authStateDidChangeNotification)
        #expect(AuthProviderID.custom("apple.com") == .apple && AuthProviderID.gameCenter.rawValue == GameCenterAuthProviderID)
    }
}
