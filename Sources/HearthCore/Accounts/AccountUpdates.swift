import Foundation

/// What `accounts:update` asks to change on the signed-in user. `nil` leaves a field alone.
public struct AccountChanges: Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var deleteDisplayName = false
    public var deletePhotoURL = false

    public init(email: String? = nil, password: String? = nil, displayName: String? = nil, photoURL: String? = nil,
                deleteDisplayName: Bool = false, deletePhotoURL: Bool = false) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.deleteDisplayName = deleteDisplayName
        self.deletePhotoURL = deletePhotoURL
    }
}

/// A signed-in user's changes to their own account (`accounts:update`).
public struct AccountUpdates: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// The profile, email and password parts of an update, shared by the user's own update and the admin's:
    /// checked and hashed once, before the write (``PreparedChanges/apply(to:now:)`` may run again on a
    /// fresh read).
    func prepare(_ changes: AccountChanges, project: ProjectContext, byAdministrator: Bool = false) async throws
        -> PreparedChanges {
        if let email = changes.email { guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail } }
        var hash: String?
        if let password = changes.password {
            if byAdministrator { try PasswordPolicy.check(password) } else { try await checkNewPassword(password, in: project) }
            hash = try await hashPassword(password, project: project)
        }
        return PreparedChanges(changes: changes, passwordHash: hash)
    }

    /// Validated changes with the new password already hashed.
    struct PreparedChanges: Sendable {
        var changes: AccountChanges
        var passwordHash: String?

        /// Writes the changes into `user`; a new email or password ends earlier sessions.
        func apply(to user: inout UserRecord, now: Date) throws {
            if let email = changes.email {
                if user.email.map(EmailAddress.normalized) != EmailAddress.normalized(email) { user.emailVerified = false }
                user.email = email
            }
            if let passwordHash {
                user.passwordHash = passwordHash
                user.passwordUpdatedAt = now
            }
            if let name = changes.displayName { user.displayName = name }
            if let photo = changes.photoURL { user.photoURL = photo }
            if changes.deleteDisplayName { user.displayName = nil }
            if changes.deletePhotoURL { user.photoURL = nil }
            if changes.email != nil || changes.password != nil {
                user.validSince = now.epochSeconds
                user.tokensValidAfter = now
            }
            try ProfileLimits.check(user)
        }
    }

    /// The outcome of an update: the stored user, and new tokens when the email or password changed (those
    /// changes revoke every earlier session).
    public struct UpdateResult: Sendable {
        public var user: UserRecord
        public var tokens: Tokens?
        public var newEmail: String?
        /// The RECOVER_EMAIL notice queued for the previous address, if the change replaced a verified one.
        public var recoveryNotice: OutboxMessage?
    }

    /// `accounts:update` with an ID token: profile fields, password and email.
    ///
    /// A password or email change needs an interactive sign-in within the recent-login window, moves
    /// `validSince` (older ID tokens answer `TOKEN_EXPIRED`), makes older refresh tokens fail with
    /// `TOKEN_EXPIRED`, and returns fresh tokens. A new email is unverified; when it replaces a verified one, the
    /// old address gets a RECOVER_EMAIL link (`links` says where links point). Under email-enumeration protection
    /// a direct email change is refused: the new address must be verified first (VERIFY_AND_CHANGE_EMAIL).
    public func updateAccount(in project: ProjectContext, idToken: String?, changes: AccountChanges,
                              links: ActionLinkBase? = nil, locale: String? = nil) async throws -> UpdateResult
    {
        let (stored, claims) = try await authenticate(idToken, in: project)
        if changes.email != nil { try requireRecentLogin(claims, for: .changeEmail) }
        if changes.password != nil { try requireRecentLogin(claims, for: .changePassword) }
        let sensitive = changes.email != nil || changes.password != nil
        if changes.email != nil {
            guard changes.email.map(EmailAddress.isValid) == true else { throw AuthFailure.invalidEmail }
            if project.settings[.enableImprovedEmailPrivacy] { throw AuthFailure.emailChangeNeedsVerification }
        }
        let prepared = try await prepare(changes, project: project)
        let now = clock.now()
        var before = stored
        let user = try await modifyUser(stored, in: project, session: claims) { user in
            before = user
            try prepared.apply(to: &user, now: now)
            if let previous = before.email, user.email != previous, user.initialEmail == nil { user.initialEmail = previous }
            if sensitive { user.lastLoginAt = now }
        }
        guard sensitive else { return UpdateResult(user: user, tokens: nil, newEmail: nil) }
        var notice: OutboxMessage?
        if let newEmail = changes.email, before.email.map(EmailAddress.normalized) != EmailAddress.normalized(newEmail) {
            // Codes sent to the previous address (a reset, a verification) must not act on the new one.
            try await store.deleteActionCodes(projectID: project.id, tenantID: user.tenantID, localID: user.localID)
            if let previous = before.email {
                // Production tells only a verified address (an unverified one may be a stranger's typo, and its
                // link would hand them the account); Firebase's emulator tells any.
                notice = try await context.actionCodes.sendRecoveryNotice(in: project, user: user, previousEmail: previous,
                                                      wasVerified: before.emailVerified || emulatorRules,
                                                      links: links, locale: locale)
            }
        }
        // A password set makes the session a password one (an anonymous user upgraded is no longer anonymous), as
        // Firebase reissues it; an email alone leaves the way it signed in.
        let provider = changes.password != nil ? "password" : claims.firebase?.signInProvider ?? "password"
        let session = try await completeSignIn(user, provider: provider, in: project, now: now,
                                               .reissued(secondFactor: claims.firebase?.signInSecondFactor,
                                                         secondFactorID: claims.firebase?.secondFactorIdentifier)).signedIn()
        return UpdateResult(user: user, tokens: session.tokens, newEmail: changes.email, recoveryNotice: notice)
    }
}
