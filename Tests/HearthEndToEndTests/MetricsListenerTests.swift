import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import Testing

/// `metrics.expose: listener`: Prometheus text on a port of its own, and nothing on the API port.
@Suite(.serialized, .enabled(if: hearthBinary != nil, "needs the built hearth binary"))
struct MetricsListenerTests {
    @Test func metricsOnTheirOwnListenerOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let metricsPort = try freePort()
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(
            store: "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path,
            settings: ["metrics": ["expose": "listener", "host": "127.0.0.1", "port": metricsPort]])
        defer { stop() }
        _ = try await TwoInstanceRaceTests.call(base, "accounts:signUp", ["email": "m@example.com", "password": "secret1"])

        let (scrape, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!)
        let text = String(decoding: scrape, as: UTF8.self)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(text.contains(#"hearth_sign_ups_total{provider="password",outcome="success"} 1"#), "\(text.prefix(2000))")
        #expect(text.contains("hearth_store_duration_seconds_bucket"), "store latency by operation")
        let (_, main) = try await URLSession.shared.data(from: URL(string: base + "/metrics")!)
        #expect((main as? HTTPURLResponse)?.statusCode == 404, "not on the API port")
    }
}
