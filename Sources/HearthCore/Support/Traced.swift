import Synchronization
import Tracing

/// Spans for the calls Hearth makes to others (the store, functions, webhooks, SMTP, SMS), when tracing is on.
/// Off (the default: no exporter configured), no span is made at all, not even a no-op one, so the hot paths pay
/// one atomic load. The server turns it on when it bootstraps an exporter.
///
/// ```swift
/// let rows = try await Traced.client("store user.email", ["server.address": "db1:5432"]) { try await read() }
/// ```
public enum Traced {
    private static let on = Atomic<Bool>(false)

    public static var isOn: Bool { on.load(ordering: .relaxed) }

    /// Called once an exporter is bootstrapped (`InstrumentationSystem`).
    public static func turnOn() { on.store(true, ordering: .relaxed) }

    /// `body` in a client span named `name`, a child of the current span (the request's), with `attributes`.
    public static func client<T>(_ name: String, _ attributes: [String: String] = [:],
                                 isolation: isolated (any Actor)? = #isolation,
                                 _ body: () async throws -> T) async throws -> T {
        guard isOn else { return try await body() }
        return try await withSpan(name, ofKind: .client, isolation: isolation) { span in
            for (key, value) in attributes { span.attributes[key] = value }
            return try await body()
        }
    }

    /// The W3C trace context (`traceparent`, and `tracestate` when there is one) of the current span, for an
    /// outgoing request: the service called continues the same trace. Empty while tracing is off.
    public static func headers() -> [(String, String)] {
        guard isOn, let context = ServiceContext.current else { return [] }
        var headers: [(String, String)] = []
        InstrumentationSystem.instrument.inject(context, into: &headers, using: PairsInjector())
        return headers
    }

    private struct PairsInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
            carrier.append((key, value))
        }
    }
}
