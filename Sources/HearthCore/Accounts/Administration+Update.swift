import Foundation

/// Firebase's rules for developer claims (`customAttributes`): a JSON object of at most 1000 bytes whose names are
/// not reserved (they would shadow the token's own claims).
public enum CustomClaims {
    public static let maximumBytes = 1000

    public static func validate(_ json: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw AuthFailure.invalidClaims
        }
        guard json.utf8.count <= maximumBytes else { throw AuthFailure.claimsTooLarge }
        if let reserved = object.keys.sorted().first(where: IDTokenIssuer.reservedClaims.contains) {
            throw AuthFailure.forbiddenClaim(reserved)
        }
    }
}

/// What an admin `accounts:update` changes; `nil` leaves a field alone.
public struct AdminChanges: Sendable, Equatable {
    public var profile = AccountChanges()
    /// A JSON object; empty or `{}` removes every claim.
    public var customAttributes: String?
    public var disabled: Bool?
    public var emailVerified: Bool?
    /// Epoch seconds: tokens issued before it stop working (Admin SDKs' `revokeRefreshTokens`).
    public var validSince: Int64?
    public var phoneNumber: String?
    /// A federated identity to link (Admin SDKs' `providerToLink`).
    public var linkProvider: ProviderUserInfo?
    /// Provider ids to unlink (`phone` clears the phone number).
    public var deleteProviders: [String] = []
    /// Passkeys to remove, by credential id (`deletePasskey`: the console's Remove, an operator's cleanup).
    public var deletePasskeys: [String] = []
    /// `mfa.enrollments`: replaces the second factors (empty removes them all).
    public var mfaEnrollments: [MFAEnrollmentInput]?

    public init() {}
}

extension Administration {
    /// `projects/{id}/accounts:update` by an administrator: no recent-login rule, admin-only fields. A new password
    /// or email, or a `validSince`, ends earlier sessions.
    public func adminUpdate(in project: ProjectContext, localID: String?, changes: AdminChanges) async throws -> UserRecord {
        guard let localID, !localID.isEmpty else { throw AuthFailure.missingLocalID }
        guard let stored = try await store.user(projectID: project.id, tenantID: project.tenantID, localID: localID) else {
            throw AuthFailure.userNotFound
        }
        let now = clock.now()
        if let claims = changes.customAttributes, !(claims.isEmpty || claims == "{}") {
            try CustomClaims.validate(claims)
        }
        let prepared = try await context.updates.prepare(changes.profile, project: project, byAdministrator: true)
        if let phone = changes.phoneNumber, !phone.isEmpty {
            guard PhoneNumber.isValid(phone) else { throw AuthFailure.invalidPhoneNumber }
            if let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, phoneNumber: phone),
               owner.localID != localID {
                throw AuthFailure.phoneNumberExists
            }
        }
        if let link = changes.linkProvider {
            try Self.checkDescribed(link)
            if let owner = try await store.user(projectID: project.id, tenantID: project.tenantID, providerID: link.providerID,
                                                rawID: link.rawID), owner.localID != localID {
                throw AuthFailure.federatedUserIDAlreadyLinked
            }
        }
        var before = stored
        let user = try await modifyUser(stored, in: project) { user in
            before = user
            if let claims = changes.customAttributes {
                user.customAttributes = claims.isEmpty || claims == "{}" ? nil : claims
            }
            try prepared.apply(to: &user, now: now)
            if let disabled = changes.disabled { user.disabled = disabled }
            if let verified = changes.emailVerified { user.emailVerified = verified }
            if let phone = changes.phoneNumber { user.phoneNumber = phone.isEmpty ? nil : phone }
            if let link = changes.linkProvider {
                user.providers.removeAll { $0.providerID == link.providerID }
                user.providers.append(link)
            }
            for provider in changes.deleteProviders {
                if provider == "phone" { user.phoneNumber = nil }
                user.providers.removeAll { $0.providerID == provider }
            }
            if !changes.deletePasskeys.isEmpty {
                let kept = (user.passkeys ?? []).filter { !changes.deletePasskeys.contains($0.credentialID) }
                user.passkeys = kept.isEmpty ? nil : kept
            }
            if let inputs = changes.mfaEnrollments {
                user.enrollments = try MFAEnrollmentInput.resolve(inputs, existing: user.enrollments, now: now,
                                                                  ids: .given(required: emulatorRules))
            }
            if let validSince = changes.validSince {
                user.validSince = validSince
                user.tokensValidAfter = Date(timeIntervalSince1970: TimeInterval(validSince))
            }
        }
        if let email = changes.profile.email, before.email.map(EmailAddress.normalized) != EmailAddress.normalized(email) {
            try await store.deleteActionCodes(projectID: project.id, tenantID: user.tenantID, localID: user.localID)
        }
        return user
    }
}

extension Administration {
    /// An identity described by the caller (`linkProviderUserInfo`): a provider and its raw id, and not the
    /// password or phone entries, which describe the account itself.
    static func checkDescribed(_ identity: ProviderUserInfo) throws {
        guard !identity.providerID.isEmpty else { throw AuthFailure.missingProviderID }
        guard !identity.rawID.isEmpty else { throw AuthFailure.missingRawID }
        guard !["password", "phone"].contains(identity.providerID) else { throw AuthFailure.invalidProviderID }
    }

    /// Emulator mode only: Firebase's emulator lets a client link an identity it merely describes
    /// (`accounts:update` with an ID token and `linkProviderUserInfo`). Nothing vouches for such an identity, so
    /// production takes it from administrators only.
    public func linkDescribedIdentity(in project: ProjectContext, idToken: String?, identity: ProviderUserInfo)
        async throws -> UserRecord
    {
        try Self.checkDescribed(identity)
        let (user, claims) = try await authenticate(idToken, in: project)
        return try await modifyUser(user, in: project, session: claims) { user in
            user.providers.removeAll { $0.providerID == identity.providerID }
            user.providers.append(identity)
        }
    }
}
