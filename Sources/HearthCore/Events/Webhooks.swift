import Crypto
import Foundation

/// Where a project's account events go: an HTTPS endpoint of the app's backend, with its signing secret
/// (Standard Webhooks' `whsec_…`) and the event types it takes. Kept in the store, its secret sealed at rest.
///
/// ```swift
/// let endpoint = WebhookEndpoint(projectID: "my-app", url: "https://api.example.com/hearth-events",
///                                types: [.userCreated, .userDeleted], now: Date())
/// try await store.insertWebhookEndpoint(endpoint)
/// ```
public struct WebhookEndpoint: Sendable, Codable, Equatable {
    public var projectID: String
    /// `ep_` and 16 random characters.
    public var id: String
    public var url: String
    /// `whsec_` and 32 random bytes in base64: the HMAC key of every signature.
    public var secret: String
    public var types: [WebhookEventType]
    public var createdAt: Date

    public init(projectID: String, url: String, types: [WebhookEventType] = WebhookEventType.allCases, now: Date) {
        self.projectID = projectID
        id = "ep_" + SecureRandom.string(length: 16, alphabet: Array("abcdefghijklmnopqrstuvwxyz0123456789"))
        self.url = url
        secret = "whsec_" + Data(SecureRandom.bytes(32)).base64EncodedString()
        self.types = types
        self.createdAt = now
    }

    /// The audit kinds this endpoint takes, as the store matches them.
    public var auditKinds: [String] { types.flatMap(\.auditKinds).sorted() }
}

extension WebhookEndpoint: HoldsSecrets {
    public func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> WebhookEndpoint {
        var copy = self
        copy.secret = try transform(secret, "project:\(projectID):webhook:\(id)")
        return copy
    }
}

/// The account events an endpoint can take, and the audit events each comes from.
public enum WebhookEventType: String, Sendable, Codable, CaseIterable {
    case userCreated = "user.created"
    case userDeleted = "user.deleted"
    case userSignedIn = "user.signed_in"
    case passwordChanged = "user.password_changed"
    case emailChanged = "user.email_changed"
    case mfaEnrolled = "user.mfa_enrolled"
    case mfaWithdrawn = "user.mfa_withdrawn"
    case userDisabled = "user.disabled"
    case userEnabled = "user.enabled"

    public var auditKinds: [String] {
        switch self {
        case .userCreated: [SecurityEvent.Kind.signUp.rawValue, SecurityEvent.Kind.accountCreated.rawValue]
        case .userDeleted: [SecurityEvent.Kind.accountDeleted.rawValue]
        case .userSignedIn: [SecurityEvent.Kind.signIn.rawValue]
        case .passwordChanged: [SecurityEvent.Kind.passwordChanged.rawValue]
        case .emailChanged: [SecurityEvent.Kind.emailChanged.rawValue]
        case .mfaEnrolled: [SecurityEvent.Kind.mfaEnrolled.rawValue]
        case .mfaWithdrawn: [SecurityEvent.Kind.mfaWithdrawn.rawValue]
        case .userDisabled: [SecurityEvent.Kind.accountDisabled.rawValue]
        case .userEnabled: [SecurityEvent.Kind.accountEnabled.rawValue]
        }
    }

    public init?(auditKind: String) {
        guard let type = Self.allCases.first(where: { $0.auditKinds.contains(auditKind) }) else { return nil }
        self = type
    }
}

/// One event to deliver to one endpoint: the audit event it comes from and its delivery state.
public struct WebhookMessage: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var endpointID: String
    /// The audit event's id: the `webhook-id` a receiver deduplicates by (a replay sends the same one).
    public var eventID: String
    public var attempts: Int
    /// When it is tried next: `nil` once delivered or given up.
    public var nextAttemptAt: Date?
    public var deliveredAt: Date?
    public var lastError: String?
    public var createdAt: Date
    /// The event, and the endpoint it goes to (`nil` when either was removed since).
    public var event: AuditEvent?
    public var endpoint: WebhookEndpoint?

    public init(id: String, projectID: String, endpointID: String, eventID: String, attempts: Int, nextAttemptAt: Date?,
                deliveredAt: Date?, lastError: String?, createdAt: Date, event: AuditEvent?, endpoint: WebhookEndpoint?) {
        self.id = id
        self.projectID = projectID
        self.endpointID = endpointID
        self.eventID = eventID
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.event = event
        self.endpoint = endpoint
    }

    /// Delivered, waiting, or given up.
    public var state: String { deliveredAt != nil ? "delivered" : nextAttemptAt == nil ? "given-up" : "pending" }
    /// The same, as the admin API's enums spell it: `DELIVERED`, `PENDING`, `FAILED`.
    public var wireState: String { ["delivered": "DELIVERED", "given-up": "FAILED"][state] ?? "PENDING" }
}

extension RetryPolicy {
    /// Webhooks' schedule: from 5 seconds, doubling to an hour, for about a day (30 attempts); given up at once on
    /// `410 Gone`.
    public static let webhooks = RetryPolicy(initialDelay: 5, maximumDelay: 3600, maximumAttempts: 30)
}

/// An event as Standard Webhooks (standardwebhooks.com) sends it: a JSON body `{"type", "timestamp", "data"}` and
/// the headers `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of
/// `id.timestamp.body` under the secret's key).
///
/// ```swift
/// let signed = try StandardWebhook(event: auditEvent, secret: endpoint.secret, sentAt: Date())
/// request.headers = signed.headers; request.body = signed.body
/// ```
public struct StandardWebhook: Sendable {
    public var id: String
    public var body: Data
    public var headers: [(name: String, value: String)]

    public init(event: AuditEvent, secret: String, sentAt: Date) throws {
        guard let type = WebhookEventType(auditKind: event.kind) else { throw WebhookError.notAnEvent(event.kind) }
        var data: [String: Any] = ["projectId": event.projectID, "auditKind": event.kind]
        data["uid"] = event.localID
        data["tenantId"] = event.tenantID
        data["ipAddress"] = event.clientAddress
        if !event.details.isEmpty { data["details"] = event.details }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let payload: [String: Any] = ["type": type.rawValue, "timestamp": formatter.string(from: event.at), "data": data]
        body = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        id = event.id
        let timestamp = String(sentAt.epochSeconds)
        headers = [("webhook-id", id), ("webhook-timestamp", timestamp),
                   ("webhook-signature", "v1," + (try Self.signature(id: id, timestamp: timestamp, body: body, secret: secret)))]
    }

    /// The base64 HMAC-SHA256 of `id.timestamp.body` under the secret's key (its base64 part, after `whsec_`).
    public static func signature(id: String, timestamp: String, body: Data, secret: String) throws -> String {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        guard let key = Data(base64Encoded: encoded) else { throw WebhookError.badSecret }
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return Data(mac).base64EncodedString()
    }
}

public enum WebhookError: Error, Equatable, CustomStringConvertible {
    case notAnEvent(String)
    case badSecret

    public var description: String {
        switch self {
        case .notAnEvent(let kind): "audit kind \(kind) is not a webhook event"
        case .badSecret: "the endpoint's secret is not whsec_ and base64"
        }
    }
}
