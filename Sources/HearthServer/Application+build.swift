import HearthCore
import HearthFederation
import HearthMail
import HearthSMS
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Synchronization

/// Builds the Hearth application on `store`: what `hearth serve` runs and what tests drive.
///
/// ```swift
/// let app = try await buildApplication(configuration: .init(mode: .emulator, port: 0), store: InMemoryStore())
/// try await app.runService()
/// ```
public func buildApplication(
    configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock = SystemClock(),
    hashing: any BlockingWorkRunner = ThreadPoolWorkRunner(), logger: Logger = .hearth("hearth"),
    hashParameters: (@Sendable () -> FirebaseScryptParameters)? = nil,
    mailPollInterval: Duration = .seconds(5),
    sms: (any SMSSender)? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    guardOutages(of: store, configuration: configuration, logger: logger)
    // Emulator mode: a clock an app's test suite can freeze and move (EmulatorControlRoutes).
    let clock: any HearthClock = configuration.isEmulator && !(clock is EmulatorClock) ? EmulatorClock(wrapping: clock) : clock
    let mail = try makeOutboxWorker(configuration: configuration, store: store, clock: clock, logger: logger,
                                    pollInterval: mailPollInterval)
    let provider: (any SMSSender)? = configuration.isEmulator ? nil : configuration.sms.map {
        HTTPSMSSender(provider: $0, appName: configuration.emailConfiguration(for: configuration.projectID).appName)
    }
    let webhooks = WebhookWorker(store: store, clock: clock, retry: configuration.webhookRetry,
                                 logger: .hearth("hearth.webhooks"), pollInterval: configuration.webhookPollInterval)
    let services = HearthServices(configuration: configuration, store: store, clock: clock, hashing: hashing,
                                  logger: logger, mail: mail, sms: sms ?? provider,
                                  federation: HTTPIdentityProviderVerifier(store: store, clock: clock),
                                  hashParameters: hashParameters,
                                  hooks: [BlockingFunctionCaller(issuerPrefix: configuration.issuerPrefix, clock: clock)],
                                  webhooks: webhooks,
                                  breachedPasswords: try configuration.breachedPasswords.map { try PwnedPasswordsFile(path: $0) },
                                  captcha: configuration.captcha.map(captchaVerifier),
                                  passwordSource: HTTPPasswordSource(timeout: TimeAmount(configuration.passwordSourceTimeout)))
    // The first start creates the project: keys, hash parameters, API key. A configured switch applies to it
    // on every start, so turning email-enumeration protection on or off is a config change and a restart.
    // What the config file names wins over what is stored, key by key; what it does not name stays as the admin API
    // left it (a provider added through the API survives a restart). Said at start, so nobody wonders.
    let id = try await services.defaultProject().id
    var applied: [String] = []
    let project = try await services.projects.modify(id) { project in
        applied = []
        if let protection = configuration.emailEnumerationProtection {
            project.settings[.enableImprovedEmailPrivacy] = protection
            applied.append("emailEnumerationProtection")
        }
        if let phone = configuration.phoneSignIn {
            project.settings[.phoneSignIn] = phone
            applied.append("phoneSignIn")
        }
        if let anonymous = configuration.anonymousSignIn {
            project.settings[.anonymousSignIn] = anonymous
            applied.append("anonymousSignIn")
        }
        if let onAdmin = configuration.blockingFunctionsOnAdminCreate {
            project.settings.blockingFunctionsOnAdminCreate = onAdmin
            applied.append("blockingFunctionsOnAdminCreate")
        }
        if let mfa = configuration.mfa { project.settings.mfa = mfa; applied.append("mfa") }
        if let providers = configuration.identityProviders, !providers.isEmpty {
            project.settings.identityProviders = (project.settings.identityProviders ?? [:]).merging(providers) { $1 }
            applied.append("identityProviders " + providers.keys.sorted().joined(separator: ", "))
        }
        if let numbers = configuration.testPhoneNumbers {
            project.settings.testPhoneNumbers = numbers.isEmpty ? nil : numbers
            applied.append("testPhoneNumbers")
        }
    }.record
    if !applied.isEmpty {
        logger.info("config file settings applied over the stored project", metadata: [
            "keys": .string(applied.joined(separator: "; ")),
            "note": "other settings are as stored (the admin API's changes are kept)",
        ])
    }
    if !configuration.isEmulator, !project.settings.declared.isSet(.phoneSignIn) {
        logger.notice("phone sign-in stays on for this project, made before signIn.phoneNumber.enabled existed (new projects start with it off)",
                      metadata: ["hint": "PATCH v2/projects/\(project.id)/config?updateMask=signIn.phoneNumber.enabled with the value you want, or use the console's sign-in methods"])
    }
    if !configuration.isEmulator, configuration.sms == nil, sms == nil, project.settings.mfa?.providers.contains(.phoneSMS) == true {
        logger.warning("SMS multi-factor is enabled but no SMS provider is configured: set sms.webhook or sms.twilio in the config file, or HEARTH_SMS_WEBHOOK_URL")
    }
    var background: [any Service] = mail.map { [OutboxService(worker: $0)] } ?? []
    background.append(HashingStopsAtShutdown(hashing: hashing))
    background.append(WebhookService(worker: webhooks))
    var housekeeper = Housekeeper(store: store, clock: clock, interval: configuration.housekeepingInterval,
                                  auditRetention: configuration.auditRetention, logger: logger)
    housekeeper.anonymousCleanup = { now in try await services.deleteInactiveAnonymousUsers(now: now) }
    background.append(housekeeper)
    if let export = configuration.observability.tracing, let exporter = try HearthTracing.start(export, logger: logger) {
        background.append(exporter)
    }
    let observability = configuration.observability
    if observability.metricsEnabled { _ = HearthMetrics.registry }  // before any metric is created
    if case .separateListener(let host, let port) = observability.metrics {
        background.append(metricsApplication(host: host, port: port, logger: logger))
    }
    let limits = configuration.connections
    return Application(
        router: HearthRoutes.router(services: services),
        server: .http1(configuration: .init(additionalChannelHandlers: [SlowClientTimeouts(limits: limits)])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                             availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)),
        services: background,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            services.listeningPort.value.store(port, ordering: .relaxed)
            await onServerRunning(port)
        },
        logger: logger)
}

/// Configures the store's circuit: outages answer 503 at once and are logged once, with what to check; recovery is
/// logged with how long it took. With metrics on, every call's latency is recorded by operation.
func guardOutages(of store: any IdentityStore, configuration: ServerConfiguration, logger: Logger) {
    guard let circuit = store.circuit else { return }  // the in-memory store has no outages
    @Sendable func measure(_ operation: String, _ duration: Duration, _ failed: Bool) {
        Timer(label: "hearth_store_duration_seconds", dimensions: [("operation", operation)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(TimeAmount(duration).nanoseconds)
        if failed { Counter(label: "hearth_store_errors_total", dimensions: [("operation", operation)]).increment() }
    }
    let onCall: (@Sendable (String, Duration, Bool) -> Void)? = configuration.observability.metricsEnabled ? measure : nil
    let lastTarget = LastTarget()
    circuit.configure(timeout: configuration.storeTimeout, onCall: onCall) { event in
        switch event {
        case .unavailable(let reason):
            Gauge(label: "hearth_store_available").record(0)
            logger.error("store unavailable: answering 503 UNAVAILABLE until it is back", metadata: [
                "reason": "\(reason)",
                "hint": "check that the database is running and reachable, and that its disk has free space",
            ])
        case .recovered(let after):
            Gauge(label: "hearth_store_available").record(1)
            if let target = (store as? any StoreConnection)?.target { recordRole(of: target) }
            logger.notice("store available again", metadata: ["after": "\(after)"])
        case .reconnected(let target):
            recordRole(of: target)
            Counter(label: "hearth_store_reconnects_total", dimensions: [("role", target.role.rawValue)]).increment()
            // Logged when where calls go changes: an outage reconnects at every probe, half a second apart.
            guard lastTarget.value.withLock({ last in defer { last = target }; return last != target }) else { return }
            if target.role == .primary {
                logger.notice("store reconnected to the primary", metadata: ["host": "\(target.address)"])
            } else {
                logger.warning("store reconnected, but no host takes writes: writes answer 503 until a primary is back", metadata: [
                    "host": "\(target.address)", "role": "\(target.role.rawValue)",
                    "hint": "check the HA manager (patronictl list, pg_autoctl show state) and that every host is in the URL",
                ])
            }
        }
    }
    if let target = (store as? any StoreConnection)?.target { recordRole(of: target) }  // chosen before the migration
}

/// The host the log last named, so that a reconnect to the same place is not logged again.
private final class LastTarget: Sendable {
    let value = Mutex<StoreTarget?>(nil)
}

/// `hearth_store_primary` is 1 while calls go to a host that takes writes; the role itself is a label of
/// `hearth_store_role` (1 for the current role, 0 for the others), so a dashboard can show "standby" mid-failover.
private func recordRole(of target: StoreTarget) {
    Gauge(label: "hearth_store_primary").record(target.role == .primary ? 1 : 0)
    for role in [StoreTarget.Role.primary, .standby, .readOnly, .unreachable] {
        Gauge(label: "hearth_store_role", dimensions: [("role", role.rawValue)]).record(role == target.role ? 1 : 0)
    }
}

/// `/metrics` alone on its own listener, for a port only the monitoring network reaches.
func metricsApplication(host: String, port: Int, logger: Logger) -> some Service {
    let router = Router()
    router.get("/metrics") { _, _ in HealthRoutes.metricsResponse() }
    var metricsLogger = logger
    metricsLogger[metadataKey: "component"] = "metrics"
    metricsLogger.info("metrics listener", metadata: ["address": "\(host):\(port)"])
    return Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil),
                       logger: metricsLogger)
}

/// The outbox sender, in production when an SMTP server is configured. Templates are compiled here, so a broken
/// override stops the start with its name instead of failing at the first email.
func makeOutboxWorker(configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock,
                      logger: Logger, pollInterval: Duration) throws -> OutboxWorker? {
    var mailers: [String: ProjectMailer] = [:]
    for projectID in Set([configuration.projectID]).union(configuration.projectEmail.keys) {
        let settings = configuration.emailConfiguration(for: projectID)
        if settings.smtp != nil {
            mailers[projectID] = try ProjectMailer(configuration: settings)  // compiles the templates
        } else {
            _ = try EmailTemplates(overrides: settings.templates, defaultLocale: settings.defaultLocale)
        }
    }
    guard !configuration.isEmulator else { return nil }
    guard !mailers.isEmpty else {
        logger.warning("no SMTP server configured: verification and reset emails stay in the outbox; set email.smtp in the config file or HEARTH_SMTP_URL")
        return nil
    }
    var mailLogger = logger
    mailLogger[metadataKey: "component"] = "mail"
    return OutboxWorker(store: store, mailers: mailers, clock: clock, logger: mailLogger, pollInterval: pollInterval,
                        storedTemplates: { try await store.project(id: $0)?.settings.emailTemplates ?? [:] })
}

/// Runs the outbox sender beside the HTTP server; stops with it. Described by name only: ServiceLifecycle logs
/// its services at debug level, and the worker holds SMTP credentials.
/// When shutdown starts, password hashing takes no new work: requests waiting in its queue are answered 503 at once
/// instead of holding the shutdown (SIGTERM once waited behind every queued hash).
struct HashingStopsAtShutdown: Service, CustomStringConvertible {
    let hashing: any BlockingWorkRunner
    var description: String { "HashingStopsAtShutdown" }

    func run() async throws {
        try? await gracefulShutdown()
        hashing.stopAcceptingWork()
    }
}

/// Delivers account events to the projects' webhook endpoints until shutdown.
struct WebhookService: Service, CustomStringConvertible {
    let worker: WebhookWorker
    var description: String { "WebhookService" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await worker.run() }
    }
}

struct OutboxService: Service, CustomStringConvertible {
    let worker: OutboxWorker
    var description: String { "OutboxService" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await worker.run() }
    }
}

/// The configured provider's `siteverify` client.
func captchaVerifier(_ settings: CaptchaProviderSettings) -> any CaptchaVerifier {
    let provider: SiteVerifyCaptcha.Provider = switch settings.provider {
    case .turnstile: .turnstile
    case .hcaptcha: .hcaptcha
    case .recaptcha: .recaptcha
    }
    return SiteVerifyCaptcha(provider: provider, secret: settings.secret, verifyURL: settings.verifyURL,
                             minScore: settings.minScore ?? 0.5, hostnames: settings.hostnames, action: settings.action,
                             timeout: TimeAmount(settings.timeout))
}
