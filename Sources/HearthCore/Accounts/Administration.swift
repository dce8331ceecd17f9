import Foundation

/// A user an administrator creates (`projects/{id}/accounts`, Admin SDKs' `createUser`).
public struct AdminNewUser: Sendable, Equatable {
    /// Caller-chosen uid (at most 128 characters); random when `nil`.
    public var localID: String?
    public var email: String?
    public var password: String?
    public var emailVerified = false
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var disabled = false
    /// Phone second factors (`mfaInfo`).
    public var mfa: [MFAEnrollmentInput] = []

    public init(localID: String? = nil, email: String? = nil, password: String? = nil) {
        self.localID = localID
        self.email = email
        self.password = password
    }
}

/// Session cookies: the claims of an ID token, re-signed with their own issuer and lifetime.
public enum SessionCookie {
    public static let issuerPrefix = "https://session.firebase.google.com/"
    /// Firebase's bounds: 5 minutes to 14 days.
    public static let allowedDuration: ClosedRange<Int64> = 300...1_209_600
}

/// What an administrator does to accounts (Admin SDKs, the console): create, update, delete in batches, session cookies.
public struct Administration: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// Creates an account as an administrator: no sign-in, no tokens, the profile as given.
    public func adminCreate(in project: ProjectContext, _ new: AdminNewUser) async throws -> UserRecord {
        let localID = new.localID ?? SecureRandom.localID()
        guard !localID.isEmpty, localID.utf8.count <= 128 else { throw AuthFailure.invalidIdentifier }
        if let email = new.email { guard EmailAddress.isValid(email) else { throw AuthFailure.invalidEmail } }
        if let phone = new.phoneNumber {
            guard PhoneNumber.isValid(phone) else { throw AuthFailure.invalidPhoneNumber }
            if try await store.user(projectID: project.id, tenantID: project.tenantID, phoneNumber: phone) != nil {
                throw AuthFailure.phoneNumberExists
            }
        }
        var hash: String?
        if let password = new.password {
            try PasswordPolicy.check(password)
            hash = try await hashPassword(password, project: project)
        }
        let now = clock.now()
        var user = UserRecord(
            projectID: project.id, tenantID: project.tenantID, localID: localID, email: new.email.map(EmailAddress.normalized),
            emailVerified: new.emailVerified,
            displayName: new.displayName, photoURL: new.photoURL, phoneNumber: new.phoneNumber, passwordHash: hash,
            passwordUpdatedAt: hash == nil ? nil : now, validSince: now.epochSeconds, disabled: new.disabled,
            createdAt: now)
        user.enrollments = try MFAEnrollmentInput.resolve(new.mfa, existing: [], now: now, ids: .generated)
        user = try await create(user, origin: .admin, in: project)
        do {
            try await insert(user, project: project)
        } catch StoreError.duplicateLocalID {
            throw AuthFailure.duplicateLocalID("")
        }
        await audit?.record(SecurityEvent(kind: .accountCreated, projectID: project.id, localID: user.localID))
        return user
    }

    /// `accounts:batchDelete`: deletes up to 1000 accounts. Without `force`, enabled accounts are refused (by index);
    /// unknown ids are skipped silently, as Firebase does.
    public func batchDelete(in project: ProjectContext, localIDs: [String], force: Bool) async throws
        -> [(index: Int, localID: String)]
    {
        var notDisabled: [(index: Int, localID: String)] = []
        for (index, id) in localIDs.enumerated() {
            guard let user = try await store.user(projectID: project.id, tenantID: project.tenantID, localID: id) else { continue }
            if !force && !user.disabled {
                notDisabled.append((index, id))
                continue
            }
            if try await store.deleteUser(projectID: project.id, tenantID: project.tenantID, localID: id) {
                await audit?.record(SecurityEvent(kind: .accountDeleted, projectID: project.id, localID: id,
                                                  details: ["by": "administrator"]))
            }
        }
        return notDisabled
    }

    /// `createSessionCookie`: the ID token's claims (custom and session claims included) under the session-cookie
    /// issuer, valid for `validDuration` seconds, signed with the project's keys. The token must be valid now
    /// (signature, expiry, user enabled, not revoked).
    public func createSessionCookie(in project: ProjectContext, idToken: String?, validDuration: Int64?) async throws
        -> String
    {
        guard let idToken, !idToken.isEmpty else { throw AuthFailure.missingIDToken }  // first, as Firebase
        // Without a duration (or with 0) the cookie lives the longest allowed, two weeks, as Firebase's emulator has it.
        let validDuration = validDuration.flatMap { $0 == 0 ? nil : $0 } ?? SessionCookie.allowedDuration.upperBound
        guard SessionCookie.allowedDuration.contains(validDuration) else { throw AuthFailure.invalidDuration }
        _ = try await authenticate(idToken, in: project)
        guard let payload = try? JWS.verify(idToken, keys: project.keys),
              var claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw AuthFailure.invalidIDToken }
        let now = clock.now().epochSeconds
        claims["iss"] = SessionCookie.issuerPrefix + project.id
        claims["iat"] = now
        claims["exp"] = now + validDuration
        let data = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        return try JWS.sign(payload: Array(data), with: project.keys.active)
    }
}
