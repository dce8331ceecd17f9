import Foundation
import HearthCore
import HearthMail
import HearthSMS

/// How a Hearth server runs. Built by `hearth serve` from flags, `HEARTH_*` variables and a config file.
public struct ServerConfiguration: Sendable {
    /// Production (the default) or Firebase-emulator-compatible mode.
    public enum Mode: String, Sendable {
        case production
        case emulator
    }

    public var mode: Mode
    public var host: String
    public var port: Int
    /// The project served to client calls (and, in emulator mode, the template for projects made on first use).
    public var projectID: String
    /// `iss` prefix of ID tokens; Firebase verifiers expect Google's.
    public var issuerPrefix: String
    /// Largest request body accepted, in bytes.
    public var maxBodySize: Int
    /// Window after an interactive sign-in in which sensitive changes are allowed.
    public var recentLoginWindow: TimeInterval
    /// Domains allowed in `continueUrl`s and reported by `getProjectConfig`, when the server's configuration names
    /// them (then they apply at every start and the admin API cannot change them); `nil`: the project's own
    /// (``ProjectSettings/authorizedDomains``), else ``defaultAuthorizedDomains``.
    public var authorizedDomains: [String]?
    public static let defaultAuthorizedDomains = ["localhost", "127.0.0.1"]
    /// Where each setting the operator gave came from (`anonymousSignIn` → `HEARTH_ANONYMOUS_SIGN_IN`), as the CLI
    /// resolved them: what ``pinned`` names.
    public var settingSources: [String: String] = [:]

    /// The admin API's paths this configuration fixes (it applies them over the project at every start), each with
    /// where it comes from. The console shows them read-only, and production's config PATCH refuses them: a change
    /// there would silently come undone at the next start.
    public var pinned: [String: String] {
        var paths: [String: String] = [:]
        func pin(_ path: String, _ setting: String, _ isSet: Bool) {
            if isSet { paths[path] = settingSources[setting] ?? "the server's configuration (\(setting))" }
        }
        pin("emailPrivacyConfig.enableImprovedEmailPrivacy", "emailEnumerationProtection", emailEnumerationProtection != nil)
        pin("signIn.phoneNumber.enabled", "phoneSignIn", phoneSignIn != nil)
        pin("signIn.anonymous.enabled", "anonymousSignIn", anonymousSignIn != nil)
        pin("mfa", "mfa", mfa != nil)
        pin("signIn.phoneNumber.testPhoneNumbers", "testPhoneNumbers", testPhoneNumbers != nil)
        pin("authorizedDomains", "authorizedDomains", authorizedDomains != nil)
        for id in (identityProviders ?? [:]).keys { pin("identityProviders." + id, "identityProviders", true) }
        return paths
    }

    /// The pinned path (and its source) that covers `path`, if one does: `mfa` covers `mfa.state`.
    public func pinning(_ path: String) -> (path: String, source: String)? {
        pinned.first { path == $0.key || path.hasPrefix($0.key + ".") }.map { ($0.key, $0.value) }
    }

    /// The project's authorized domains: the configuration's, else the project's, else the defaults.
    public func authorizedDomains(for project: ProjectRecord) -> [String] {
        authorizedDomains ?? project.settings.authorizedDomains ?? Self.defaultAuthorizedDomains
    }

    /// What `continueUrl`s and redirects are checked against: the authorized domains in production, any host in
    /// emulator mode as Firebase's emulator (docs/modes.md). Either way the URL must parse as browsers parse it.
    public func continueURLDomains(for project: ProjectRecord) -> [String]? {
        isEmulator ? nil : authorizedDomains(for: project)
    }
    /// Email-enumeration protection for new projects; `nil` means the mode's default (on in production).
    public var emailEnumerationProtection: Bool?
    /// Phone numbers as a first factor (`signIn.phoneNumber.enabled`), applied to the project at every start when
    /// set; `nil` leaves the stored switch as the admin API left it (a new production project starts with it off).
    public var phoneSignIn: Bool?
    /// `signIn.anonymous.enabled`, applied over the stored project at every start; `nil` keeps what is stored (a new
    /// production project starts with it off, as in Firebase; emulator mode's with it on).
    public var anonymousSignIn: Bool?
    /// How failed webhook deliveries are retried, and how often the queue is polled besides the wake-ups each stored
    /// event gives (other instances' events, retries). Not in the config file: the defaults are Standard Webhooks'
    /// kind of schedule; tests shorten them.
    public var webhookRetry = RetryPolicy.webhooks
    public var webhookPollInterval: Duration = .seconds(5)
    /// Whether accounts the admin API creates or imports pass the `beforeCreate` blocking function (off, as in
    /// Firebase); set, it applies at every start.
    public var blockingFunctionsOnAdminCreate: Bool?
    /// A Pwned Passwords file (sorted `HASH:COUNT` lines) or folder of range files: new passwords found in it are
    /// refused. Checked at start; `nil`: no list.
    public var breachedPasswords: String?
    /// The CAPTCHA provider `recaptchaConfig` enforcement asks (`nil`: none; enforcement cannot be turned on).
    public var captcha: CaptchaProviderSettings?
    /// The server's version as `hearth --version` prints it, for the console's header (empty: not said).
    public var version = ""
    /// API key given to a project created at first start (random when `nil`).
    public var initialAPIKey: String?
    /// Abuse limits; on in production, off in emulator mode (as Firebase's emulator has none) unless set.
    public var rateLimits: RateLimits
    /// The address browsers reach this server at, for links in emails (`/__/auth/action`). Never taken from the
    /// request's `Host` header, which a caller controls. Defaults to `http://host:port`.
    public var publicURL: String?
    /// Take the client address from `X-Forwarded-For` (only behind a proxy you run; otherwise clients could forge it).
    public var trustForwardedFor: Bool
    /// Sender, SMTP server and templates of the served project's emails.
    public var email = EmailConfiguration()
    /// Other projects' email settings, by project id (those without an entry use ``email``).
    public var projectEmail: [String: EmailConfiguration] = [:]
    /// How long a lazy migration's check at the source project may take before the sign-in answers 503.
    public var passwordSourceTimeout: Duration = .seconds(10)
    /// Where verification SMS go in production (emulator mode lists them instead); `nil`: SMS answers 503.
    public var sms: SMSProvider?
    /// Multi-factor settings applied to the served project at every start (`nil`: leave the stored ones).
    public var mfa: MFASettings?
    /// Identity providers applied to the served project at every start (`nil`: leave the stored ones).
    public var identityProviders: [String: IdentityProviderConfig]?
    /// Test phone numbers and their fixed codes, applied at every start (`nil`: leave the stored ones).
    public var testPhoneNumbers: [String: String]?
    /// Prometheus metrics and the request log.
    public var observability = Observability()
    /// Timeouts for slow clients and the cap on open connections.
    public var connections = ConnectionLimits()
    /// Password hashes (sign-in, sign-up, password change) waiting for a hashing thread at most; beyond it a
    /// request is refused at once with `TOO_MANY_ATTEMPTS_TRY_LATER` instead of waiting behind the others.
    public var hashQueueLimit = 64
    /// How often expired rows are purged (see `Housekeeper`).
    public var housekeepingInterval: Duration = .seconds(600)
    /// How long audit events are kept (`nil`: for ever).
    public var auditRetention: Duration? = .seconds(90 * 86_400)
    /// Live sessions (refresh tokens) kept per user: a sign-in beyond this many revokes the user's oldest, so a
    /// script signing in forever cannot grow the store without bound. `nil` keeps every session.
    public var sessionsPerUser: Int? = 100
    /// How long a request waits for the store before answering 503 `UNAVAILABLE` (and `/readyz` says not ready).
    public var storeTimeout: Duration = .seconds(5)

    /// The email settings of `projectID`, the app name defaulting to the project id.
    public func emailConfiguration(for projectID: String) -> EmailConfiguration {
        var settings = projectEmail[projectID] ?? email
        if settings.appName.isEmpty { settings.appName = projectID }
        return settings
    }

    /// Per-route abuse limits. Failed sign-ins are limited per email and per address, so a leaked endpoint cannot be
    /// used to guess passwords; successful sign-ins are not (scrypt already bounds them). Sign-ups are limited per
    /// address, as Firebase limits new accounts per IP.
    public struct RateLimits: Sendable, Equatable {
        public var enabled: Bool
        public var failedSignInsPerEmail: RateLimiter.Rule
        public var failedSignInsPerAddress: RateLimiter.Rule
        public var signUpsPerAddress: RateLimiter.Rule
        /// `sendOobCode` requests, so the endpoint cannot be used to flood an inbox or to send spam.
        public var emailsPerRecipient: RateLimiter.Rule
        public var emailsPerAddress: RateLimiter.Rule
        /// Verification SMS (sign-in, enrollment, second-factor sign-in), so an endpoint cannot be used to pump SMS.
        public var smsPerNumber: RateLimiter.Rule = .init(limit: 5, window: 3600)
        public var smsPerAddress: RateLimiter.Rule = .init(limit: 50, window: 3600)
        /// Verification SMS per number prefix (the number without its last four digits), in each project.
        public var smsPerPrefix: RateLimiter.Rule = .init(limit: 100, window: 3600)
        /// The pumping stop: too many distinct numbers of one prefix in a short window halt sending to it.
        public var smsPumping = SMSPumpingWatch.Rules()
        /// Redirect sign-ins started (`createAuthUri` with a `providerId`), each a stored session: an unauthenticated
        /// caller cannot fill the store with them.
        public var redirectSessionsPerAddress: RateLimiter.Rule = .init(limit: 60, window: 600)
        /// Passkey sign-ins started (`passkeySignIn:start`), each a stored challenge.
        public var passkeyChallengesPerAddress: RateLimiter.Rule = .init(limit: 60, window: 600)

        public init(enabled: Bool, failedSignInsPerEmail: RateLimiter.Rule = .init(limit: 10, window: 600),
                    failedSignInsPerAddress: RateLimiter.Rule = .init(limit: 100, window: 600),
                    signUpsPerAddress: RateLimiter.Rule = .init(limit: 100, window: 3600),
                    emailsPerRecipient: RateLimiter.Rule = .init(limit: 10, window: 3600),
                    emailsPerAddress: RateLimiter.Rule = .init(limit: 100, window: 3600)) {
            self.enabled = enabled
            self.failedSignInsPerEmail = failedSignInsPerEmail
            self.failedSignInsPerAddress = failedSignInsPerAddress
            self.signUpsPerAddress = signUpsPerAddress
            self.emailsPerRecipient = emailsPerRecipient
            self.emailsPerAddress = emailsPerAddress
        }
    }

    public init(mode: Mode = .production, host: String = "127.0.0.1", port: Int = 9099,
                projectID: String = "hearth-local", issuerPrefix: String = "https://securetoken.google.com/",
                maxBodySize: Int = 1 << 20, recentLoginWindow: TimeInterval = 300,
                authorizedDomains: [String]? = nil, emailEnumerationProtection: Bool? = nil,
                initialAPIKey: String? = nil, rateLimits: RateLimits? = nil, trustForwardedFor: Bool = false) {
        self.mode = mode
        self.host = host
        self.port = port
        self.projectID = projectID
        self.issuerPrefix = issuerPrefix
        self.maxBodySize = maxBodySize
        self.recentLoginWindow = recentLoginWindow
        self.authorizedDomains = authorizedDomains
        self.emailEnumerationProtection = emailEnumerationProtection
        self.initialAPIKey = initialAPIKey
        self.rateLimits = rateLimits ?? RateLimits(enabled: mode == .production)
        self.trustForwardedFor = trustForwardedFor
    }

    public var isEmulator: Bool { mode == .emulator }

    /// The base of action links: the hosted action page, or the emulator's action endpoint in emulator mode.
    public var actionURL: String { actionURL(listeningOn: port) }

    /// The same, once the server knows the port it listens on (with `port` 0 the system picks one).
    public func actionURL(listeningOn port: Int) -> String {
        let base = publicURL ?? "http://\(host):\(port)"
        return base + (isEmulator ? "/emulator/action" : "/__/auth/action")
    }
}

/// `captcha` in the config file: the provider whose tokens clients send in `captchaResponse` when a project or tenant
/// has `recaptchaConfig` enforcement on.
public struct CaptchaProviderSettings: Sendable, Equatable {
    /// Turnstile, hCaptcha or reCAPTCHA (v2 or v3, through its `siteverify`).
    public enum Provider: String, Sendable, CaseIterable { case turnstile, hcaptcha, recaptcha }
    public var provider: Provider
    /// The public key pages render the widget with, answered by `GET v2/recaptchaConfig`.
    public var siteKey: String
    public var secret: String
    /// The provider's `siteverify` URL by default; another for a proxy or a stand-in.
    public var verifyURL: String?
    /// reCAPTCHA v3's lowest passing score (0.5 by default).
    public var minScore: Double?
    /// When set, a token passes only if the provider says it was solved on one of these hosts (its `hostname`):
    /// a token farmed on another site fails.
    public var hostnames: [String]?
    /// When set, a token passes only if it names this action (reCAPTCHA v3's and Turnstile's `action`).
    public var action: String?
    /// How long a `siteverify` call may take before the request answers 503 (5 s; an embedding app or a test on a
    /// loaded machine may give more).
    public var timeout: Duration = .seconds(5)

    public init(provider: Provider, siteKey: String, secret: String, verifyURL: String? = nil, minScore: Double? = nil) {
        self.provider = provider
        self.siteKey = siteKey
        self.secret = secret
        self.verifyURL = verifyURL
        self.minScore = minScore
    }
}

extension CaptchaProviderSettings: Decodable {
    enum CodingKeys: String, CodingKey { case provider, siteKey, secret, verifyURL, minScore, hostnames, action }

    /// The config file's `captcha`: `provider`, `siteKey` and `secret`, and optionally the rest. A provider Hearth does
    /// not know, or a `verifyURL` that is not http(s), is refused with what is expected.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .provider)
        let (siteKey, secret) = (try container.decode(String.self, forKey: .siteKey), try container.decode(String.self, forKey: .secret))
        let verifyURL = try container.decodeIfPresent(String.self, forKey: .verifyURL)
        let minScore = try container.decodeIfPresent(Double.self, forKey: .minScore)
        let hostnames = try container.decodeIfPresent([String].self, forKey: .hostnames)
        let action = try container.decodeIfPresent(String.self, forKey: .action)
        guard let provider = Provider(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .provider, in: container, debugDescription:
                "expected " + Provider.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + ", got \"\(name)\"")
        }
        if let verifyURL, URL(string: verifyURL)?.scheme.map({ ["http", "https"].contains($0) }) != true {
            throw DecodingError.dataCorruptedError(forKey: .verifyURL, in: container,
                                                   debugDescription: "expected an http(s) URL, got \"\(verifyURL)\"")
        }
        self.init(provider: provider, siteKey: siteKey, secret: secret, verifyURL: verifyURL, minScore: minScore)
        self.hostnames = hostnames
        self.action = action
    }
}
