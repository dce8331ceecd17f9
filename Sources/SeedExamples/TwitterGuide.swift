import Foundation
import HearthAuth

/// "Authenticate using Twitter on iOS" (seed 001, zh-CN). `// harness:` lines only hand results to the test.
@MainActor
public final class TwitterGuide: GuideViewController {
    public private(set) var credential: AuthCredential?  // harness
    public private(set) var lastResult: AuthDataResult?  // harness

    // Steps 2, 3 and 5: the provider, custom parameters, sign-in.
    public func signIn() {
        let provider = OAuthProvider(providerID: "twitter.com")
        provider.customParameters = [
          "lang": "fr"
          ]
        provider.getCredentialWith(nil) { credential, error in
          if error != nil {
            // Handle error.
            self.finish(error)  // harness
            return              // harness
          }
          if credential != nil {
            self.credential = credential  // harness
            Auth().signIn(with: credential) { authResult, error in
              if error != nil {
                // Handle error.
              }
              // User is signed in.
              // IdP data available in authResult.additionalUserInfo.profile.
              // Twitter OAuth access token can also be retrieved by:
              // authResult.credential.accessToken
              // Twitter OAuth ID token can be retrieved by calling:
              // authResult.credential.idToken
              // Twitter OAuth secret can be retrieved by calling:
              // authResult.credential.secret
              self.lastResult = authResult  // harness
              self.finish(error)            // harness
            }
          }
        }
    }

    /// Gets a Twitter credential without signing in (for the link and reauthenticate steps).
    public func getCredential() {
        let provider = OAuthProvider(providerID: "twitter.com")
        provider.getCredentialWith(nil) { credential, error in
            self.credential = credential  // harness
            self.finish(error)            // harness
        }
    }

    // Step 6: link to the signed-in user.
    public func link() {
        let credential = self.credential  // harness
        Auth().currentUser.link(withCredential: credential) { authResult, error in
          if error != nil {
            // Handle error.
          }
          // Twitter credential is linked to the current user.
          // IdP data available in authResult.additionalUserInfo.profile.
          // Twitter OAuth access token can also be retrieved by:
          // authResult.credential.accessToken
          // Twitter OAuth ID token can be retrieved by calling:
          // authResult.credential.idToken
          // Twitter OAuth secret can be retrieved by calling:
          // authResult.credential.secret
          self.lastResult = authResult  // harness
          self.finish(error)            // harness
        }
    }

    // Step 7: reauthenticate.
    public func reauthenticate() {
        let credential = self.credential  // harness
        Auth().currentUser.reauthenticateWithCredential(withCredential: credential) { authResult, error in
          if error != nil {
            // Handle error.
          }
          // User is re-authenticated with fresh tokens minted and
          // should be able to perform sensitive operations like account
          // deletion and email or password update.
          // IdP data available in result.additionalUserInfo.profile.
          // Additional OAuth access token is can also be retrieved by:
          // authResult.credential.accessToken
          // Twitter OAuth ID token can be retrieved by calling:
          // authResult.credential.idToken
          // Twitter OAuth secret can be retrieved by calling:
          // authResult.credential.secret
          self.lastResult = authResult  // harness
          self.finish(error)            // harness
        }
    }

    // Signing out.
    public func signOut() {
        let firebaseAuth = Auth.auth()
    do {
      try firebaseAuth.signOut()
    } catch let signOutError as NSError {
      print ("Error signing out: %@", signOutError)
    }
    }
}
