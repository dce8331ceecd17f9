import HearthCore
import HTTPTypes
import Hummingbird
import Logging

/// Who a request acts for and where it comes from, for the audit events it causes. Use-cases report events
/// without knowing HTTP; the recorder reads this task-local to add the client address and the admin actor.
struct AuditScope: Sendable {
    var clientAddress: String
    /// The service account of an admin call (`owner` for the emulator's `Bearer owner`).
    var actor: String?
    /// The call's tenant, once ``TenantScope`` has resolved it: its events (and their webhooks) carry it.
    var tenantID: String?

    @TaskLocal static var current: AuditScope?
}

/// Sets ``AuditScope/current`` for the rest of the request.
struct AuditScopeMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let trustForwardedFor: Bool

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        let scope = AuditScope(clientAddress: context.clientAddress(of: request, trustForwardedFor: trustForwardedFor))
        // What hooks tell a blocking function about the caller (core knows no HTTP).
        let caller = CallerInfo(ipAddress: scope.clientAddress, userAgent: request.headers[.userAgent].map { String($0.prefix(512)) },
                                locale: request.headers[.xFirebaseLocale].map { String($0.prefix(35)) },
                                addressKey: RateLimitKey.address(scope.clientAddress))
        return try await AuditScope.$current.withValue(scope) {
            try await CallerInfo.$current.withValue(caller) { try await next(request, context) }
        }
    }
}

/// Keeps security events: in the project's audit log in the store, and as a `hearth.audit` log line.
///
/// Storing is bookkeeping: if the store refuses the event, the request that caused it still succeeds (a sign-in
/// is not refused because its audit row could not be written) and the failure is logged as an error.
struct AuditRecorder: AuditTrail {
    let store: any UnitOfWorkStore
    let clock: any HearthClock
    let logger: Logger
    /// Called once an event that webhooks take is stored (the store queued it for the endpoints): wakes the sender.
    var eventStored: @Sendable () -> Void = {}

    /// `text` with control characters escaped (a CR or LF cannot start a forged log line) and cut to 256 characters.
    static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard out.count < 256 else { return String(out) + "…" }
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                out.append(contentsOf: String(format: scalar.value < 0x80 ? "\\x%02x" : "\\u{%x}", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    init(store: any UnitOfWorkStore, clock: any HearthClock, logger: Logger) {
        self.store = store
        self.clock = clock
        var audit = logger
        audit[metadataKey: "component"] = "audit"
        self.logger = audit
    }

    func record(_ event: SecurityEvent) async {
        await record(kind: event.kind.rawValue, projectID: event.projectID, localID: event.localID,
                     outcome: event.isFailure ? .failure : .success, details: event.details)
    }

    /// The stored form of `event`, with the request's client address and admin actor.
    func row(for event: SecurityEvent) -> AuditEvent? {
        var row = row(kind: event.kind.rawValue, projectID: event.projectID, localID: event.localID,
                      outcome: event.isFailure ? .failure : .success, details: event.details)
        row.tenantID = event.tenantID ?? row.tenantID
        return row
    }

    /// Logs a row that is stored (as part of the change it records).
    func committed(_ event: AuditEvent) {
        var metadata: Logger.Metadata = ["project": "\(event.projectID)", "outcome": "\(event.outcome.rawValue)"]
        if let localID = event.localID { metadata["user"] = "\(localID)" }
        if let address = event.clientAddress { metadata["client"] = "\(address)" }
        for (key, value) in event.details where key != "email" { metadata[key] = "\(value)" }
        logger.notice("\(event.kind)", metadata: metadata)
        if WebhookEventType(auditKind: event.kind) != nil { eventStored() }
    }

    private func row(kind: String, projectID: String, localID: String?, outcome: AuditEvent.Outcome,
                     details: [String: String]) -> AuditEvent {
        let scope = AuditScope.current
        var details = details
        if let actor = scope?.actor { details["actor"] = actor }
        // Values may be typed by anyone (a console sign-in's email): one line each, and a bounded size.
        details = details.mapValues(Self.printable)
        var event = AuditEvent(projectID: projectID, at: clock.now(), kind: kind, localID: localID, outcome: outcome,
                               clientAddress: scope?.clientAddress, details: details)
        event.tenantID = scope?.tenantID
        return event
    }

    func record(kind: String, projectID: String, localID: String?, outcome: AuditEvent.Outcome,
                details: [String: String] = [:]) async {
        let event = row(kind: kind, projectID: projectID, localID: localID, outcome: outcome, details: details)
        do {
            try await store.insertAuditEvent(event)
            committed(event)
        } catch {
            committed(event)  // logged even when it could not be stored
            logger.error("audit event not stored", metadata: [
                "kind": "\(kind)", "error": "\(error)", "hint": "check the store; the request itself went through"])
        }
    }
}
