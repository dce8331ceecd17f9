import Foundation

/// Every change that needs an interactive sign-in within the recent-login window, in one list.
///
/// Each endpoint that changes how an account signs in (or deletes it) names its case when it calls
/// ``AccountContext/requireRecentLogin(_:for:)``; an ID token older than the window gets
/// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, so a token stolen from a device cannot be turned into a lasting takeover.
///
/// ```swift
/// let (user, claims) = try await accounts.authenticate(idToken, in: project)
/// try accounts.requireRecentLogin(claims, for: .changePassword)
/// ```
public enum SensitiveChange: String, Sendable, CaseIterable {
    /// `accounts:delete`.
    case deleteAccount
    /// `accounts:update` with `email`, and `sendOobCode` VERIFY_AND_CHANGE_EMAIL.
    case changeEmail
    /// `accounts:update` with `password`.
    case changePassword
    /// Adding a credential to a signed-in account: `signUp`, `signInWithEmailLink`, `signInWithPhoneNumber` and
    /// `signInWithIdp` with an `idToken`, and `passkeyEnrollment:finalize`.
    case linkCredential
    /// `accounts:update` with `deleteProvider` or `deletePasskey`.
    case unlinkProvider
    /// `mfaEnrollment:start` and `mfaEnrollment:finalize`.
    case enrollSecondFactor
    /// `mfaEnrollment:withdraw` (which also needs a session that passed a second factor).
    case withdrawSecondFactor
}

/// Limits on what a user writes into their own profile, so that no field can bloat every ID token or email.
///
/// ```swift
/// try ProfileLimits.check(user)   // INVALID_ARGUMENT if the display name or photo URL is too long
/// ```
public enum ProfileLimits {
    /// Longest display name, in characters (Firebase's consoles cut names far shorter).
    public static let displayName = 256
    /// Longest photo URL, in UTF-8 bytes.
    public static let photoURL = 2048

    public static func check(_ user: UserRecord) throws {
        if let name = user.displayName, name.count > displayName || name.contains(where: \.isControlCharacter) {
            throw AuthFailure.invalidArgument("DISPLAY_NAME must be at most \(displayName) characters, without control characters")
        }
        if let photo = user.photoURL, photo.utf8.count > photoURL || photo.contains(where: \.isControlCharacter) {
            throw AuthFailure.invalidArgument("PHOTO_URL must be at most \(photoURL) bytes, without control characters")
        }
    }
}

extension Character {
    /// C0 and C1 controls, DEL, and the line and paragraph separators.
    var isControlCharacter: Bool {
        unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029
        }
    }
}
