import HearthCore
import Logging

/// The long-lived parts every handler shares, built once by ``buildApplication(configuration:store:logger:)``.
public struct HearthServices: Sendable {
    public let configuration: ServerConfiguration
    public let store: any IdentityStore
    public let projects: ProjectDirectory
    public let accounts: AccountService
    public let logger: Logger
    public let limiter: RateLimiter

    public init(configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock,
                hashing: any BlockingWorkRunner, logger: Logger,
                hashParameters: @escaping @Sendable () -> FirebaseScryptParameters = { .generate() }) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        limiter = RateLimiter(clock: clock)
        let protection = configuration.emailEnumerationProtection ?? !configuration.isEmulator
        projects = ProjectDirectory(
            store: store, clock: clock,
            defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: protection) },
            hashParameters: hashParameters)
        accounts = AccountService(
            store: store, clock: clock, hashing: hashing,
            issuer: IDTokenIssuer(issuerPrefix: configuration.issuerPrefix),
            recentLoginWindow: configuration.recentLoginWindow)
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
