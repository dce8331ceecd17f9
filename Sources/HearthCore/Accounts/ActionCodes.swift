import Foundation

/// A request for an email action (`accounts:sendOobCode`).
public struct ActionCodeRequest: Sendable, Equatable {
    public var type: ActionCodeType
    public var email: String?
    public var idToken: String?
    public var newEmail: String?
    public var continueURL: String?
    /// `linkDomain`: the host the link should use instead of the action page's own. It must be that host or one of
    /// the project's authorized domains (Firebase: a custom Hosting domain of the project), never a default one.
    public var linkDomain: String?
    /// `X-Firebase-Locale`: the language the email should be written in.
    public var locale: String?
    /// An admin call: the user is named by `email` for every type (no ID token), unknown emails are reported
    /// whatever the enumeration protection says.
    public var byAdministrator = false
    /// Admin `returnOobLink`: the link is returned to the caller and no email is sent.
    public var returnLink = false

    public init(type: ActionCodeType, email: String? = nil, idToken: String? = nil, newEmail: String? = nil,
                continueURL: String? = nil, locale: String? = nil, linkDomain: String? = nil) {
        self.linkDomain = linkDomain
        self.type = type
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.continueURL = continueURL
        self.locale = locale
    }
}

/// Where action links point: the hosted action page (production) or the emulator's.
public struct ActionLinkBase: Sendable, Equatable {
    /// e.g. `https://auth.example.com/__/auth/action`.
    public var url: String
    public var apiKey: String

    public init(url: String, apiKey: String) {
        self.url = url
        self.apiKey = apiKey
    }

    /// These links with their host replaced by `linkDomain`, which must be the action page's own host or one of
    /// `authorizedDomains` (as named, not a subdomain); a default hosting domain (`*.web.app`,
    /// `*.firebaseapp.com`) is refused as Firebase refuses it.
    func served(from linkDomain: String?, authorizedDomains: [String]?) throws -> ActionLinkBase {
        guard let linkDomain, !linkDomain.isEmpty else { return self }
        guard var components = URLComponents(string: url), let own = components.host else { return self }
        let domain = linkDomain.lowercased()
        if domain == own.lowercased() { return self }
        let isDefault = domain.hasSuffix(".web.app") || domain.hasSuffix(".firebaseapp.com")
        guard !isDefault, BrowserURL("https://" + domain)?.normalized == "https://\(domain)/",
              (authorizedDomains ?? []).contains(where: { $0.lowercased() == domain })
        else { throw AuthFailure.invalidHostingLinkDomain }
        components.host = domain
        components.port = nil
        var moved = self
        moved.url = components.string ?? url
        return moved
    }
}

/// Email action codes: verification, password reset, email change and recovery, sign-in by link.
public struct ActionCodes: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore & OutboxStore & ConfigStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// `accounts:sendOobCode`: creates a single-use code (only its hash is stored) and queues the email in the outbox.
    ///
    /// Returns the account's email (what the response reports) and the message (queued unless `returnLink`), or `nil` for a password
    /// reset of an unknown email under email-enumeration protection (Firebase then answers success, sends nothing).
    @discardableResult
    public func sendActionCode(in project: ProjectContext, _ request: ActionCodeRequest, links: ActionLinkBase,
                               authorizedDomains: [String]?) async throws -> (email: String, message: OutboxMessage)? {
        var request = request
        request.continueURL = try request.continueURL.map { try AuthorizedDomains.check($0, in: authorizedDomains) }
        let links = try links.served(from: request.linkDomain, authorizedDomains: authorizedDomains)
        let user: UserRecord?
        let email: String
        var newEmail: String?
        switch request.type {
        case .passwordReset, .emailSignIn:
            guard let given = request.email, !given.isEmpty else { throw AuthFailure.missingEmail }
            guard EmailAddress.isValid(given) else { throw AuthFailure.invalidEmail }
            user = try await store.user(projectID: project.id, tenantID: project.tenantID, email: given)
            if request.type == .passwordReset && user == nil {
                // Firebase's emulator gives administrators the same quiet answer.
                if project.settings[.enableImprovedEmailPrivacy] && (!request.byAdministrator || emulatorRules) {
                    try await writeDecoyCode(in: project, email: given, links: links, locale: request.locale,
                                             continueURL: request.continueURL)
                    return nil
                }
                throw AuthFailure.emailNotFound
            }
            email = user?.email ?? given
        case .verifyEmail, .verifyAndChangeEmail:
            if request.type == .verifyAndChangeEmail, (request.newEmail ?? "").isEmpty { throw AuthFailure.missingNewEmail }
            let found: UserRecord
            if request.byAdministrator, (request.idToken ?? "").isEmpty {
                guard let given = request.email, !given.isEmpty else { throw AuthFailure.missingEmail }
                guard let named = try await store.user(projectID: project.id, tenantID: project.tenantID, email: given) else {
                    throw AuthFailure.userNotFound  // what Firebase answers an administrator here
                }
                found = named
            } else {
                // Firebase reads a missing token here as an invalid one.
                if request.type == .verifyEmail, (request.idToken ?? "").isEmpty { throw AuthFailure.invalidIDToken }
                let (signedIn, claims) = try await authenticate(request.idToken, in: project)
                if request.type == .verifyAndChangeEmail { try requireRecentLogin(claims, for: .changeEmail) }
                found = signedIn
            }
            guard let current = found.email else { throw AuthFailure.missingEmail }
            user = found
            email = current
            if request.type == .verifyAndChangeEmail {
                guard let wanted = request.newEmail, !wanted.isEmpty else { throw AuthFailure.missingNewEmail }
                guard EmailAddress.isValid(wanted) else { throw AuthFailure.invalidEmail }
                if !project.settings[.allowDuplicateEmails],
                   let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, email: wanted),
                   owner.localID != found.localID {
                    throw AuthFailure.emailExists
                }
                newEmail = wanted
            }
        case .recoverEmail:
            throw AuthFailure.operationNotAllowed  // sent by the server itself after an email change, never asked for
        }
        let message = try await queueActionCode(request.type, in: project, user: user, email: email,
                                                newEmail: newEmail, recipient: newEmail ?? email,
                                                continueURL: request.continueURL, locale: request.locale, links: links,
                                                deliver: !request.returnLink || emulatorRules)  // the emulator lists every code
        return (email, message)
    }

    /// Under enumeration protection an unknown address must cost what a known one costs (a code made and stored,
    /// an email built, encoded and queued), or the answer's timing tells them apart: the same work through the same
    /// path, with the code deleted again and nothing queued. Measured by `scripts/enumeration-timing.sh`.
    func writeDecoyCode(in project: ProjectContext, email: String, links: ActionLinkBase, locale: String?,
                        continueURL: String?) async throws {
        let decoy = try await queueActionCode(.passwordReset, in: project, user: nil, email: email, newEmail: nil,
                                              recipient: email, continueURL: continueURL, locale: locale,
                                              links: links, deliver: false, askHooks: true)
        _ = try RecordCoding.encode(decoy)  // what queueing it would encode
        _ = try await store.consumeActionCode(projectID: project.id, digest: storageDigest(decoy.code))
    }

    /// Stores a new code (its hash only) and queues the email carrying it. The hooks' `beforeSend` may refuse an
    /// email first (`askHooks`, by default when it is sent; a decoy asks them too, or its timing would tell).
    func queueActionCode(_ type: ActionCodeType, in project: ProjectContext, user: UserRecord?, email: String,
                         newEmail: String?, recipient: String, continueURL: String?, locale: String?,
                         links: ActionLinkBase, deliver: Bool = true, askHooks: Bool? = nil) async throws
        -> OutboxMessage {
        let now = clock.now()
        let code = SecureRandom.string(length: 54, alphabet: Self.codeAlphabet)
        // The code lives in its user's tenant, not the call's: a call naming no tenant acts on a tenant user's ID
        // token, and a code recorded in the project would then be redeemed on the project user with that uid.
        var tenant = project.tenant
        if let user, user.tenantID != tenant?.id {
            tenant = try await user.tenantID.asyncMap { try await store.tenant(projectID: project.id, id: $0) } ?? nil
            guard tenant?.id == user.tenantID else { throw AuthFailure.userNotFound }  // its tenant is gone
        }
        let tenantID = tenant?.id
        if askHooks ?? deliver {
            try await beforeSend(OutgoingMessage(.email(type: type.blockingEventName, address: recipient),
                                                 localID: user?.localID, tenantID: tenantID), in: project)
        }
        try await store.insertActionCode(ActionCodeRecord(
            codeDigest: storageDigest(code), projectID: project.id, tenantID: tenantID, type: type,
            localID: user?.localID, email: email, newEmail: newEmail, continueURL: continueURL,
            createdAt: now, expiresAt: now + type.lifetime))
        var message = OutboxMessage(
            projectID: project.id, type: type, recipient: recipient, newEmail: newEmail, code: code,
            link: Self.link(links, type: type, code: code, locale: locale, continueURL: continueURL,
                            tenantID: tenantID),
            locale: locale, displayName: user?.displayName, createdAt: now)
        message.accountEmail = email
        message.continueURL = continueURL
        message.localID = user?.localID
        if let tenant {
            message.tenantID = tenant.id
            message.builtInText = !tenant[.inheritsEmailSending]
        }
        if deliver { try await store.enqueueOutboxMessage(message) }
        return message
    }

    /// A given-up message sent again: the outbox discarded its code, so it gets a new one, for the same account,
    /// address, tenant and continue URL. The new message is queued; the caller removes the old one.
    public func reissue(_ message: OutboxMessage, in project: ProjectContext, links: ActionLinkBase) async throws
        -> OutboxMessage
    {
        let tenant = try await message.tenantID.asyncMap { try await store.tenant(projectID: project.id, id: $0) } ?? nil
        guard tenant?.id == message.tenantID else { throw AuthFailure.userNotFound }  // its tenant is gone
        let scoped = project.scoped(to: tenant)
        let email = message.accountEmail ?? message.recipient
        var user: UserRecord?
        if let localID = message.localID {
            user = try await store.user(projectID: project.id, tenantID: message.tenantID, localID: localID)
        } else {
            user = try await store.user(projectID: project.id, tenantID: message.tenantID, email: email)
        }
        guard user != nil || message.type == .emailSignIn else { throw AuthFailure.userNotFound }
        return try await queueActionCode(message.type, in: scoped, user: user, email: email, newEmail: message.newEmail,
                                         recipient: message.recipient, continueURL: message.continueURL,
                                         locale: message.locale, links: links)
    }

    /// After a verified address was replaced, tells it so with a RECOVER_EMAIL link that puts it back: the
    /// owner's way out when somebody else changed the email.
    func sendRecoveryNotice(in project: ProjectContext, user: UserRecord, previousEmail: String, wasVerified: Bool,
                            links: ActionLinkBase?, locale: String?) async throws -> OutboxMessage? {
        guard wasVerified, let links, let newEmail = user.email,
              EmailAddress.normalized(newEmail) != EmailAddress.normalized(previousEmail)
        else { return nil }
        do {
            return try await queueActionCode(.recoverEmail, in: project, user: user, email: previousEmail,
                                             newEmail: newEmail, recipient: previousEmail, continueURL: nil,
                                             locale: locale, links: links)
        } catch AuthFailure.blockingFunctionError {
            return nil  // the change is made; a function that refuses its notice stops only the email (audited)
        }
    }

    /// The scope a code was sent from (`nil`: the project's own), or `nil` when there is no such code: where a call
    /// that carries it and names no tenant runs.
    public func scope(ofCode code: String, in project: ProjectContext) async throws -> String?? {
        guard !code.isEmpty, code.utf8.count <= 256,
              let record = try await store.actionCode(projectID: project.id, digest: storageDigest(code))
        else { return .none }
        return .some(record.tenantID)
    }

    /// What a code is for, without using it (`resetPassword` with `oobCode` alone, `checkActionCode`).
    public func inspectActionCode(in project: ProjectContext, code: String?) async throws -> ActionCodeRecord {
        guard let code, !code.isEmpty else { throw AuthFailure.missingOobCode }
        guard code.utf8.count <= 256,
              let record = try await store.actionCode(projectID: project.id, digest: storageDigest(code)),
              record.tenantID == project.tenantID  // a code acts only in the tenant (or project) it was sent from
        else { throw AuthFailure.invalidOobCode }
        guard record.expiresAt > clock.now() else { throw AuthFailure.expiredOobCode }
        return record
    }

    /// `resetPassword` with `newPassword`: uses a PASSWORD_RESET code once. The new password ends every earlier
    /// session, and the email counts as verified (its owner just read the message).
    public func resetPassword(in project: ProjectContext, code: String?, newPassword: String) async throws
        -> ActionCodeRecord
    {
        let peeked = try await inspectActionCode(in: project, code: code)
        guard peeked.type == .passwordReset else { throw AuthFailure.invalidOobCode }
        try await checkNewPassword(newPassword, in: project)  // before the code is used: a refused one does not burn it
        let hash = try await hashPassword(newPassword, project: project)
        let (record, stored) = try await redeem(code, in: project)
        let now = clock.now()
        try await modifyUser(stored, in: project) { user in
            try Self.requireSameAddress(user, record)
            // The owner of the address proved it: what a pre-registration set before that proof ends.
            _ = user.endPreProofAccess(now: now)
            user.passwordHash = hash
            user.passwordUpdatedAt = now
            user.emailVerified = true
            user.validSince = now.epochSeconds
            user.tokensValidAfter = now
        }
        return record
    }

    /// A code acts only on the address it was sent to: once the account's email is another one (changed since),
    /// the code is refused as Firebase refuses a stale one, `INVALID_OOB_CODE`.
    static func requireSameAddress(_ user: UserRecord, _ record: ActionCodeRecord) throws {
        guard user.email.map(EmailAddress.normalized) == EmailAddress.normalized(record.email) else {
            throw AuthFailure.invalidOobCode
        }
    }

    /// `accounts:update` with an `oobCode`: VERIFY_EMAIL marks the email verified; VERIFY_AND_CHANGE_EMAIL moves the
    /// account to the new, now verified, email, ends earlier sessions and sends the old address a RECOVER_EMAIL link;
    /// RECOVER_EMAIL puts the previous email back (verified) and ends every session, since whoever changed it
    /// may still hold one.
    public func applyActionCode(in project: ProjectContext, code: String?, links: ActionLinkBase? = nil,
                                locale: String? = nil) async throws
        -> (user: UserRecord, code: ActionCodeRecord, recoveryNotice: OutboxMessage?)
    {
        let peeked = try await inspectActionCode(in: project, code: code)
        guard [.verifyEmail, .verifyAndChangeEmail, .recoverEmail].contains(peeked.type) else {
            throw AuthFailure.invalidOobCode
        }
        if peeked.type == .recoverEmail, !project.settings[.allowDuplicateEmails],
           let owner = try await store.user(projectID: project.id, tenantID: peeked.tenantID, email: peeked.email),
           owner.localID != peeked.localID {
            throw AuthFailure.emailExists  // checked before the code is used, so nothing is half-done
        }
        let (record, stored) = try await redeem(code, in: project)
        var previous = (email: stored.email, verified: stored.emailVerified)
        let now = clock.now()
        let user = try await modifyUser(stored, in: project) { user in
            previous = (user.email, user.emailVerified)
            if record.type == .verifyAndChangeEmail || record.type == .recoverEmail {
                // VERIFY_AND_CHANGE_EMAIL was sent to the new address, naming the current one: void once the email
                // moved on. RECOVER_EMAIL restores the owner's address whatever it was changed to since (a thief
                // may have changed it again to strand the link).
                if record.type == .verifyAndChangeEmail { try Self.requireSameAddress(user, record) }
                user.email = record.type == .recoverEmail ? record.email : record.newEmail
                user.validSince = now.epochSeconds
                user.tokensValidAfter = now
            } else {
                // The code verifies the address it was sent to, not whatever the account has since changed to.
                try Self.requireSameAddress(user, record)
            }
            user.emailVerified = true
        }
        if record.type != .verifyEmail {
            try await store.deleteActionCodes(projectID: project.id, tenantID: user.tenantID, localID: user.localID)
        }
        var notice: OutboxMessage?
        if record.type == .verifyAndChangeEmail, let previousEmail = previous.email {
            notice = try await sendRecoveryNotice(in: project, user: user, previousEmail: previousEmail,
                                                  wasVerified: previous.verified, links: links, locale: locale)
        }
        return (user, record, notice)
    }

    /// `accounts:signInWithEmailLink`: uses an EMAIL_SIGNIN code sent to `email`. Signs in the account with that
    /// email, creates one (verified, no password) if there is none, or, with `idToken`, adds the email to that user.
    /// A mismatched email is refused before the code is used, so the right address can still use it.
    public func signInWithEmailLink(in project: ProjectContext, email: String?, code: String?, idToken: String? = nil)
        async throws -> SignInOutcome
    {
        // Firebase's order: the ID token, the email, then the code.
        let linking = try await idToken.asyncMap { try await authenticate($0, in: project) }
        guard let email, !email.isEmpty else { throw AuthFailure.missingEmail }
        let peeked = try await inspectActionCode(in: project, code: code)
        guard peeked.type == .emailSignIn else { throw AuthFailure.invalidOobCode }
        guard EmailAddress.normalized(peeked.email) == EmailAddress.normalized(email) else {
            throw AuthFailure.emailLinkMismatch
        }
        guard let code, let record = try await store.consumeActionCode(projectID: project.id, digest: storageDigest(code))
        else { throw AuthFailure.invalidOobCode }
        guard record.expiresAt > clock.now() else { throw AuthFailure.expiredOobCode }
        let now = clock.now()
        let existing = try await store.user(projectID: project.id, tenantID: project.tenantID, email: record.email)
        if let (linking, claims) = linking {
            try requireRecentLogin(claims, for: .linkCredential)
            if let existing, existing.localID != linking.localID, !project.settings[.allowDuplicateEmails] {
                throw AuthFailure.emailExists
            }
        }
        if let target = linking?.user ?? existing {
            guard !target.disabled else { throw AuthFailure.userDisabled }
            let isLink = linking != nil
            let user = try await modifyUser(target, in: project, session: linking?.claims) { user in
                guard !user.disabled else { throw AuthFailure.userDisabled }
                if !isLink {
                    // Signing in by link to an account whose email was unverified: the address's owner just
                    // proved it, so a password or identities set before by someone else stop working. Firebase's
                    // emulator keeps them (its tests sign in by link to add the method), so emulator mode does.
                    guard user.email.map(EmailAddress.normalized) == EmailAddress.normalized(record.email) else {
                        throw AuthFailure.invalidOobCode
                    }
                    if !emulatorRules { _ = user.endPreProofAccess(now: now) }
                }
                user.email = record.email
                user.emailVerified = true
                user.emailLinkSignin = true
                user.lastLoginAt = now
                user.lastRefreshAt = now
            }
            return try await completeSignIn(user, provider: "password", in: project, now: now, .firstFactor(stamp: nil),
                                            event: AccountEvent(signInMethod: "emailLink"))
        }
        var user = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: SecureRandom.localID(), email: record.email,
                              emailVerified: true, validSince: now.epochSeconds, createdAt: now, lastLoginAt: now,
                              lastRefreshAt: now)
        user.emailLinkSignin = true
        user = try await create(user, origin: .emailLink, in: project)
        return try await completeSignIn(user, provider: "password", in: project, now: now, .created,
                                        event: AccountEvent(signInMethod: "emailLink"))
    }

    /// Consumes a code and loads its user; a code whose user is gone is invalid.
    private func redeem(_ code: String?, in project: ProjectContext) async throws -> (ActionCodeRecord, UserRecord) {
        guard let code, let record = try await store.consumeActionCode(projectID: project.id, digest: storageDigest(code))
        else { throw AuthFailure.invalidOobCode }
        guard record.expiresAt > clock.now() else { throw AuthFailure.expiredOobCode }
        guard let localID = record.localID,
              let user = try await store.user(projectID: project.id, tenantID: record.tenantID, localID: localID),
              user.tenantID == project.tenantID  // the code's tenant is the call's (inspectActionCode), and the user's
        else { throw AuthFailure.invalidOobCode }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        return (record, user)
    }

    static let codeAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `…?mode=…&oobCode=…&apiKey=…&lang=…[&continueUrl=…][&tenantId=…]`, as Firebase's action links; every value
    /// is percent-encoded but for unreserved characters, so a continue URL cannot leak into the link's own query.
    /// A tenant's link names it, so the page and the app act in that tenant.
    static func link(_ base: ActionLinkBase, type: ActionCodeType, code: String, locale: String?,
                     continueURL: String?, tenantID: String? = nil) -> String {
        var pairs = [("mode", type.mode), ("oobCode", code), ("apiKey", base.apiKey), ("lang", locale ?? "en")]
        if let continueURL { pairs.append(("continueUrl", continueURL)) }
        if let tenantID { pairs.append(("tenantId", tenantID)) }
        let query = pairs.map { "\($0.0)=\(queryEncoded($0.1))" }.joined(separator: "&")
        return base.url + (base.url.contains("?") ? "&" : "?") + query
    }

    public static func queryEncoded(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

extension ActionCodes {
    /// The emulator's list of codes: the project's (or a tenant's) queued messages whose code is still unused, as
    /// Firebase's emulator shows them (a used or replaced code leaves the list).
    public func unusedCodes(in project: ProjectContext, tenantID: String?) async throws -> [OutboxMessage] {
        var messages: [OutboxMessage] = []
        for message in try await store.outboxMessages(projectID: project.id) {
            guard let code = try await store.actionCode(projectID: project.id, digest: storageDigest(message.code)),
                  code.tenantID == tenantID else { continue }
            messages.append(message)
        }
        return messages
    }
}
