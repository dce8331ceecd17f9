import Foundation

// FirebaseAuth's Objective-C-era globals, as Swift sees them: still what older apps and guides write. New code uses
// the providers' `id` and `AuthProviderID`.
//
//     if user.providerData.contains(where: { $0.providerID == GoogleAuthProviderID }) { … }

public let EmailAuthProviderID: String = EmailAuthProvider.id
public let EmailLinkAuthSignInMethod: String = EmailAuthProvider.emailLinkSignInMethod
public let EmailPasswordAuthSignInMethod: String = EmailAuthProvider.id
public let FacebookAuthProviderID: String = FacebookAuthProvider.id
public let FacebookAuthSignInMethod: String = FacebookAuthProvider.id
public let GameCenterAuthProviderID: String = GameCenterAuthProvider.id
public let GameCenterAuthSignInMethod: String = GameCenterAuthProvider.id
public let GitHubAuthProviderID: String = GitHubAuthProvider.id
public let GitHubAuthSignInMethod: String = GitHubAuthProvider.id
public let GoogleAuthProviderID: String = GoogleAuthProvider.id
public let GoogleAuthSignInMethod: String = GoogleAuthProvider.id
public let PhoneAuthProviderID: String = PhoneAuthProvider.id
public let PhoneAuthSignInMethod: String = PhoneAuthProvider.id
public let PhoneMultiFactorID: String = PhoneMultiFactorInfo.PhoneMultiFactorID
public let TOTPMultiFactorID: String = PhoneMultiFactorInfo.TOTPMultiFactorID
public let TwitterAuthProviderID: String = TwitterAuthProvider.id
public let TwitterAuthSignInMethod: String = TwitterAuthProvider.id

extension NSNotification.Name {
    /// ``Auth/authStateDidChangeNotification`` under its Objective-C-era name.
    public static let AuthStateDidChange: NSNotification.Name = Auth.authStateDidChangeNotification
}
