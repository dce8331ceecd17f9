import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthAuth
import HearthCore
import HearthServer
import HearthTestSupport
import Hummingbird
import Testing

/// `EmulatorControls`, the HearthAuth helpers an app's tests use against Hearth in emulator mode: a frozen clock moved
/// past an ID token's hour, and a fault the SDK sees as Firebase's error, then not.
@Suite struct EmulatorControlsTests {
    @Test func anAppsTestMovesTheClockAndInjectsAFault() async throws {
        let port = try freePort()
        let configuration = ServerConfiguration(mode: .emulator, port: port, projectID: "controls-project")
        let hashing = ThreadPoolWorkRunner(threads: 1)
        let app = try await buildApplication(configuration: configuration, store: InMemoryStore(), hashing: hashing,
                                             hashParameters: { .generate(memoryCost: 10) })
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        let base = "http://127.0.0.1:\(port)"
        #expect(await eventually { (try? await URLSession.shared.data(from: URL(string: base + "/emulator/v1/projects/controls-project/clock")!)) != nil })

        let auth = Auth.auth(options: AuthOptions(apiKey: "any-key", projectID: "controls-project",
                                                  appName: "controls-\(UUID().uuidString)", persistence: .memory))
        auth.useEmulator(withHost: "127.0.0.1", port: port)
        let emulator = try #require(auth.emulatorControls)
        let start = try await emulator.freezeClock(at: Date(timeIntervalSince1970: 1_900_000_000))
        #expect(start == Date(timeIntervalSince1970: 1_900_000_000))
        let user = try await auth.createUser(withEmail: "app@example.com", password: "secret12").user
        #expect(try await user.getIDTokenResult().issuedAtDate == start)
        // An hour and a second later the server's time has passed the token's: a new one is issued at the new time.
        let later = try await emulator.advanceClock(by: 3601)
        #expect(try await emulator.now() == later)
        #expect(try await user.getIDTokenResult(forcingRefresh: true).issuedAtDate == later)

        try await emulator.injectFault(endpoint: "accounts:signInWithPassword", error: "QUOTA_EXCEEDED")
        await #expect { try await auth.signIn(withEmail: "app@example.com", password: "secret12") } throws: {
            ($0 as NSError).code == AuthErrorCode.quotaExceeded.rawValue
        }
        #expect(try await auth.signIn(withEmail: "app@example.com", password: "secret12").user.uid == user.uid, "once only")
        try await emulator.reset()
        #expect(abs(try await emulator.now().timeIntervalSinceNow) < 86_400 * 365, "the wall clock again")
        server.cancel()
        _ = await server.result
        try await hashing.shutdown()
    }
}
