import Foundation
import HearthMail
import HearthCore
import HearthSMS

/// The settings in the configuration file's shape, once ``Settings`` has read them from flags, the environment,
/// secret files and the file (`--config FILE` or `HEARTH_CONFIG`). Every key is optional.
///
/// ```json
/// { "host": "0.0.0.0", "port": 9099, "store": "postgres://hearth@db/hearth", "projectId": "my-app",
///   "emulator": false, "issuerPrefix": "https://securetoken.google.com/", "recentLoginWindowSeconds": 300,
///   "authorizedDomains": ["localhost", "app.example.com"], "emailEnumerationProtection": true,
///   "maxBodyBytes": 1048576, "logLevel": "info", "logFormat": "text", "rateLimits": true, "trustForwardedFor": false,
///   "metrics": { "expose": "listener", "host": "127.0.0.1", "port": 9464 },
///   "tracing": { "otlpEndpoint": "http://127.0.0.1:4318", "otlpProtocol": "http/protobuf", "serviceName": "hearth" },
///   "connections": { "headerTimeoutSeconds": 60, "bodyTimeoutSeconds": 30, "idleTimeoutSeconds": 60,
///                    "maxConnections": 768 }, "storeTimeoutSeconds": 5, "hashQueueLimit": 64,
///   "housekeepingIntervalSeconds": 600, "auditRetentionDays": 90, "sessionsPerUser": 100,
///   "publicURL": "https://auth.example.com",
///   "email": { "from": "noreply@example.com", "appName": "Acme", "defaultLocale": "en",
///              "smtp": { "host": "smtp.example.com", "port": 587, "security": "starttls",
///                        "username": "apikey", "password": "…" },
///              "templates": { "fr": { "PASSWORD_RESET": { "subject": "…", "text": "…", "html": "…" } } } },
///   "sms": { "webhook": { "url": "https://sms.internal/send", "secret": "…" } },
///   "mfa": { "state": "ENABLED", "providers": ["PHONE_SMS", "TOTP"], "totpAdjacentIntervals": 1 },
///   "testPhoneNumbers": { "+15555550100": "123456" },
///   "identityProviders": { "google.com": { "enabled": true, "clientId": "….apps.googleusercontent.com" } },
///   "projects": { "other-project": { "email": { … } } } }
/// ```
public struct ConfigFile: Decodable {
    /// The settings whose values are never logged, by path.
    static let secrets: Set<String> = [
        "store", "captcha.secret", "metrics.token", "email.smtp.password", "sms.webhook.secret", "sms.twilio.authToken",
    ]

    public var host: String?
    public var port: Int?
    public var store: String?
    public var projectId: String?
    public var emulator: Bool?
    public var issuerPrefix: String?
    public var recentLoginWindowSeconds: Double?
    public var authorizedDomains: [String]?
    public var emailEnumerationProtection: Bool?
    public var phoneSignIn: Bool?
    public var anonymousSignIn: Bool?
    public var blockingFunctionsOnAdminCreate: Bool?
    public var breachedPasswords: String?
    public var captcha: CaptchaProviderSettings?
    public var maxBodyBytes: Int?
    public var logLevel: String?
    public var logFormat: String?
    public var metrics: MetricsSection?
    public var tracing: TracingSection?
    public var connections: ConnectionsSection?
    public var storeTimeoutSeconds: Double?
    public var hashQueueLimit: Int?
    public var housekeepingIntervalSeconds: Double?
    public var auditRetentionDays: Int?
    public var sessionsPerUser: Int?
    public var apiKey: String?
    public var rateLimits: Bool?
    public var publicURL: String?
    public var trustForwardedFor: Bool?
    public var email: EmailConfiguration?
    public var sms: SMSSection?
    public var mfa: MFASettings?
    public var identityProviders: [String: IdentityProviderConfig]?
    public var testPhoneNumbers: [String: String]?
    public var projects: [String: ProjectSection]?

    /// One SMS provider: `webhook` {url, secret} or `twilio` {accountSid, authToken, from, baseURL}.
    public struct SMSSection: Decodable {
        public var webhook: Webhook?
        public var twilio: Twilio?

        public struct Webhook: Decodable {
            public var url: String
            public var secret: String?
        }

        public struct Twilio: Decodable {
            public var accountSid: String
            public var authToken: String
            public var from: String
            public var baseURL: String?
        }

        public var provider: SMSProvider? {
            if let webhook { return .webhook(url: webhook.url, secret: webhook.secret) }
            if let twilio {
                return .twilio(accountSID: twilio.accountSid, authToken: twilio.authToken, from: twilio.from,
                               baseURL: twilio.baseURL ?? "https://api.twilio.com")
            }
            return nil
        }
    }

    /// `expose`: `off` (default), `main` (on the API port; with `token`, only for that bearer) or `listener`
    /// (its own `host`:`port`, without credentials).
    public struct MetricsSection: Decodable {
        public var expose: String?
        public var token: String?
        public var host: String?
        public var port: Int?

        public func exposure() throws -> MetricsExposure {
            switch expose ?? "off" {
            case "off": return .off
            case "main": return .mainListener(bearerToken: token)
            case "listener":
                guard let port, (1...65535).contains(port) else {
                    throw ConfigError(message: "metrics.port: expected a port 1-65535 for expose \"listener\"")
                }
                return .separateListener(host: host ?? "127.0.0.1", port: port)
            default: throw ConfigError(message: "metrics.expose: expected \"off\", \"main\" or \"listener\", got \"\(expose ?? "")\"")
            }
        }
    }

    /// OpenTelemetry spans over OTLP/HTTP, off unless `otlpEndpoint` is set: the collector's base URL, as in
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (`http://collector:4318`; spans go to its `/v1/traces`).
    public struct TracingSection: Decodable {
        public var otlpEndpoint: String?
        /// `http/protobuf` (default) or `http/json`.
        public var otlpProtocol: String?
        /// `service.name` of the spans; `hearth` by default.
        public var serviceName: String?

        public func export() throws -> TracingExport? {
            guard let endpoint = otlpEndpoint, !endpoint.isEmpty else { return nil }
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? "") else {
                throw ConfigError(message: "tracing.otlpEndpoint: expected an http(s) URL such as http://127.0.0.1:4318")
            }
            let json: Bool
            switch otlpProtocol ?? "http/protobuf" {
            case "http/protobuf": json = false
            case "http/json": json = true
            default: throw ConfigError(message: "tracing.otlpProtocol: expected \"http/protobuf\" or \"http/json\", got \"\(otlpProtocol ?? "")\"")
            }
            return TracingExport(endpoint: endpoint, serviceName: serviceName ?? "hearth", json: json)
        }
    }

    public struct ConnectionsSection: Decodable {
        public var headerTimeoutSeconds: Double?
        public var bodyTimeoutSeconds: Double?
        public var idleTimeoutSeconds: Double?
        public var maxConnections: Int?
    }

    public struct ProjectSection: Decodable {
        public var email: EmailConfiguration?
    }

    /// Reads the file for what swift-configuration's JSON provider does not check: its syntax (with the line and
    /// column where it breaks) and every key against ``ConfigSchema``. Returns the parsed object, whose map sections
    /// (provider ids, locales, phone numbers as keys) ``Settings`` takes whole.
    public static func parse(_ path: String) throws -> Any {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigError(message: "cannot read config file \(path): \(error.localizedDescription)")
        }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigError(message: "config file \(path) is not JSON: \(syntaxProblem(error, in: data))")
        }
        guard json is [String: Any] else { throw ConfigError(message: "config file \(path): expected a JSON object") }
        if let unknown = ConfigSchema.firstUnknownKey(in: json) {
            throw ConfigError(message: "config file \(path): \(unknown); see docs/configuration.md")
        }
        return json
    }

    /// A decoding error as `key.path: expected …`.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): expected \(typeName(type)), got null"
        case .keyNotFound(let key, let context): return "\(ConfigSchema.join(path(context.codingPath), key.stringValue)): required"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String].Type, is [Any].Type: "a list"
        default: "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)"
        }
    }

    /// Where JSON breaks, as line and column (Foundation's message names a byte offset at best).
    static func syntaxProblem(_ error: any Error, in data: Data) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        guard let range = text.range(of: #"(?:offset|character) (\d+)"#, options: .regularExpression),
              let offset = Int(text[range].split(separator: " ").last ?? "")
        else { return text }
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column): \(text)"
    }

    public func apply(to configuration: inout ServerConfiguration) throws {
        if let metrics { configuration.observability.metrics = try metrics.exposure() }
        if let tracing { configuration.observability.tracing = try tracing.export() }
        if let section = connections {
            if let value = section.headerTimeoutSeconds { configuration.connections.headerTimeout = .seconds(value) }
            if let value = section.bodyTimeoutSeconds { configuration.connections.bodyTimeout = .seconds(value) }
            if let value = section.idleTimeoutSeconds { configuration.connections.idleTimeout = .seconds(value) }
            if let value = section.maxConnections {
                guard value > 0 else { throw ConfigError(message: "connections.maxConnections: expected a positive number") }
                configuration.connections.maxConnections = value
            }
        }
        if let storeTimeoutSeconds { configuration.storeTimeout = .seconds(storeTimeoutSeconds) }
        if let housekeepingIntervalSeconds {
            guard housekeepingIntervalSeconds >= 1 else { throw ConfigError(message: "housekeepingIntervalSeconds: expected 1 or more") }
            configuration.housekeepingInterval = .seconds(housekeepingIntervalSeconds)
        }
        if let sessionsPerUser {
            guard sessionsPerUser >= 0 else { throw ConfigError(message: "sessionsPerUser: expected 0 (keep every session) or more") }
            configuration.sessionsPerUser = sessionsPerUser == 0 ? nil : sessionsPerUser
        }
        if let auditRetentionDays {
            guard auditRetentionDays >= 0 else { throw ConfigError(message: "auditRetentionDays: expected 0 (keep for ever) or more") }
            configuration.auditRetention = auditRetentionDays == 0 ? nil : .seconds(auditRetentionDays * 86_400)
        }
        if let hashQueueLimit {
            guard hashQueueLimit > 0 else { throw ConfigError(message: "hashQueueLimit: expected a positive number") }
            configuration.hashQueueLimit = hashQueueLimit
        }
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let projectId { configuration.projectID = projectId }
        if emulator == true { configuration.mode = .emulator }
        if let issuerPrefix { configuration.issuerPrefix = issuerPrefix }
        if let recentLoginWindowSeconds { configuration.recentLoginWindow = recentLoginWindowSeconds }
        if let authorizedDomains { configuration.authorizedDomains = authorizedDomains }
        if let emailEnumerationProtection { configuration.emailEnumerationProtection = emailEnumerationProtection }
        if let phoneSignIn { configuration.phoneSignIn = phoneSignIn }
        if let anonymousSignIn { configuration.anonymousSignIn = anonymousSignIn }
        if let blockingFunctionsOnAdminCreate { configuration.blockingFunctionsOnAdminCreate = blockingFunctionsOnAdminCreate }
        if let breachedPasswords { configuration.breachedPasswords = breachedPasswords }
        if let captcha { configuration.captcha = captcha }
        if let maxBodyBytes { configuration.maxBodySize = maxBodyBytes }
        if let apiKey { configuration.initialAPIKey = apiKey }
        if let rateLimits { configuration.rateLimits.enabled = rateLimits }
        if let publicURL { configuration.publicURL = publicURL }
        if let trustForwardedFor { configuration.trustForwardedFor = trustForwardedFor }
        if let email { configuration.email = email }
        if let provider = sms?.provider { configuration.sms = provider }
        if let mfa { configuration.mfa = mfa }
        if let identityProviders { configuration.identityProviders = identityProviders }
        if let testPhoneNumbers { configuration.testPhoneNumbers = testPhoneNumbers }
        for (id, section) in projects ?? [:] {
            if let email = section.email { configuration.projectEmail[id] = email }
        }
    }
}

/// A setting that cannot be used, said as the operator wrote it.
public struct ConfigError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
