import Foundation

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
    /// Domains allowed in `continueUrl`s and reported by `getProjectConfig`.
    public var authorizedDomains: [String]
    /// Email-enumeration protection for new projects; `nil` means the mode's default (on in production).
    public var emailEnumerationProtection: Bool?
    /// API key given to a project created at first start (random when `nil`).
    public var initialAPIKey: String?

    public init(mode: Mode = .production, host: String = "127.0.0.1", port: Int = 9099,
                projectID: String = "hearth-local", issuerPrefix: String = "https://securetoken.google.com/",
                maxBodySize: Int = 1 << 20, recentLoginWindow: TimeInterval = 300,
                authorizedDomains: [String] = ["localhost", "127.0.0.1"], emailEnumerationProtection: Bool? = nil,
                initialAPIKey: String? = nil) {
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
    }

    public var isEmulator: Bool { mode == .emulator }
}
