import Foundation
import HearthCore
import Testing

/// The account use cases on the in-memory store, with a clock the tests move by hand: what each use case's suite
/// starts from.
protocol InMemoryAccounts {
    var clock: ManualClock { get }
    var store: InMemoryStore { get }
}

extension InMemoryAccounts {
    func makeService() -> AccountContext {
        AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
    }

    func makeProject(protection: Bool = false, anonymous: Bool = true) async throws -> ProjectContext {
        let directory = ProjectDirectory(
            store: store, clock: clock,
            defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: protection, anonymousSignInEnabled: anonymous) },
            hashParameters: { .generate(memoryCost: 10) })
        return try await directory.contextCreatingIfNeeded(for: "demo-one")
    }
}
