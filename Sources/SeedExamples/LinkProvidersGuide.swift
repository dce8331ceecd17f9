import Foundation
import HearthAuth

/// "Link multiple auth providers to an account on Apple platforms" (seeds 000 zh-TW, 004 ja — the two editions'
/// Swift is identical; 002 pt-BR is the same guide with shorter snippets, below, whose Facebook and email lines are
/// the ones here on one line). Lines marked `// harness:` are the only additions: they hand the
/// guide's local results to the test and end a snippet where the guide wrote `// ...`.
@MainActor
public final class LinkProvidersGuide: GuideViewController {
    public var user: GIDGoogleUser?
    public var email = ""
    public var password = ""
    public var providerID: String?
    public private(set) var credential: AuthCredential?  // harness: the credential step 3 made
    public private(set) var prevUser: User?              // harness: the user before the merge
    public private(set) var lastResult: AuthDataResult?  // harness

    // Step 3, Google Sign-In.
    public func makeGoogleCredential() {
        guard
          let authentication = user?.authentication,
          let idToken = authentication.idToken
        else {
          return
        }

        let credential = GoogleAuthProvider.credential(withIDToken: idToken,
                                                       accessToken: authentication.accessToken)
        self.credential = credential  // harness
    }

    // Step 3, Facebook Login.
    public func makeFacebookCredential() {
        let credential = FacebookAuthProvider
          .credential(withAccessToken: AccessToken.current!.tokenString)
        self.credential = credential  // harness
    }

    // Step 3, email and password.
    public func makeEmailCredential() {
        let credential = EmailAuthProvider.credential(withEmail: email, password: password)
        self.credential = credential  // harness
    }

    // Step 4: link.
    public func link(user: User) {
        let credential = self.credential!  // harness
        user.link(with: credential) { authResult, error in
          // ...
          self.lastResult = authResult  // harness
          self.finish(error)            // harness
        }
    }

    // Step 4, when the credential belongs to another account: sign in with it (a multi-factor account answers
    // with a second-factor challenge) and merge.
    public func signInAndMerge() {
        let credential = self.credential!  // harness
        let prevUser = Auth.auth().currentUser
        self.prevUser = prevUser  // harness
        Auth.auth().signIn(with: credential) { authResult, error in
            if let error = error {
              let authError = error as NSError
              if isMFAEnabled, authError.code == AuthErrorCode.secondFactorRequired.rawValue {
                // The user is a multi-factor user. Second factor challenge is required.
                let resolver = authError
                  .userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
                var displayNameString = ""
                for tmpFactorInfo in resolver.hints {
                  displayNameString += tmpFactorInfo.displayName ?? ""
                  displayNameString += " "
                }
                self.showTextInputPrompt(
                  withMessage: "Select factor to sign in\n\(displayNameString)",
                  completionBlock: { userPressedOK, displayName in
                    var selectedHint: PhoneMultiFactorInfo?
                    for tmpFactorInfo in resolver.hints {
                      if displayName == tmpFactorInfo.displayName {
                        selectedHint = tmpFactorInfo as? PhoneMultiFactorInfo
                      }
                    }
                    PhoneAuthProvider.provider()
                      .verifyPhoneNumber(with: selectedHint!, uiDelegate: nil,
                                         multiFactorSession: resolver
                                           .session) { verificationID, error in
                        if error != nil {
                          print(
                            "Multi factor start sign in failed. Error: \(error.debugDescription)"
                          )
                          self.finish(error)  // harness
                        } else {
                          self.showTextInputPrompt(
                            withMessage: "Verification code for \(selectedHint?.displayName ?? "")",
                            completionBlock: { userPressedOK, verificationCode in
                              let credential: PhoneAuthCredential? = PhoneAuthProvider.provider()
                                .credential(withVerificationID: verificationID!,
                                            verificationCode: verificationCode!)
                              let assertion: MultiFactorAssertion? = PhoneMultiFactorGenerator
                                .assertion(with: credential!)
                              resolver.resolveSignIn(with: assertion!) { authResult, error in
                                if error != nil {
                                  print(
                                    "Multi factor finanlize sign in failed. Error: \(error.debugDescription)"
                                  )
                                  self.finish(error)  // harness
                                } else {
                                  self.lastResult = authResult  // harness
                                  self.navigationController?.popViewController(animated: true)
                                }
                              }
                            }
                          )
                        }
                      }
                  }
                )
              } else {
                self.showMessagePrompt(error.localizedDescription)
                return
              }
              // ...
              return
            }
            // User is signed in
            // ...
            self.lastResult = authResult  // harness
            self.finish(nil)              // harness
        }
                    // Merge prevUser and currentUser accounts and data
                    // ...
    }

    // Unlink a provider.
    public func unlink() {
        Auth.auth().currentUser?.unlink(fromProvider: providerID!) { user, error in
          // ...
          self.finish(error)  // harness
        }
    }
}

/// The pt-BR edition's shorter snippets (seed 002).
@MainActor
public final class LinkProvidersGuidePT: GuideViewController {
    public var user: GIDGoogleUser!
    public private(set) var credential: AuthCredential?  // harness

    public func makeGoogleCredential() {
        guard let authentication = user.authentication else { return }
        let credential = GoogleAuthProvider.credential(withIDToken: authentication.idToken,
                                                          accessToken: authentication.accessToken)
        self.credential = credential  // harness
    }

    public func link(user: User) {
        let credential = self.credential!  // harness
        user.link(with: credential) { (authResult, error) in
          // ...
          self.finish(error)  // harness
        }
    }

    public func signInAndMerge() {
        let credential = self.credential!  // harness
        let prevUser = Auth.auth().currentUser
        _ = prevUser  // harness
        Auth.auth().signIn(with: credential) { (authResult, error) in
          if let error = error {
            // ...
            self.finish(error)  // harness
            return
          }
          // User is signed in
          // ...
          self.finish(nil)  // harness
        }            // Merge prevUser and currentUser accounts and data
                    // ...
    }

    public func unlink(providerID: String?) {
        Auth.auth().currentUser?.unlink(fromProvider: providerID!) { (user, error) in
          // ...
          self.finish(error)  // harness
        }
    }
}
