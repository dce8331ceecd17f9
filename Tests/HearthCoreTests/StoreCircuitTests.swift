import HearthCore
import Synchronization
import Testing

/// How the circuit treats a database that is slow against one that refuses: a refused connection replaces the
/// pool every time (the old one backs off), a slow call only now and then (the fresh pool needs time to connect).
struct StoreCircuitTests {
    final class Database: StoreConnection {
        let reconnects = Atomic<Int>(0)
        func isUnavailable(_ error: any Error) -> Bool { error is Refused }
        func reconnect() async { reconnects.add(1, ordering: .relaxed) }
        var needsDeadline: Bool { true }
    }
    struct Refused: Error {}

    static func hang() async throws -> Int {
        try await Task.sleep(for: .seconds(3600))
        return 0
    }

    @Test func slowCallsReplaceThePoolOncePerSpacingRefusedConnectionsEveryTime() async throws {
        let circuit = StoreCircuit()
        let database = Database()
        circuit.configure(timeout: .milliseconds(20), probeInterval: .zero, timeoutReconnectSpacing: .seconds(3600))
        for _ in 0..<3 {
            await #expect(throws: StoreError.self) { try await circuit.call("user", isRead: true, on: database, Self.hang) }
        }
        #expect(database.reconnects.load(ordering: .relaxed) == 1, "three timeouts, one fresh pool")

        for _ in 0..<2 {
            await #expect(throws: StoreError.self) {
                try await circuit.call("user", isRead: true, on: database) { () async throws -> Int in throw Refused() }
            }
        }
        #expect(database.reconnects.load(ordering: .relaxed) == 3, "each refused connection gets a fresh pool")

        #expect(try await circuit.call("user", isRead: true, on: database) { 7 } == 7)
        await #expect(throws: StoreError.self) { try await circuit.call("user", isRead: true, on: database, Self.hang) }
        #expect(database.reconnects.load(ordering: .relaxed) == 3, "the spacing outlives the outage it began in")
    }

    @Test func withoutSpacingEveryTimeoutReplacesThePool() async throws {
        let circuit = StoreCircuit()
        let database = Database()
        circuit.configure(timeout: .milliseconds(20), probeInterval: .zero, timeoutReconnectSpacing: .zero)
        for _ in 0..<3 {
            await #expect(throws: StoreError.self) { try await circuit.call("user", isRead: true, on: database, Self.hang) }
        }
        #expect(database.reconnects.load(ordering: .relaxed) == 3)
    }
}
