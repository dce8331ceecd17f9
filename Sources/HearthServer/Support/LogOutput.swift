import Foundation
import Logging

/// How log lines are written: readable text, or one JSON object per line for log collectors.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// The process's logging, set up once by `hearth serve` before anything logs.
///
/// ```swift
/// LogOutput.bootstrap(level: .info, format: .json)
/// ```
public enum LogOutput {
    public static func bootstrap(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = switch format {
            case .text: StreamLogHandler.standardError(label: label)
            case .json: JSONLinesLogHandler(label: label)
            }
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger {
    /// The logger a server built in process uses unless given one. `HEARTH_TEST_LOG_LEVEL` sets its level: tests
    /// build servers without `hearth serve`'s logging setup, and `scripts/test` keeps them at `warning`.
    public static func hearth(_ label: String) -> Logger {
        var logger = Logger(label: label)
        if let level = ProcessInfo.processInfo.environment["HEARTH_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) {
            logger.logLevel = level
        }
        return logger
    }
}

/// One JSON object per line on standard error: `time`, `level`, `logger`, `message`, then the metadata's keys
/// (request id, route, status, …) as strings. swift-log ships only a text handler; this one is small and ours.
public struct JSONLinesLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    private let output: @Sendable (Data) -> Void

    public init(label: String, output: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        write(level: event.level, message: event.message, metadata: event.metadata)
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
                    source: String, file: String, function: String, line: UInt) {
        write(level: level, message: message, metadata: explicit)
    }

    private func write(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?) {
        var fields: [String: String] = [:]
        let provided = metadataProvider?.get() ?? [:]
        for (key, value) in self.metadata.merging(provided, uniquingKeysWith: { $1 })
            .merging(explicit ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = "\(value)"
        }
        fields["time"] = Date().ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        fields["level"] = level.rawValue
        fields["logger"] = label
        fields["message"] = message.description
        guard var data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        data.append(0x0A)
        output(data)
    }
}
