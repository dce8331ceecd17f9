import Foundation
import HearthWire

public typealias UserProfileChangeCallback = @MainActor @Sendable ((any Error)?) -> Void

extension User {
    // MARK: linking

    /// Adds a sign-in method to this account. An anonymous user keeps its uid and stops being anonymous.
    ///
    /// ```swift
    /// let credential = EmailAuthProvider.credential(withEmail: email, password: password)
    /// let result = try await user.link(with: credential)
    /// ```
    ///
    /// If the credential belongs to another account the error is ``AuthErrorCode/credentialAlreadyInUse`` and
    /// `credential` can then sign in to that account (``Auth/signIn(with:)``) so the app can merge the two.
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        if providerData.contains(where: { $0.providerID == credential.provider }) {
            throw AuthErrorFactory.make(.providerAlreadyLinked)
        }
        let token = try await getIDToken()
        return try await auth.exchange(credential, idToken: token) { reply, additional, oauth in
            try await self.adopt(reply)
            return AuthDataResult(user: self, additionalUserInfo: additional, credential: oauth)
        }
    }

    public func link(with credential: AuthCredential, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.link(with: credential) }
    }

    /// The Objective-C-era name (`linkWithCredential:`), with the optional credential `getCredentialWith` gives.
    public func link(withCredential credential: AuthCredential?, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.link(with: try AuthCredential.given(credential)) }
    }

    /// Removes a sign-in method (a provider id from ``providerData``).
    ///
    /// ```swift
    /// try await user.unlink(fromProvider: "google.com")
    /// ```
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        guard providerData.contains(where: { $0.providerID == provider }) else {
            throw AuthErrorFactory.make(.noSuchProvider)
        }
        var request = UpdateAccountRequest(idToken: try await getIDToken())
        request.deleteProvider = [provider]
        let reply = try await call(Endpoints.update, request)
        try await adopt(reply.signIn)
        return self
    }

    public func unlink(fromProvider provider: String,
                       completion: (@MainActor @Sendable (User?, (any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.unlink(fromProvider: provider) }
    }

    // MARK: reauthentication

    /// Signs in again with a credential of this same user, for operations that need a recent login.
    ///
    /// ```swift
    /// try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: password))
    /// try await user.updatePassword(to: newPassword)
    /// ```
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        do {
            return try await auth.exchange(credential, idToken: nil) { reply, additional, oauth in
                guard reply.localId == nil || reply.localId == self.uid else {
                    throw AuthErrorFactory.make(.userMismatch)
                }
                try await self.adopt(reply)
                return AuthDataResult(user: self, additionalUserInfo: additional, credential: oauth)
            }
        } catch let error as NSError where error.code == AuthErrorCode.userNotFound.rawValue {
            throw AuthErrorFactory.make(.userMismatch)
        }
    }

    public func reauthenticate(with credential: AuthCredential, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.reauthenticate(with: credential) }
    }

    /// The form whose completion takes only the error, as some guides write it.
    public func reauthenticate(with credential: AuthCredential, completion: UserProfileChangeCallback?) {
        deliver(completion) { _ = try await self.reauthenticate(with: credential) }
    }

    /// The Objective-C-era name (`reauthenticateWithCredential:`).
    public func reauthenticateWithCredential(withCredential credential: AuthCredential?,
                                             completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.reauthenticate(with: try AuthCredential.given(credential)) }
    }

    // MARK: profile, email, password

    /// Starts a change of display name and photo URL; ``UserProfileChangeRequest/commitChanges()`` sends it.
    ///
    /// ```swift
    /// let change = user.createProfileChangeRequest()
    /// change.displayName = "Ada"
    /// try await change.commitChanges()
    /// ```
    public func createProfileChangeRequest() -> UserProfileChangeRequest { UserProfileChangeRequest(user: self) }

    func update(_ change: (inout UpdateAccountRequest) -> Void) async throws {
        var request = UpdateAccountRequest(idToken: try await getIDToken())
        change(&request)
        let reply = try await call(Endpoints.update, request)
        try await adopt(reply.signIn)
    }

    /// Changes the email at once (projects with email-enumeration protection require
    /// ``sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`` instead).
    ///
    /// ```swift
    /// try await user.updateEmail(to: "new@example.com")
    /// ```
    public func updateEmail(to email: String) async throws { try await update { $0.email = email } }

    public func updateEmail(to email: String, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.updateEmail(to: email) }
    }

    /// Sets a new password (needs a recent login).
    ///
    /// ```swift
    /// try await Auth.auth().currentUser?.updatePassword(to: "n3w-s3cret")
    /// ```
    public func updatePassword(to password: String) async throws { try await update { $0.password = password } }

    public func updatePassword(to password: String, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.updatePassword(to: password) }
    }

    /// Replaces the phone number with one proven by an SMS code.
    ///
    /// ```swift
    /// try await user.updatePhoneNumber(PhoneAuthProvider.provider().credential(withVerificationID: id, verificationCode: code))
    /// ```
    public func updatePhoneNumber(_ credential: PhoneAuthCredential) async throws {
        let token = try await getIDToken()
        _ = try await auth.exchange(credential, idToken: token) { reply, additional, _ in
            try await self.adopt(reply)
            return AuthDataResult(user: self, additionalUserInfo: additional)
        }
    }

    public func updatePhoneNumber(_ credential: PhoneAuthCredential, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.updatePhoneNumber(credential) }
    }

    /// Emails a verification link for the current address.
    ///
    /// ```swift
    /// try await user.sendEmailVerification()
    /// ```
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        var request = SendOobCodeRequest(requestType: .verifyEmail, idToken: try await getIDToken())
        actionCodeSettings?.apply(to: &request)
        _ = try await call(Endpoints.sendOobCode, request)
    }

    public func sendEmailVerification(completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendEmailVerification() }
    }

    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings?,
                                      completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendEmailVerification(with: actionCodeSettings) }
    }

    /// Emails `newEmail` a link; the address changes when it is opened.
    ///
    /// ```swift
    /// try await user.sendEmailVerification(beforeUpdatingEmail: "new@example.com")
    /// ```
    public func sendEmailVerification(beforeUpdatingEmail newEmail: String,
                                      actionCodeSettings: ActionCodeSettings? = nil) async throws {
        var request = SendOobCodeRequest(requestType: .verifyAndChangeEmail, idToken: try await getIDToken(),
                                         newEmail: newEmail)
        actionCodeSettings?.apply(to: &request)
        _ = try await call(Endpoints.sendOobCode, request)
    }

    public func sendEmailVerification(beforeUpdatingEmail newEmail: String, actionCodeSettings: ActionCodeSettings? = nil,
                                      completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendEmailVerification(beforeUpdatingEmail: newEmail,
                                                                   actionCodeSettings: actionCodeSettings) }
    }

    /// Deletes the account (needs a recent login) and signs it out.
    ///
    /// ```swift
    /// try await Auth.auth().currentUser?.delete()
    /// ```
    public func delete() async throws {
        var request = DeleteAccountRequest(idToken: try await getIDToken())
        request.tenantId = tenantID
        _ = try await call(Endpoints.delete, request)
        if core.user === self { core.setCurrentUser(nil, auth: auth) }
    }

    public func delete(completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.delete() }
    }
}

/// A pending change of display name and photo URL.
///
/// ```swift
/// let change = Auth.auth().currentUser?.createProfileChangeRequest()
/// change?.displayName = "Ada Lovelace"
/// change?.commitChanges { error in … }
/// ```
public final class UserProfileChangeRequest: @unchecked Sendable {
    private let user: User
    private let lock = NSLock()
    private var _displayName: String??
    private var _photoURL: URL??

    init(user: User) { self.user = user }

    /// nil removes the name.
    public var displayName: String? {
        get { lock.locked { _displayName ?? user.displayName } }
        set { lock.locked { _displayName = .some(newValue) } }
    }

    /// nil removes the photo.
    public var photoURL: URL? {
        get { lock.locked { _photoURL ?? user.photoURL } }
        set { lock.locked { _photoURL = .some(newValue) } }
    }

    public func commitChanges() async throws {
        let (name, photo) = lock.locked { (_displayName, _photoURL) }
        guard name != nil || photo != nil else { return }
        try await user.update { request in
            var removed: [UpdateAccountRequest.Attribute] = []
            if let name { if let name { request.displayName = name } else { removed.append(.displayName) } }
            if let photo { if let photo { request.photoUrl = photo.absoluteString } else { removed.append(.photoURL) } }
            if !removed.isEmpty { request.deleteAttribute = removed }
        }
    }

    public func commitChanges(completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.commitChanges() }
    }
}
