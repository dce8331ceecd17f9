import HearthCore
import Hummingbird
import Logging

/// Builds the Hearth application on `store`: what `hearth serve` runs and what tests drive.
///
/// ```swift
/// let app = try await buildApplication(configuration: .init(mode: .emulator, port: 0), store: InMemoryStore())
/// try await app.runService()
/// ```
public func buildApplication(
    configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock = SystemClock(),
    hashing: any BlockingWorkRunner = ThreadPoolWorkRunner(), logger: Logger = Logger(label: "hearth"),
    hashParameters: @escaping @Sendable () -> FirebaseScryptParameters = { .generate() },
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let services = HearthServices(configuration: configuration, store: store, clock: clock, hashing: hashing,
                                  logger: logger, hashParameters: hashParameters)
    // The first start creates the project: keys, hash parameters, API key. A configured switch applies to it
    // on every start, so turning email-enumeration protection on or off is a config change and a restart.
    var project = try await services.defaultProject().record
    if let protection = configuration.emailEnumerationProtection,
       project.settings.enableImprovedEmailPrivacy != protection {
        project.settings.enableImprovedEmailPrivacy = protection
        _ = try await services.projects.update(project)
    }
    return Application(
        responder: HearthAPI(services: services),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}
