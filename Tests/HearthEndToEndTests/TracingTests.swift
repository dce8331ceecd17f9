import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthPostgresTestSupport
import HearthTestSupport
import Hummingbird
import Synchronization
import Testing

/// OpenTelemetry across two `hearth serve` processes on one PostgreSQL: a client's trace (its W3C `traceparent`)
/// goes on in a sign-in on A and a lookup on B, each request's span has the store's calls as children, and both
/// instances export them over OTLP/HTTP to a collector on loopback (here a receiver that keeps what it is sent).
@Suite(.serialized, .enabled(if: TemporaryPostgres.skipReason == nil && hearthBinary != nil,
                             "needs PostgreSQL and the built hearth binary: \(TemporaryPostgres.skipReason ?? "hearth not built")"))
struct TracingTests {
    @Test func oneSignInsTraceRunsAcrossTwoInstancesAndTheDatabase() async throws {
        let receiver = try await SpanReceiver.start()
        defer { receiver.stop() }
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        func instance(_ name: String) async throws -> (String, @Sendable () -> Void) {
            try await TwoInstanceRaceTests.startHearth(
                store: url,
                settings: ["tracing": ["otlpEndpoint": "http://127.0.0.1:\(receiver.port)", "otlpProtocol": "http/json",
                                       "serviceName": name]],
                environment: ["OTEL_BSP_SCHEDULE_DELAY": "100"])
        }
        let (a, stopA) = try await instance("hearth-a")
        defer { stopA() }
        let (b, stopB) = try await instance("hearth-b")
        defer { stopB() }

        _ = try await send(a, "accounts:signUp", ["email": "traced@example.com", "password": "secret1"])
        let trace = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let client = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 1...255)) }.joined()
        let parent = ["traceparent": "00-\(trace)-\(client)-01"]
        let signIn = try await send(a, "accounts:signInWithPassword", ["email": "traced@example.com", "password": "secret1"],
                                    headers: parent)
        let idToken = try #require(signIn.json["idToken"] as? String, "\(signIn.json)")
        let lookup = try await send(b, "accounts:lookup", ["idToken": idToken], headers: parent)
        #expect(lookup.status == 200)

        var spans: [SpanReceiver.Span] = []
        let complete = await eventually {
            spans = receiver.spans.filter { $0.traceID == trace }
            let services = Set(spans.filter { $0.kind == "server" }.map(\.service))
            return services == ["hearth-a", "hearth-b"] && spans.contains { $0.name.hasPrefix("store ") && $0.service == "hearth-b" }
        }
        #expect(complete, "spans of the trace: \(spans.map { "\($0.service) \($0.kind) \($0.name)" })")
        for service in ["hearth-a", "hearth-b"] {
            let requests = spans.filter { $0.service == service && $0.kind == "server" }
            #expect(requests.count == 1 && requests.first?.parentID == client,
                    "\(service)'s request continues the client's span: \(requests)")
            guard let request = requests.first else { continue }
            let calls = spans.filter { $0.service == service && $0.name.hasPrefix("store ") }
            #expect(!calls.isEmpty && calls.allSatisfy { $0.parentID == request.spanID },
                    "\(service)'s store calls are children of its request: \(calls.map(\.name))")
            #expect(calls.allSatisfy { $0.attributes["db.system.name"] == "postgresql" && $0.kind == "client" },
                    "\(calls.map { "\($0.kind) \($0.attributes)" })")
        }
        #expect(spans.contains { $0.service == "hearth-a" && $0.name == "store user.email" }, "the sign-in read the account")
    }
}

/// An OTLP/HTTP receiver (JSON encoding) on a loopback port: keeps every span it is sent.
final class SpanReceiver: Sendable {
    struct Span: Sendable, CustomStringConvertible {
        let service: String
        let traceID: String
        let spanID: String
        let parentID: String
        let name: String
        let kind: String
        let attributes: [String: String]
        var description: String { "\(service) \(kind) \(name) \(spanID)←\(parentID)" }
    }

    let port: Int
    private let received = Mutex<[Span]>([])
    private let task = Mutex<Task<Void, any Error>?>(nil)

    var spans: [Span] { received.withLock { $0 } }

    private init(port: Int) { self.port = port }

    static func start() async throws -> SpanReceiver {
        let receiver = SpanReceiver(port: try freePort())
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            receiver.keep(Data(buffer: body))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: receiver.port)))
        receiver.task.withLock { $0 = Task { try await app.runService() } }
        _ = await eventually {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(receiver.port)/v1/traces")!)
            request.httpMethod = "POST"
            request.httpBody = Data("{}".utf8)
            return (try? await URLSession.shared.data(for: request)) != nil
        }
        return receiver
    }

    func stop() { task.withLock { $0?.cancel() } }

    /// OTLP's JSON: resourceSpans → resource (service.name) and scopeSpans → spans. Ids are hex (OTLP's rule) or
    /// base64 (protobuf's JSON mapping); kinds a number or a name.
    private func keep(_ data: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        var spans: [Span] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            let service = Self.attributes((resource["resource"] as? [String: Any])?["attributes"])["service.name"] ?? "?"
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    spans.append(Span(service: service, traceID: Self.hex(span["traceId"]), spanID: Self.hex(span["spanId"]),
                                      parentID: Self.hex(span["parentSpanId"]), name: span["name"] as? String ?? "",
                                      kind: Self.kind(span["kind"]), attributes: Self.attributes(span["attributes"])))
                }
            }
        }
        received.withLock { $0 += spans }
    }

    private static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count % 2 == 0, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        return Data(base64Encoded: text).map { $0.map { String(format: "%02x", $0) }.joined() } ?? text
    }

    private static func kind(_ value: Any?) -> String {
        switch value {
        case let number as Int: ["unspecified", "internal", "server", "client", "producer", "consumer"][safe: number] ?? "?"
        case let name as String: name.replacingOccurrences(of: "SPAN_KIND_", with: "").lowercased()
        default: "?"
        }
    }

    private static func attributes(_ value: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in value as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
            result[key] = (value["stringValue"] as? String) ?? value.values.first.map { "\($0)" }
        }
        return result
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
