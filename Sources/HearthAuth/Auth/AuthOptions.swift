import Foundation

/// What an ``Auth`` instance talks to: FirebaseApp's options, reduced to what authentication needs.
///
/// ```swift
/// Auth.configure(AuthOptions(apiKey: "my-key", projectID: "my-app",
///                            endpoints: .hearth(URL(string: "https://auth.example.com")!)))
/// let auth = Auth.auth()
/// ```
public struct AuthOptions: Sendable {
    /// The app's API key (Hearth: one of the project's `apiKeys`).
    public var apiKey: String
    public var projectID: String?
    /// Google's hosts by default; ``AuthEndpoints/hearth(_:)`` for a Hearth server.
    public var endpoints: AuthEndpoints
    /// Separates the signed-in users of several configurations in one app.
    public var appName: String
    public var persistence: AuthPersistence
    /// The HTTP client; ``URLSessionTransport`` unless a test or an app supplies its own.
    public var transport: any AuthTransport
    /// How the proactive refresh waits until five minutes before expiry; tests replace it to run the timer at once.
    var waitBeforeRefresh: @Sendable (TimeInterval) async -> Void = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    public init(apiKey: String, projectID: String? = nil, endpoints: AuthEndpoints? = nil,
                appName: String = "[DEFAULT]", persistence: AuthPersistence = .automatic,
                transport: any AuthTransport = URLSessionTransport()) {
        self.apiKey = apiKey
        self.projectID = projectID
        self.endpoints = endpoints ?? .google(projectID: projectID)
        self.appName = appName
        self.persistence = persistence
        self.transport = transport
    }

    /// The default app's options when ``Auth/configure(_:)`` was not called: `HEARTH_API_KEY`,
    /// `HEARTH_PROJECT_ID` and `HEARTH_URL` (or `FIREBASE_AUTH_EMULATOR_HOST`) from the environment, else
    /// `GoogleService-Info.plist` in the main bundle (`API_KEY`, `PROJECT_ID`).
    public static func fromEnvironment() -> AuthOptions? {
        let environment = ProcessInfo.processInfo.environment
        if let key = environment["HEARTH_API_KEY"] {
            return AuthOptions(apiKey: key, projectID: environment["HEARTH_PROJECT_ID"]).pointedByEnvironment()
        }
        guard let plist = FirebaseOptions.defaultOptions(), let key = plist.apiKey else { return nil }
        return AuthOptions(apiKey: key, projectID: plist.projectID).pointedByEnvironment()
    }

    /// These options with the endpoints `HEARTH_URL` or `FIREBASE_AUTH_EMULATOR_HOST` name, if either is set (as
    /// Firebase's SDKs follow `FIREBASE_AUTH_EMULATOR_HOST`).
    func pointedByEnvironment() -> AuthOptions {
        let environment = ProcessInfo.processInfo.environment
        var options = self
        if let url = environment["HEARTH_URL"].flatMap(URL.init(string:)) {
            options.endpoints = .hearth(url)
        } else if let host = environment["FIREBASE_AUTH_EMULATOR_HOST"], let colon = host.lastIndex(of: ":"),
                  let port = Int(host[host.index(after: colon)...]) {
            options.endpoints = .emulator(host: String(host[..<colon]), port: port)
        }
        return options
    }
}
