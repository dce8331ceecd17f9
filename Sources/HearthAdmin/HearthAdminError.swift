/// Why a HearthAdmin call failed.
public enum HearthAdminError: Error, Equatable, Sendable {
    /// The token is malformed, badly signed, or not an ID token / session cookie of this project.
    case invalidToken(String)
    case tokenExpired
    /// `checkRevoked`: the user's sessions were revoked after this token's sign-in.
    case tokenRevoked
    /// `checkRevoked`: the user is disabled.
    case userDisabled
    /// The admin API refused: Firebase's code (`USER_NOT_FOUND`, `EMAIL_EXISTS`, …) and the whole message.
    case server(status: Int, code: String, message: String)
    /// Hearth could not be reached or answered something that is not JSON.
    case transport(String)
    /// The call was refused before anything was sent (a reserved claim name, a uid too long, …).
    case invalidArgument(String)
    /// The token belongs to another tenant (or to the project, for a tenant's handle), as firebase-admin's
    /// `TenantIdMismatchError`.
    case tenantMismatch(expected: String?, found: String?)
}
