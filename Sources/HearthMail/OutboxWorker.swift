import Foundation
import HearthCore
import Logging

/// How a project's email goes out: the sender, the app name in templates, the templates, and the SMTP server.
public struct EmailConfiguration: Sendable, Codable, Equatable {
    /// The submission server; without one, emails stay in the outbox (and a warning says so).
    public var smtp: SMTPConfiguration?
    /// The `From:` address.
    public var from: String
    /// The `From:` display name; the app name when absent.
    public var fromName: String?
    /// `{{appName}}` / `%APP_NAME%` in templates (the server puts the project id in when it is empty).
    public var appName: String
    /// The language used when the client sent none Hearth can write in.
    public var defaultLocale: String
    /// Overrides: language → action (`PASSWORD_RESET`, …) → template. They win over the project's stored
    /// templates for the same language and action.
    public var templates: EmailTemplateSet

    public init(smtp: SMTPConfiguration? = nil, from: String = "noreply@localhost", fromName: String? = nil,
                appName: String = "", defaultLocale: String = "en",
                templates: EmailTemplateSet = [:]) {
        self.smtp = smtp
        self.from = from
        self.fromName = fromName
        self.appName = appName
        self.defaultLocale = defaultLocale
        self.templates = templates
    }
}

/// Something that hands a message over: ``SMTPClient`` in production.
public protocol MailTransport: Sendable {
    func send(_ message: MailMessage) async throws
}

extension SMTPClient: MailTransport {}

/// A project's ready-to-use mail settings: compiled templates and a transport.
public struct ProjectMailer: Sendable {
    public var configuration: EmailConfiguration
    /// The config file's templates over Hearth's own.
    public var templates: EmailTemplates
    /// Hearth's own text, for tenants that do not inherit the project's templates.
    public var builtIn: EmailTemplates
    public var transport: any MailTransport
    private let stored = CompiledOnce()

    /// Compiles the templates (a broken one is an error now, not at the first email).
    public init(configuration: EmailConfiguration, transport: (any MailTransport)? = nil) throws {
        guard let transport = transport ?? configuration.smtp.map({ SMTPClient(configuration: $0) }) else {
            throw SMTPError.rejected(command: "configuration", code: 0, text: "no SMTP server configured")
        }
        self.configuration = configuration
        self.templates = try EmailTemplates(overrides: configuration.templates,
                                            defaultLocale: configuration.defaultLocale)
        self.builtIn = try EmailTemplates(defaultLocale: configuration.defaultLocale)
        self.transport = transport
    }

    /// The templates with the project's stored ones (`ProjectSettings.emailTemplates`) under the config file's.
    /// Compiled again only when the stored set changed, so every instance sends what was saved last.
    public func templates(stored: EmailTemplateSet) throws -> EmailTemplates {
        if stored.isEmpty { return templates }
        return try self.stored.templates(for: stored) {
            try EmailTemplates(overrides: stored.overlaid(by: configuration.templates),
                               defaultLocale: configuration.defaultLocale)
        }
    }

    /// The message an outbox entry becomes, with the project's stored templates.
    public func message(for entry: OutboxMessage, date: Date, stored: EmailTemplateSet = [:]) throws -> MailMessage {
        let chosen = entry.builtInText == true ? builtIn : try templates(stored: stored)
        let email = chosen.render(entry.type, locale: entry.locale, values: EmailValues(
            appName: configuration.appName, link: entry.link,
            email: entry.recipient, newEmail: entry.newEmail, displayName: entry.displayName))
        return MailMessage(from: configuration.sender(of: email), to: .init(entry.recipient), subject: email.subject,
                           text: email.text, html: email.html, date: date)
    }
}

extension EmailConfiguration {
    /// The template's sender where it names one, else the configured one.
    public func sender(of email: RenderedEmail) -> MailMessage.Address {
        .init(email.from ?? from, name: email.fromName ?? fromName ?? appName)
    }
}

/// The last stored template set and its compiled form: compiling every language takes milliseconds, and the set
/// changes only when an operator saves.
private final class CompiledOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (source: EmailTemplateSet, templates: EmailTemplates)?

    func templates(for source: EmailTemplateSet, compile: () throws -> EmailTemplates) throws -> EmailTemplates {
        if let last = lock.withLock({ last }), last.source == source { return last.templates }
        let compiled = try compile()
        lock.withLock { last = (source, compiled) }
        return compiled
    }
}

/// Delivers the outbox: leases due messages from the store, renders them in the recipient's language, hands them
/// to the project's transport, deletes what was accepted and reschedules what was not. Because the outbox is in
/// the store and a message is deleted only after the server accepted it, a restart or an SMTP outage loses nothing
/// (a crash between acceptance and deletion can send a message twice, never zero times).
///
/// ```swift
/// let worker = OutboxWorker(store: store, mailers: ["my-project": try ProjectMailer(configuration: email)])
/// try await worker.run()   // until the task is cancelled
/// ```
public struct OutboxWorker: Sendable {
    public let store: any OutboxStore
    public let mailers: [String: ProjectMailer]
    public let clock: any HearthClock
    public let retry: RetryPolicy
    public let logger: Logger
    public let pollInterval: Duration
    public let batchSize: Int
    /// The project's stored email templates, read at each delivery so a saved change reaches every instance.
    public let storedTemplates: @Sendable (_ projectID: String) async throws -> EmailTemplateSet
    /// How long a claimed message is reserved for this sender.
    public let lease: TimeInterval
    private let loop = DeliveryLoop()

    public init(store: any OutboxStore, mailers: [String: ProjectMailer], clock: any HearthClock = SystemClock(),
                retry: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "hearth.mail"),
                pollInterval: Duration = .seconds(5), batchSize: Int = 20, lease: TimeInterval = 300,
                storedTemplates: @escaping @Sendable (_ projectID: String) async throws -> EmailTemplateSet = { _ in [:] }) {
        self.store = store
        self.mailers = mailers
        self.clock = clock
        self.retry = retry
        self.logger = logger
        self.pollInterval = pollInterval
        self.batchSize = batchSize
        self.lease = lease
        self.storedTemplates = storedTemplates
    }

    /// Asks for a delivery pass now (called after queuing a message) instead of at the next poll.
    public func ring() { loop.ring() }

    /// Delivers until the task is cancelled: at every ring, and every `pollInterval` for retries and for messages
    /// other instances queued.
    public func run() async {
        await loop.run(every: pollInterval) { await deliverDue() == batchSize }
    }

    /// One pass: delivers the messages due now. Returns how many were claimed.
    @discardableResult
    public func deliverDue() async -> Int {
        let now = clock.now()
        let due: [OutboxDelivery]
        do {
            due = try await store.claimOutboxMessages(dueAt: now, leaseUntil: now + lease, limit: batchSize)
        } catch {
            logger.error("could not read the outbox; will retry", metadata: ["error": "\(error)"])
            return 0
        }
        for delivery in due { await deliver(delivery) }
        return due.count
    }

    private func deliver(_ delivery: OutboxDelivery) async {
        let entry = delivery.message
        var metadata: Logger.Metadata = ["message": "\(entry.id)", "type": "\(entry.type.rawValue)",
                                         "project": "\(entry.projectID)"]
        do {
            guard let mailer = mailers[entry.projectID] else {
                throw SMTPError.rejected(command: "configuration", code: 0,
                                         text: "no email settings for project \(entry.projectID)")
            }
            let stored = entry.builtInText == true ? [:] : try await storedTemplates(entry.projectID)
            try await mailer.transport.send(mailer.message(for: entry, date: clock.now(), stored: stored))
            try await Self.evenIfStopping { [store] in try await store.deleteOutboxMessage(id: entry.id) }
            logger.info("email delivered", metadata: metadata)
        } catch {
            let attempts = delivery.attempts + 1
            let now = clock.now()
            let permanent = (error as? SMTPError)?.isPermanent ?? false
            let linkExpired = entry.createdAt + entry.type.lifetime <= now
            let next = permanent || linkExpired ? nil : retry.nextAttempt(after: attempts, now: now)
            metadata["attempt"] = "\(attempts)"
            metadata["error"] = "\(error)"
            do {
                try await Self.evenIfStopping { [store, next] in
                    try await store.rescheduleOutboxMessage(id: entry.id, attempts: attempts, nextAttemptAt: next,
                                                            lastError: "\(error)")
                }
            } catch {
                logger.error("could not record a failed delivery; the lease will bring it back",
                             metadata: ["message": "\(entry.id)", "error": "\(error)"])
            }
            if let next {
                metadata["retryAt"] = "\(next)"
                logger.warning("email delivery failed; will retry", metadata: metadata)
            } else {
                logger.error("email delivery given up; check the SMTP settings and the outbox table",
                             metadata: metadata)
            }
        }
    }
}

extension OutboxWorker {
    /// Runs a short store write to its end even when the worker is being stopped (an unstructured task does not
    /// inherit the cancellation). Skipping it would leave a failed message leased — retried only when the lease
    /// runs out — or a delivered one in the outbox, to be sent again.
    static func evenIfStopping(_ write: @escaping @Sendable () async throws -> Void) async throws {
        try await Task { try await write() }.value
    }
}

extension EmailConfiguration {
    /// Every key is optional in a config file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(smtp: try container.decodeIfPresent(SMTPConfiguration.self, forKey: .smtp),
                  from: try container.decodeIfPresent(String.self, forKey: .from) ?? "noreply@localhost",
                  fromName: try container.decodeIfPresent(String.self, forKey: .fromName),
                  appName: try container.decodeIfPresent(String.self, forKey: .appName) ?? "",
                  defaultLocale: try container.decodeIfPresent(String.self, forKey: .defaultLocale) ?? "en",
                  templates: try container.decodeIfPresent(EmailTemplateSet.self,
                                                           forKey: .templates) ?? [:])
    }
}
