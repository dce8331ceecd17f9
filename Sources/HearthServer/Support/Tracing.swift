import HearthCore
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// Where OpenTelemetry spans are sent: an OTLP/HTTP collector (`tracing.otlpEndpoint`). Off by default.
public struct TracingExport: Sendable, Equatable {
    /// The collector's base URL; spans go to its `/v1/traces` unless the URL already names that path.
    public var endpoint: String
    public var serviceName: String
    /// OTLP's JSON encoding instead of protobuf.
    public var json: Bool

    public init(endpoint: String, serviceName: String = "hearth", json: Bool = false) {
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.json = json
    }

    var tracesURL: String {
        endpoint.hasSuffix("/v1/traces") ? endpoint : (endpoint.hasSuffix("/") ? endpoint : endpoint + "/") + "v1/traces"
    }
}

/// The process's tracer: swift-otel's, bootstrapped once (swift-distributed-tracing has one per process), with
/// spans batched and exported in the background. The `OTEL_*` variables of the OpenTelemetry specification
/// (`OTEL_BSP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER`, …) adjust it.
enum HearthTracing {
    private static let started = Mutex(false)

    /// Bootstraps the tracer for `export` and turns spans on; returns the exporter's service, to run beside the
    /// server (it flushes the last spans at shutdown). Nil when this process already has a tracer.
    static func start(_ export: TracingExport, logger: Logger) throws -> (any Service)? {
        try started.withLock { started -> (any Service)? in
            guard !started else { return nil }
            var configuration = OTel.Configuration.default
            configuration.serviceName = export.serviceName
            configuration.logs.enabled = false
            configuration.metrics.enabled = false
            configuration.traces.enabled = true
            configuration.traces.exporter = .otlp
            configuration.traces.otlpExporter.endpoint = export.tracesURL
            configuration.traces.otlpExporter.protocol = export.json ? .httpJSON : .httpProtobuf
            configuration.diagnosticLogger = .custom(logger)
            let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(tracer)
            Traced.turnOn()
            started = true
            logger.info("tracing: spans go to \(export.tracesURL) as \(export.serviceName)")
            return service
        }
    }
}
