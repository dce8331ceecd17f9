import Foundation

/// What an email action code (Firebase's `oobCode`) is for.
public enum ActionCodeType: String, Codable, Sendable, CaseIterable {
    case passwordReset = "PASSWORD_RESET"
    case verifyEmail = "VERIFY_EMAIL"
    case emailSignIn = "EMAIL_SIGNIN"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"

    /// The `mode` of the action link.
    public var mode: String {
        switch self {
        case .passwordReset: "resetPassword"
        case .verifyEmail: "verifyEmail"
        case .emailSignIn: "signIn"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .recoverEmail: "recoverEmail"
        }
    }

    /// Firebase's `email_type` in a `beforeSendEmail` blocking function's token.
    public var blockingEventName: String { self == .emailSignIn ? "EMAIL_SIGN_IN" : rawValue }

    /// How long a code stays valid: an hour for password resets (Firebase's documented lifetime), six hours for
    /// sign-in links, three days for verification and recovery.
    public var lifetime: TimeInterval {
        switch self {
        case .passwordReset: 3600
        case .emailSignIn: 6 * 3600
        case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: 3 * 86400
        }
    }
}

/// A stored action code. Only the SHA-256 of the code is kept (`codeDigest`); the code itself travels in the email.
public struct ActionCodeRecord: Sendable, Codable, Equatable {
    public var codeDigest: String
    public var projectID: String
    public var tenantID: String?
    public var type: ActionCodeType
    /// The account the code acts on (`nil` for a sign-in link to an email without an account yet).
    public var localID: String?
    public var email: String
    public var newEmail: String?
    public var continueURL: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(codeDigest: String, projectID: String, tenantID: String? = nil, type: ActionCodeType,
                localID: String?, email: String, newEmail: String? = nil, continueURL: String? = nil,
                createdAt: Date, expiresAt: Date) {
        self.codeDigest = codeDigest
        self.projectID = projectID
        self.tenantID = tenantID
        self.type = type
        self.localID = localID
        self.email = email
        self.newEmail = newEmail
        self.continueURL = continueURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// An email waiting for delivery: the durable outbox. It carries the action link (an email must), so it is removed
/// once delivered; emulator mode keeps it, as Firebase's emulator lists pending codes.
public struct OutboxMessage: Sendable, Codable, Equatable {
    public var id: String
    public var projectID: String
    public var type: ActionCodeType
    public var recipient: String
    public var newEmail: String?
    public var code: String
    public var link: String
    public var locale: String?
    /// The account's display name when the message was queued (`%DISPLAY_NAME%` in templates).
    public var displayName: String?
    public var createdAt: Date
    /// The account's address the code is about (for VERIFY_AND_CHANGE_EMAIL the current one, while the message
    /// goes to the new one): what the emulator's outbox lists as `email`.
    public var accountEmail: String? = nil
    /// The tenant whose user the message is for.
    public var tenantID: String? = nil
    /// Rendered with the built-in text, not the project's templates: a tenant's message when the tenant does not
    /// inherit the project's email settings (`inheritance.emailSendingConfig` off, Firebase's default).
    public var builtInText: Bool? = nil
    /// The link's `continueUrl`, kept apart so a given-up message (whose code and link the outbox discards) can be
    /// sent again with a new code.
    public var continueURL: String? = nil
    /// The account it is for (a RECOVER_EMAIL notice goes to an address the account no longer has).
    public var localID: String? = nil

    /// Whether the outbox discarded its code and link (it gave up): sending it again takes a new code.
    public var isRedacted: Bool { code.isEmpty }

    public init(id: String = UUID().uuidString, projectID: String, type: ActionCodeType, recipient: String,
                newEmail: String? = nil, code: String, link: String, locale: String? = nil, displayName: String? = nil,
                createdAt: Date) {
        self.id = id
        self.projectID = projectID
        self.type = type
        self.recipient = recipient
        self.newEmail = newEmail
        self.code = code
        self.link = link
        self.locale = locale
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// A message leased for delivery, with how many attempts already failed.
/// A queued message and where its delivery stands, for operators (the console's outbox).
public struct OutboxStatus: Sendable, Equatable {
    public var message: OutboxMessage
    public var attempts: Int
    /// When it is tried next; nil once delivery was given up.
    public var nextAttemptAt: Date?
    public var lastError: String?

    public init(message: OutboxMessage, attempts: Int, nextAttemptAt: Date?, lastError: String?) {
        self.message = message
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }
}

public struct OutboxDelivery: Sendable, Equatable {
    public var message: OutboxMessage
    public var attempts: Int

    public init(message: OutboxMessage, attempts: Int) {
        self.message = message
        self.attempts = attempts
    }
}
