import Foundation
import HearthCore
import HearthFederation
import HearthMail
import Logging
import Synchronization

/// The long-lived parts every handler shares, built once by ``buildApplication(configuration:store:logger:)``.
public struct HearthServices: Sendable {
    public let configuration: ServerConfiguration
    public let store: any IdentityStore
    public let projects: ProjectDirectory
    public let accounts: AccountContext
    public let logger: Logger
    public let limiter: RateLimiter
    /// Halts SMS to number prefixes that are being pumped (``SMSPumpingWatch``).
    public let smsPumping: SMSPumpingWatch
    /// Checks CAPTCHA tokens where `recaptchaConfig` enforcement is on (``CaptchaGate``); `nil`: no provider.
    public let captcha: (any CaptchaVerifier)?
    /// Delivers the outbox over SMTP; `nil` in emulator mode (emails stay listed) and without an SMTP server.
    public let mail: OutboxWorker?
    /// Sends SMS verification codes: the emulator's outbox in emulator mode, else the configured provider.
    let sms: any SMSSender
    /// The emulator's SMS outbox (emulator mode only).
    let smsOutbox: EmulatorSMSOutbox?
    /// Verifies IdP credentials for `signInWithIdp`; `nil`: only the emulator's fake tokens (emulator mode).
    let federation: (any IdentityProviderVerifier)?
    /// Authorization URLs and code exchanges of the redirect flow.
    let redirects: (any FederatedRedirectProvider)?
    /// Keeps security events in the audit log.
    let audit: AuditRecorder
    /// The port the server listens on, once it does (links in emails use it when `publicURL` is not set).
    let listeningPort = ListeningPort()
    /// Emulator mode: the tenants deleted while this server runs (`project/tenant`), which `GET …/tenants/{id}` does
    /// not make again, so a deleted tenant reads as deleted, as the Admin SDKs expect.
    let deletedTenants = DeletedTenants()
    /// Emulator mode: the failures a test suite asked for (``EmulatorControlRoutes``).
    let faults = EmulatorFaults()

    final class ListeningPort: Sendable {
        let value = Atomic<Int>(0)
    }

    final class DeletedTenants: Sendable {
        private let ids = Mutex<Set<String>>([])
        func insert(_ id: String, in project: String) { _ = ids.withLock { $0.insert(project + "/" + id) } }
        func contains(_ id: String, in project: String) -> Bool { ids.withLock { $0.contains(project + "/" + id) } }
    }

    /// Where links in emails point.
    public var actionURL: String {
        let bound = listeningPort.value.load(ordering: .relaxed)
        return configuration.actionURL(listeningOn: bound == 0 ? configuration.port : bound)
    }

    /// Where browsers reach this server: the public URL, else `http://host:port`.
    public var publicBaseURL: String {
        if let url = configuration.publicURL { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        let bound = listeningPort.value.load(ordering: .relaxed)
        return "http://\(configuration.host):\(bound == 0 ? configuration.port : bound)"
    }

    /// The base URLs an admin JWT may name as `aud`: the public URL when configured, else this server's address.
    public var adminAudiences: [String] {
        if let url = configuration.publicURL { return [url] }
        let bound = listeningPort.value.load(ordering: .relaxed)
        let port = bound == 0 ? configuration.port : bound
        return ["http://\(configuration.host):\(port)", "http://localhost:\(port)", "http://127.0.0.1:\(port)"]
    }

    public init(configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock,
                hashing: any BlockingWorkRunner, logger: Logger, mail: OutboxWorker? = nil,
                sms: (any SMSSender)? = nil,
                federation: (any IdentityProviderVerifier & FederatedRedirectProvider)? = nil,
                hashParameters: (@Sendable () -> FirebaseScryptParameters)? = nil,
                hooks: [any AccountHook] = [], webhooks: WebhookWorker? = nil,
                breachedPasswords: (any BreachedPasswordList)? = nil, captcha: (any CaptchaVerifier)? = nil,
                passwordSource: (any PasswordSource)? = nil) {
        self.configuration = configuration
        let outbox = configuration.isEmulator ? EmulatorSMSOutbox(logger: logger) : nil
        smsOutbox = outbox
        self.sms = sms ?? outbox ?? UnconfiguredSMSSender()
        self.federation = federation
        self.redirects = federation
        self.mail = mail
        self.store = store
        self.logger = logger
        self.captcha = captcha
        limiter = RateLimiter(store: store, clock: clock)
        smsPumping = SMSPumpingWatch(store: store, limiter: limiter, clock: clock, rules: configuration.rateLimits.smsPumping)
        let protection = configuration.emailEnumerationProtection ?? !configuration.isEmulator
        projects = ProjectDirectory(
            store: store, clock: clock,
            defaults: { [isEmulator = configuration.isEmulator] _ in
                var settings = ProjectSettings(enableImprovedEmailPrivacy: protection)
                // Firebase's emulator has SMS multi-factor on for every project; Hearth's adds TOTP.
                if isEmulator { settings.mfa = MFASettings(state: .enabled, providers: [.phoneSMS, .totp]) }
                // Firebase: a new project has phone sign-in off until it is turned on; its emulator has it on.
                settings[.phoneSignIn] = isEmulator
                // So is anonymous sign-in, as in Firebase's console; projects stored before keep what they have.
                settings[.anonymousSignIn] = isEmulator
                return settings
            },
            hashParameters: hashParameters ?? { [isEmulator = configuration.isEmulator] in
                isEmulator ? .generateForEmulator() : .generate()
            })
        var accounts = AccountContext(
            store: store, clock: clock, hashing: hashing,
            issuer: IDTokenIssuer(issuerPrefix: configuration.issuerPrefix),
            recentLoginWindow: configuration.recentLoginWindow, bcrypt: HummingbirdBcryptVerifier())
        // Where Firebase's emulator is weaker than production and its tests depend on it (docs/modes.md).
        accounts.emulatorRules = configuration.isEmulator
        var audit = AuditRecorder(store: store, clock: clock, logger: .hearth("hearth.audit"))
        // Woken only when the event can have queued something: with no endpoint, a sign-in costs the sender nothing.
        if let webhooks { audit.eventStored = { [store] in if !store.knowsNoWebhookEndpoints { webhooks.ring() } } }
        accounts.audit = audit
        accounts.sessionsPerUser = configuration.sessionsPerUser
        accounts.hooks = hooks
        accounts.breachedPasswords = breachedPasswords
        accounts.passwordSource = passwordSource
        if configuration.rateLimits.enabled {
            let limits = configuration.rateLimits
            accounts.smsBudget = SMSBudget(
                limiter: limiter, pumping: smsPumping,
                rules: .init(perNumber: limits.smsPerNumber, perAddress: limits.smsPerAddress, perPrefix: limits.smsPerPrefix),
                events: SMSBudgetReports(audit: audit, logger: logger))
        }
        self.accounts = accounts
        self.audit = audit
    }

    /// After an email was queued: wake the sender, or in emulator mode log the link as Firebase's emulator does.
    /// Production logs never carry links or codes.
    public func emailQueued(_ message: OutboxMessage) {
        if configuration.isEmulator {
            logger.info("email action link (emulator mode; nothing is sent)",
                        metadata: ["type": "\(message.type.rawValue)", "to": "\(message.recipient)",
                                   "link": "\(message.link)"])
        } else if let mail {
            mail.ring()
        } else {
            logger.warning("email queued in the outbox but no SMTP server is configured; set email.smtp in the config file or HEARTH_SMTP_URL",
                           metadata: ["type": "\(message.type.rawValue)", "message": "\(message.id)"])
        }
    }

    /// The project client calls act in: created with keys, hash parameters and an API key on first start.
    public func defaultProject() async throws -> ProjectContext {
        try await projects.contextCreatingIfNeeded(for: configuration.projectID, apiKey: configuration.initialAPIKey)
    }

    /// A project named in an emulator path. Emulator mode serves any project id, creating it on first use with
    /// the default project's signing keys, so one published key set verifies every project's tokens.
    public func emulatorProject(_ id: String) async throws -> ProjectContext {
        if let existing = try await projects.context(for: id) { return existing }
        let template = try await defaultProject()
        return try await projects.contextCreatingIfNeeded(for: id, signingKeys: template.record.signingKeys)
    }
}

extension HearthServices {
    /// `autodeleteAnonymousUsers`, for the project and each of its tenants that has it on (housekeeping, daily).
    func deleteInactiveAnonymousUsers(now: Date) async throws -> Int {
        let project = try await defaultProject()
        var deleted = try await accounts.operatorTools.deleteInactiveAnonymousUsers(in: project, now: now)
        var after: String?
        while true {
            let page = try await store.tenants(projectID: project.id, after: after, limit: 100)
            for tenant in page where tenant[.autodeleteAnonymousUsers] {
                deleted += try await accounts.operatorTools.deleteInactiveAnonymousUsers(in: project.scoped(to: tenant), now: now)
            }
            guard page.count == 100, let last = page.last else { return deleted }
            after = last.id
        }
    }
}
