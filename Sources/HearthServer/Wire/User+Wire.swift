import Foundation
import HearthCore
import HearthWire

// A stored user on the wire: what lookups, admin reads, exports and update answers carry, for client and admin
// routes alike.

extension UpdateAccountResponse {
    /// The user part of an update response (the same fields as `UserInfo`, hash redacted).
    init(_ user: UserRecord) {
        let info = UserInfo(user)
        self.init(localId: info.localId)
        email = info.email
        emailVerified = info.emailVerified
        displayName = info.displayName
        photoUrl = info.photoUrl
        passwordHash = info.passwordHash
        providerUserInfo = info.providerUserInfo
    }
}

extension ProviderUserInfo {
    /// An identity as a request describes it (`linkProviderUserInfo`); a missing raw id is empty, and refused.
    init(_ wire: ProviderUserInfoInput) {
        self.init(providerID: wire.providerId ?? "", rawID: wire.rawId ?? "", federatedID: wire.federatedId, email: wire.email,
                  displayName: wire.displayName, photoURL: wire.photoUrl, phoneNumber: wire.phoneNumber,
                  screenName: wire.screenName)
    }
}

extension UserInfo {
    /// The wire form of a stored user; the password hash is always redacted (also what `hearth users get --json`
    /// prints).
    public init(_ user: UserRecord) {
        self.init(localId: user.localID)
        email = user.email
        emailVerified = user.email == nil ? nil : user.emailVerified
        displayName = user.displayName
        photoUrl = user.photoURL
        phoneNumber = user.phoneNumber
        disabled = user.disabled ? true : nil
        passwordHash = user.passwordHash == nil ? nil : UserInfo.redactedPasswordHash
        passwordUpdatedAt = user.passwordUpdatedAt.map { Double($0.epochMilliseconds) }
        validSince = user.isAnonymous ? nil : String(user.validSince)
        lastLoginAt = user.lastLoginAt.map { String($0.epochMilliseconds) }
        createdAt = String(user.createdAt.epochMilliseconds)
        lastRefreshAt = user.lastRefreshAt.map(rfc3339)
        customAttributes = user.customAttributes
        screenName = user.screenName
        initialEmail = user.initialEmail
        emailLinkSignin = user.emailLinkSignin == true ? true : nil
        let providers = user.providerUserInfo
        providerUserInfo = providers.isEmpty ? nil : providers.map {
            ProviderUserInfoWire(providerId: $0.providerID, rawId: $0.rawID, federatedId: $0.federatedID,
                                 email: $0.email, displayName: $0.displayName, photoUrl: $0.photoURL,
                                 phoneNumber: $0.phoneNumber, screenName: $0.screenName)
        }
        tenantId = user.tenantID
        mfaInfo = user.enrollments.isEmpty ? nil : user.enrollments.map { MFAInfoWire($0, obfuscated: false) }
    }
}

extension UserInfo {
    /// The admin view of a user: as ``init(_:)``, plus the password hash and salt when they are Firebase scrypt
    /// under the project's parameters (what listUsers and exports carry, so users can move to Firebase as is),
    /// and `validSince` even for anonymous accounts (revocation checks need it).
    init(_ user: UserRecord, exportingHashesOf project: ProjectContext) {
        self.init(user)
        validSince = String(user.validSince)
        let (hash, salt) = FirebaseUserFile.exportFields(user, parameters: project.record.hashConfig)
        if let hash, let salt {
            passwordHash = hash
            self.salt = salt
        }
    }
}

/// RFC 3339 with milliseconds in UTC, as Google formats `Timestamp` fields.
func rfc3339(_ date: Date) -> String {
    // Whole milliseconds, rounded: the formatter truncates, and a date read from `…28.990Z` is a hair below it.
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
    let whole = Date(timeIntervalSince1970: TimeInterval(fraction < 0 ? seconds - 1 : seconds))
        .formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    return whole.dropLast() + "." + String(String((fraction + 1000) % 1000 + 1000).dropFirst()) + "Z"
}
