import Logging
import Metrics
import Prometheus
import Synchronization

/// Where Prometheus metrics are served, if at all (`metrics.expose` in the config file).
public enum MetricsExposure: Sendable, Equatable {
    /// No `/metrics` and no collection (the default).
    case off
    /// `/metrics` on the API listener; with a token, only for `Authorization: Bearer <token>`.
    case mainListener(bearerToken: String?)
    /// `/metrics` on its own listener (a port only your network reaches), without credentials.
    case separateListener(host: String, port: Int)
}

/// Metrics, traces and request logging, as configured.
public struct Observability: Sendable {
    public var metrics: MetricsExposure
    /// Where spans go (`tracing` in the config file); nil, none are made.
    public var tracing: TracingExport?
    /// The level of the one-line-per-request log (`info` by default; `debug` keeps it out of an `info` log).
    public var requestLogLevel: Logger.Level

    public init(metrics: MetricsExposure = .off, requestLogLevel: Logger.Level = .info) {
        self.metrics = metrics
        self.requestLogLevel = requestLogLevel
    }

    var metricsEnabled: Bool { metrics != .off }
    var metricsOnMainListener: Bool { if case .mainListener = metrics { true } else { false } }
    var metricsToken: String? { if case .mainListener(let token) = metrics { token } else { nil } }
}

/// The process's Prometheus registry. swift-metrics has one factory per process, so the first server built with
/// metrics on bootstraps it; later servers in the same process (tests) share it.
public enum HearthMetrics {
    private static let bootstrapped = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry, bootstrapping swift-metrics with it on first use.
    public static var registry: PrometheusCollectorRegistry {
        bootstrapped.withLock { current in
            if let current { return current }
            let registry = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: registry)
            // Prometheus names allow no dots: Hummingbird's `http.server.request.duration` becomes
            // `http_server_request_duration`.
            factory.nameAndLabelSanitizer = { name, labels in
                (name.replacingDots, labels.map { ($0.0.replacingDots, $0.1) })
            }
            MetricsSystem.bootstrap(factory)
            current = registry
            return registry
        }
    }

    /// The registry in Prometheus's text format.
    static func scrape() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16_384)
        registry.emit(into: &buffer)
        return buffer
    }
}

private extension String {
    var replacingDots: String { String(map { $0 == "." ? "_" : $0 }) }
}
