import ArgumentParser
import Configuration
import Foundation
import HearthCore
import HearthMail
import HearthServer
import Hummingbird
import Logging

/// `hearth serve`: runs the server with the settings ``Settings`` reads (flags, `HEARTH_*` variables, secret files,
/// the config file).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Hearth server.",
        discussion: """
            Without --store, data lives in an SQLite file under ./hearth-data (in memory in emulator mode, as \
            Firebase's emulator). The first start creates the project:
            signing keys, Firebase-scrypt hash parameters and an API key, all printed on start. \
            Settings: flags win over HEARTH_* variables, which win over files in HEARTH_SECRETS_DIR (or systemd's \
            $CREDENTIALS_DIRECTORY), which win over the config file (--config or HEARTH_CONFIG). Every setting of the \
            config file has its variable: email.smtp.password is HEARTH_EMAIL_SMTP_PASSWORD, and its secret file \
            email-smtp-password. Shorthands: HEARTH_SMTP_URL (smtp://user:password@host:587, smtps://…:465) and \
            HEARTH_METRICS (off, main or host:port). See docs/configuration.md.
            """)

    @Flag(help: "Emulator mode: compatible with Firebase's Auth emulator (any API key, /emulator endpoints). Never expose it.")
    var emulator = false

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (default 9099, the Firebase emulator's; 0 picks a free one).")
    var port: Int?

    @OptionGroup var data: StoreOptions

    @Option(name: .customLong("smtp-url"), help: "SMTP server for emails: smtp://user:password@host:587 (STARTTLS) or smtps://…:465. Prefer HEARTH_SMTP_URL: flags show in process lists.")
    var smtpURL: String?

    @Option(name: .customLong("public-url"), help: "Address browsers reach this server at, for links in emails (default http://host:port).")
    var publicURL: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var flags: [AbsoluteConfigKey: ConfigValue] = [:]
        if let host { flags["host"] = ConfigValue(.string(host), isSecret: false) }
        if let port { flags["port"] = ConfigValue(.int(port), isSecret: false) }
        if emulator { flags["emulator"] = ConfigValue(.bool(true), isSecret: false) }
        if let publicURL { flags["publicURL"] = ConfigValue(.string(publicURL), isSecret: false) }
        let settings = try await data.settings(flags: flags)
        let file = settings.file
        var configuration = ServerConfiguration()
        try file.apply(to: &configuration)
        configuration.projectID = data.projectID(file)
        configuration.version = HearthVersion.description
        // Where each setting the project takes at every start came from, for the console's read-only marks: the
        // variable or secret file when one gave it, else the config file (whose objects are read whole).
        for setting in ["emailEnumerationProtection", "phoneSignIn", "anonymousSignIn", "mfa", "testPhoneNumbers",
                        "authorizedDomains", "identityProviders"] {
            let source = settings.sources.first { $0.setting == setting || $0.setting.hasPrefix(setting + ".") }?.source
            configuration.settingSources[setting] = source.map { $0 == "config file" ? "the config file" : $0 } ?? "the config file"
        }
        // Templates from HEARTH_EMAIL_TEMPLATES or a secret file say so; the console's default names the config file.
        if let source = settings.sources.first(where: { $0.setting == "email.templates" })?.source, source != "config file" {
            configuration.settingSources["emailTemplates"] = source
        }
        // A shorthand for email.smtp: one URL, which wins over the separate smtp settings.
        if let value = smtpURL ?? environment["HEARTH_SMTP_URL"] {
            guard let smtp = SMTPConfiguration(url: value) else {
                throw ValidationError("SMTP URL must look like smtp://user:password@host:587 or smtps://user:password@host:465")
            }
            configuration.email.smtp = smtp
        }
        // Limits follow the mode (off in emulator mode, as Firebase's emulator) unless a setting says otherwise.
        configuration.rateLimits.enabled = file.rateLimits ?? !configuration.isEmulator
        guard ProjectID.isValid(configuration.projectID) else {
            throw ValidationError("projectId: '\(configuration.projectID)' must be 4-30 lowercase letters, digits or hyphens, starting with a letter")
        }
        guard (0...65535).contains(configuration.port) else { throw ValidationError("port: expected 0-65535, got \(configuration.port)") }

        let levelName = file.logLevel ?? "info"
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            throw ValidationError("logLevel: expected one of trace, debug, info, notice, warning, error, critical; got \"\(levelName)\"")
        }
        let formatName = file.logFormat ?? "text"
        guard let format = LogFormat(rawValue: formatName.lowercased()) else {
            throw ValidationError("logFormat: expected text or json; got \"\(formatName)\"")
        }
        // A shorthand for the metrics section: off, main, or host:port.
        if let value = environment["HEARTH_METRICS"] {
            configuration.observability.metrics = try Self.metrics(value, token: file.metrics?.token)
        }
        LogOutput.bootstrap(level: level, format: format)
        let logger = Logger(label: "hearth")
        settings.log(to: logger)
        if ["0.0.0.0", "::", "[::]"].contains(configuration.host), configuration.publicURL == nil {
            logger.warning("listening on every interface without publicURL: links in emails would point at http://\(configuration.host):\(configuration.port); set publicURL (or HEARTH_PUBLIC_URL) to the address browsers reach")
        }
        let location = data.storeLocation(file, emulator: configuration.isEmulator)
        let started = ContinuousClock.now
        let (store, storeDescription) = try await StoreFactory.open(location)
        let hashing = ThreadPoolWorkRunner(queueLimit: configuration.hashQueueLimit)
        do {
            try await store.migrate()
            let finalConfiguration = configuration
            let app = try await buildApplication(
                configuration: configuration, store: store, hashing: hashing, logger: logger,
                onServerRunning: { port in
                    let record = ServerRecord(
                        pid: ProcessInfo.processInfo.processIdentifier,
                        baseURL: ServerRecord.baseURL(publicURL: finalConfiguration.publicURL, host: finalConfiguration.host, port: port),
                        startedAt: ISO8601DateFormatter().string(from: Date()), version: HearthVersion.description,
                        emulator: finalConfiguration.isEmulator)
                    do { try ServerRecord.write(record, store: location) } catch {
                        logger.warning("cannot write \(ServerRecord.path(store: location)) (the address `hearth project show` and `hearth admin-token` read): \(error)")
                    }
                    let project = try? await store.project(id: finalConfiguration.projectID)
                    Banner.print(configuration: finalConfiguration, port: port, apiKey: project?.apiKeys.first ?? "?",
                                 hashing: project?.hashConfig, store: storeDescription,
                                 startup: ContinuousClock.now - started)
                })
            try await app.runService()
            ServerRecord.remove(store: location)
        } catch {
            ServerRecord.remove(store: location)
            // A start that fails (an encrypted store without its key, a broken template) closes what it opened.
            try? await hashing.shutdown()
            try? await store.close()
            throw error
        }
        try await hashing.shutdown()
        try await store.close()
    }
}

extension Serve {
    /// `HEARTH_METRICS`: `off`, `main`, or `host:port` for a listener of its own.
    static func metrics(_ value: String, token: String?) throws -> MetricsExposure {
        switch value.lowercased() {
        case "off", "": return .off
        case "main": return .mainListener(bearerToken: token)
        default:
            guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                  (1...65535).contains(port) else {
                throw ValidationError("HEARTH_METRICS: expected off, main or host:port; got \"\(value)\"")
            }
            return .separateListener(host: String(value[..<colon]), port: port)
        }
    }
}

/// What `hearth serve` prints once it listens: everything a newcomer needs to point an app at it.
enum Banner {
    static func emailLine(_ configuration: ServerConfiguration, port: Int) -> String {
        if configuration.isEmulator { return "not sent (emulator mode: listed at /emulator/v1/projects/{id}/oobCodes)" }
        guard let smtp = configuration.emailConfiguration(for: configuration.projectID).smtp else {
            return "not sent: kept in the outbox until an SMTP server is set (HEARTH_SMTP_URL)"
        }
        return "SMTP \(smtp.host):\(smtp.port) (\(smtp.security.rawValue)), links to \(configuration.actionURL(listeningOn: port))"
    }

    /// The project's password hashing; emulator mode creates projects at Firebase's lowest cost, and says so.
    static func hashingLine(_ parameters: FirebaseScryptParameters?, emulator: Bool) -> String {
        guard let parameters else { return "?" }
        let cost = "Firebase scrypt, rounds \(parameters.rounds), mem_cost \(parameters.memoryCost)"
        let cheapest = FirebaseScryptParameters.generateForEmulator()
        guard emulator, parameters.rounds == cheapest.rounds, parameters.memoryCost == cheapest.memoryCost else { return cost }
        return cost + " (emulator mode: the lowest cost, for fast test suites; production uses 8 and 14)"
    }

    static func print(configuration: ServerConfiguration, port: Int, apiKey: String,
                      hashing: FirebaseScryptParameters?, store: String, startup: Duration) {
        let base = "http://\(configuration.host):\(port)"
        let mode = configuration.isEmulator
            ? "emulator (Firebase Auth emulator compatible; any API key accepted; do not expose)"
            : "production"
        let milliseconds = Int(startup / .milliseconds(1))
        var lines = [
            "Hearth is ready in \(milliseconds) ms",
            "  mode:        \(mode)",
            "  base URL:    \(base)",
            "  project id:  \(configuration.projectID)",
            "  API key:     \(apiKey)",
            "  data:        \(store)",
            "  JWKS:        \(base)/.well-known/jwks.json",
            "  console:     \(base)/console (first operator: hearth console-admins create EMAIL)",
            "  email:       " + Self.emailLine(configuration, port: port),
            "  passwords:   " + Self.hashingLine(hashing, emulator: configuration.isEmulator),
        ]
        if configuration.isEmulator {
            lines.append("  clients:     FIREBASE_AUTH_EMULATOR_HOST=\(configuration.host):\(port)")
        }
        lines.append("  later:       hearth project show (these values again); docs/README.md (the documentation)")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
