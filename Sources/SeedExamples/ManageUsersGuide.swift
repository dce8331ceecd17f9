import Foundation
import HearthAuth

/// "Manage users" (seed 003, zh-CN). The guide's one-line snippets are laid out on lines; `// harness:` lines only
/// hand results to the test and end a snippet where the guide wrote `// ...`.
@MainActor
public final class ManageUsersGuide: GuideViewController {
    public var handle: AuthStateDidChangeListenerHandle?
    public private(set) var listenerCalls: [String?] = []  // harness
    public var indexPath = IndexPath(row: 0)
    public var cell: UITableViewCell? = UITableViewCell()
    public var displayName = ""
    public var email = ""
    public var password = ""
    public private(set) var signedIn: Bool?                          // harness
    public private(set) var profile: (uid: String, email: String?, photoURL: URL?)?  // harness

    public func listen() {
        handle = Auth.auth().addStateDidChangeListener { (auth, user) in
            // ...
            self.listenerCalls.append(user?.uid)  // harness
        }
    }

    public func checkCurrentUser() {
        if Auth.auth().currentUser != nil {
          // User is signed in.
          // ...
          signedIn = true  // harness
        } else {
          // No user is signed in.
          // ...
          signedIn = false  // harness
        }
    }

    public func readProfile() {
        let user = Auth.auth().currentUser
        if let user = user {
          // The user's ID, unique to the Firebase project.
          // Do NOT use this value to authenticate with your backend server,
          // if you have one. Use getTokenWithCompletion:completion: instead.
          let uid = user.uid
          let email = user.email
          let photoURL = user.photoURL
          // ...
          profile = (uid, email, photoURL)  // harness
        }
    }

    public func showProvider() {
        let userInfo = Auth.auth().currentUser?.providerData[indexPath.row]
        cell?.textLabel?.text = userInfo?.providerID
        // Provider-specific UID
        cell?.detailTextLabel?.text = userInfo?.uid
    }

    public func updateProfile() {
        let changeRequest = Auth.auth().currentUser?.createProfileChangeRequest()
        changeRequest?.displayName = displayName
        changeRequest?.commitChanges { (error) in
          // ...
          self.finish(error)  // harness
        }
    }

    public func updateEmail() {
        Auth.auth().currentUser?.updateEmail(to: email) { (error) in
          // ...
          self.finish(error)  // harness
        }
    }

    public func sendEmailVerification() {
        Auth.auth().currentUser?.sendEmailVerification { (error) in
          // ...
          self.finish(error)  // harness
        }
    }

    public func setLanguage() {
        Auth.auth().languageCode = "fr"
        // To apply the default app language instead of explicitly setting it.
        // Auth.auth().useAppLanguage()
    }

    public func updatePassword() {
        Auth.auth().currentUser?.updatePassword(to: password) { (error) in
          // ...
          self.finish(error)  // harness
        }
    }

    public func sendPasswordReset() {
        Auth.auth().sendPasswordReset(withEmail: email) { error in
          // ...
          self.finish(error)  // harness
        }
    }

    public func deleteUser() {
        let user = Auth.auth().currentUser
        user?.delete { error in
          if let error = error {
            // An error happened.
            self.finish(error)  // harness
          } else {
            // Account deleted.
            self.finish(nil)  // harness
          }
        }
    }

    /// The guide declares `var credential: AuthCredential` and leaves filling it to the app ("prompt the user to
    /// re-provide their sign-in credentials"); here the test provides it.
    public func reauthenticate(with provided: AuthCredential) {
        let user = Auth.auth().currentUser
        let credential: AuthCredential = provided  // harness: the guide leaves this to the app

        // Prompt the user to re-provide their sign-in credentials

        user?.reauthenticate(with: credential) { error in
          if let error = error {
            // An error happened.
            self.finish(error)  // harness
          } else {
            // User re-authenticated.
            self.finish(nil)  // harness
          }
        }
    }
}
