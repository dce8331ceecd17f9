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
        customAuth = user.customAuth == true ? true : nil
        let providers = user.providerUserInfo
        providerUserInfo = providers.isEmpty ? nil : providers.map {
            ProviderUserInfoWire(providerId: $0.providerID, rawId: $0.rawID, federatedId: $0.federatedID,
                                 email: $0.email, displayName: $0.displayName, photoUrl: $0.photoURL,
                                 phoneNumber: $0.phoneNumber, screenName: $0.screenName)
        }
        tenantId = user.tenantID
        mfaInfo = user.mfaEnrollments.map { $0.map { MFAInfoWire($0, obfuscated: false) } }
        passkeyInfo = user.passkeys.map { $0.map { PasskeyInfoWire(credentialId: $0.credentialID, name: $0.name) } }
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

/// RFC 3339 with milliseconds in UTC, as Google formats `Timestamp` fields (`2026-11-26T04:20:31.250Z`).
///
/// Written by hand: Foundation's ISO 8601 format style cost a lookup 1.6 % of its time in a profile, for one field.
/// The date is split into days and seconds, and the days into a civil date with Howard Hinnant's `civil_from_days`;
/// `rfc3339MatchesFoundation` checks it against the format style over four centuries.
func rfc3339(_ date: Date) -> String {
    // Whole milliseconds, rounded: a date read from `…28.990Z` is a hair below it.
    var (seconds, millisecond) = Int64((date.timeIntervalSince1970 * 1000).rounded()).quotientAndRemainder(dividingBy: 1000)
    if millisecond < 0 { (seconds, millisecond) = (seconds - 1, millisecond + 1000) }
    var (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
    if second < 0 { (days, second) = (days - 1, second + 86_400) }
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    var text = ""
    text.reserveCapacity(24)
    func append(_ value: Int64, width: Int) {
        let digits = String(value)
        text += String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    append(year, width: 4); text += "-"; append(month, width: 2); text += "-"; append(day, width: 2); text += "T"
    append(second / 3600, width: 2); text += ":"; append(second / 60 % 60, width: 2); text += ":"
    append(second % 60, width: 2); text += "."; append(millisecond, width: 3); text += "Z"
    return text
}
