import Foundation
import HearthCore
import HearthServer
import HearthTestSupport
import Hummingbird

/// A Hearth server on `configuration.port`, in this process, until `body` returns (it gets the base URL); stopped
/// then, also when `body` throws.
func serving(_ configuration: ServerConfiguration, store: any IdentityStore, clock: any HearthClock = SystemClock(),
             mailPollInterval: Duration = .seconds(5), hashMemoryCost: Int = 10,
             _ body: @escaping @Sendable (String) async throws -> Void) async throws {
    let hashing = ThreadPoolWorkRunner(threads: 2)
    let app = try await buildApplication(configuration: configuration, store: store, clock: clock, hashing: hashing,
                                         hashParameters: { .generate(memoryCost: hashMemoryCost) },
                                         mailPollInterval: mailPollInterval)
    let server = Task { try await app.runService() }
    var failure: (any Error)?
    do {
        let base = "http://127.0.0.1:\(configuration.port)"
        try await ActionPageBrowserTests.waitUntilListening(base)
        try await body(base)
    } catch {
        failure = error
    }
    server.cancel()
    _ = await server.result
    try await hashing.shutdown()
    if let failure { throw failure }
}
