import Configuration
import Foundation
import HearthServer
import Logging
import Synchronization
import SystemPackage

/// Every setting, read from where the operator put it. The first source that has a setting wins:
///
/// 1. the command's flags (`--port`, `--store`, …);
/// 2. `HEARTH_*` environment variables, one per setting (`email.smtp.password` → `HEARTH_EMAIL_SMTP_PASSWORD`);
/// 3. files in `HEARTH_SECRETS_DIR`, or in systemd's `$CREDENTIALS_DIRECTORY`, one per setting
///    (`email-smtp-password`), as Docker secrets and `LoadCredential=` mount them;
/// 4. the JSON config file (`--config` or `HEARTH_CONFIG`).
///
/// swift-configuration does the lookups, the conversions and the redaction of secrets; ``ConfigSchema``, read off
/// ``ConfigFile``, names every setting and its type. A value a source holds but cannot convert stops the start, naming the source.
///
/// ```swift
/// let settings = try await Settings.resolve(flags: ["port": 8080], configPath: nil,
///                                           environment: ProcessInfo.processInfo.environment)
/// settings.file.port   // 8080
/// ```
struct Settings {
    /// The settings, resolved, in the config file's shape.
    var file: ConfigFile
    /// Each setting given, with where it came from, for the start log (names only, never values).
    var sources: [(setting: String, source: String)]
    /// `HEARTH_*` variables that name no setting (a typo must not pass unnoticed).
    var unknownVariables: [String]
    /// Every read, to replay into the log once logging is set up (secrets redacted by swift-configuration).
    fileprivate var events: [AccessEvent]

    /// Variables that are not settings but are read elsewhere, by name.
    static let otherVariables: Set<String> = [
        "HEARTH_CONFIG", "HEARTH_SECRETS_DIR", "HEARTH_SMTP_URL", "HEARTH_METRICS", "HEARTH_ENCRYPTION_KEY",
        "HEARTH_ENCRYPTION_KEY_FILE", "HEARTH_USER_PASSWORD", "HEARTH_CONSOLE_PASSWORD",
    ]

    static func resolve(flags: [AbsoluteConfigKey: ConfigValue], configPath: String?,
                        environment: [String: String]) async throws -> Settings {
        // A flag is a setting given on the command line: it must name one, or it would be read by nothing.
        let settingPaths = Set(ConfigSchema.settings().map(\.path))
        if let stray = flags.keys.first(where: { !settingPaths.contains($0.components) }) {
            throw ConfigError(message: "flag \(stray.components.joined(separator: ".")) names no setting in ConfigFile")
        }
        let fileJSON = try configPath.map(ConfigFile.parse) ?? [:]
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "hearth"),
        ]
        if let folder = environment["HEARTH_SECRETS_DIR"] ?? environment["CREDENTIALS_DIRECTORY"] {
            do { providers.append(try await DirectoryFilesProvider(directoryPath: FilePath(folder))) } catch {
                throw ConfigError(message: "secrets folder \(folder) (HEARTH_SECRETS_DIR) cannot be read: \(error)")
            }
        }
        if let configPath {
            do { providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(configPath))) } catch {
                throw ConfigError(message: "config file \(configPath): \(error)")
            }
        }
        // Each source is checked whole, also where a higher one shadows it: a wrong value must not lie in wait
        // for the day the flag that hides it is dropped.
        for provider in providers {
            let recorder = AccessRecorder()
            let reader = ConfigReader(provider: provider, accessReporter: recorder)
            for case let (path, .value(kind, secret)) in ConfigSchema.settings() {
                _ = read(kind, path, secret: secret, from: reader)
                if let problem = recorder.problem(for: path) {
                    throw ConfigError(message: describe(problem, path: path, kind: kind, secret: secret,
                                                        environment: environment, configPath: configPath))
                }
            }
        }
        let recorder = AccessRecorder()
        let reader = ConfigReader(providers: providers, accessReporter: recorder)
        let tree = try resolve(ConfigSchema.root, path: [], reader: reader, fileJSON: fileJSON)
        let file: ConfigFile
        do {
            let data = try JSONSerialization.data(withJSONObject: tree ?? [String: Any]())
            file = try JSONDecoder().decode(ConfigFile.self, from: data)
        } catch let error as DecodingError {
            throw ConfigError(message: "\(configPath.map { "config file \($0): " } ?? "")\(ConfigFile.describe(error))")
        }
        let known = Set(ConfigSchema.settings().map { ConfigSchema.environmentName($0.path) }).union(otherVariables)
        let unknown = environment.keys.filter { $0.hasPrefix("HEARTH_") && !known.contains($0) }.sorted()
        let events = recorder.events
        return Settings(file: file, sources: events.compactMap(Self.source), unknownVariables: unknown, events: events)
    }

    /// Walks the schema: values through the reader, maps whole (JSON from a variable, else the file's object).
    private static func resolve(_ node: ConfigSchema.Node, path: [String], reader: ConfigReader,
                                fileJSON: Any?) throws -> Any? {
        switch node {
        case .value(let kind, let secret):
            return read(kind, path, secret: secret, from: reader)
        case .map:
            guard let text = reader.string(forKey: ConfigKey(path), isSecret: true) else { return fileJSON }
            do { return try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
                throw ConfigError(message: "\(ConfigSchema.environmentName(path)): expected a JSON object (\(path.joined(separator: ".")) as in the config file)")
            }
        case .object(let keys):
            var object: [String: Any] = [:]
            for name in keys.keys.sorted() {
                let child = (fileJSON as? [String: Any])?[name]
                if let value = try resolve(keys[name]!, path: path + [name], reader: reader, fileJSON: child) {
                    object[name] = value
                }
            }
            return object.isEmpty ? nil : object
        }
    }

    private static func read(_ kind: ConfigSchema.Kind, _ path: [String], secret: Bool, from reader: ConfigReader) -> Any? {
        let key = ConfigKey(path)
        return switch kind {
        case .string: reader.string(forKey: key, isSecret: secret)
        case .int: reader.int(forKey: key, isSecret: secret)
        case .double: reader.double(forKey: key, isSecret: secret)
        case .bool: reader.bool(forKey: key, isSecret: secret)
        case .strings: reader.stringArray(forKey: key, isSecret: secret)
        }
    }

    /// A value that cannot be read, named as the operator wrote it: the variable, the secret file or the file's key.
    private static func describe(_ provider: String, path: [String], kind: ConfigSchema.Kind, secret: Bool,
                                 environment: [String: String], configPath: String?) -> String {
        let expected = switch kind {
        case .string: "a string"
        case .int: "a whole number"
        case .double: "a number"
        case .bool: "true or false"
        case .strings: "a list of strings (comma-separated in a variable)"
        }
        let dotted = path.joined(separator: ".")
        if provider.contains("Environment") {
            let name = ConfigSchema.environmentName(path)
            let got = secret ? "" : environment[name].map { ", got \"\($0)\"" } ?? ""
            return "\(name): expected \(expected)\(got)"
        }
        if provider.contains("DirectoryFiles") { return "secret file \(path.joined(separator: "-")): expected \(expected)" }
        if provider.contains("InMemory") { return "\(dotted) flag: expected \(expected)" }
        return "config file \(configPath ?? "?"): \(dotted): expected \(expected)"
    }

    /// Where a setting that was found came from.
    private static func source(of event: AccessEvent) -> (setting: String, source: String)? {
        guard case .success(let value?) = event.result,
              let found = event.providerResults.first(where: { (try? $0.result.get().value) != nil })
        else { return nil }
        let path = event.metadata.key.components
        let name = found.providerName
        let source = name.contains("Environment") ? ConfigSchema.environmentName(path)
            : name.contains("DirectoryFiles") ? "secret file \(path.joined(separator: "-"))"
            : name.contains("InMemory") ? "flag" : "config file"
        return (path.joined(separator: "."), source + (value.isSecret ? ", secret" : ""))
    }

    /// Writes every setting found to the log at debug level, secrets redacted by swift-configuration's `AccessLogger`, and
    /// one line at info level naming each setting's source (never a value).
    func log(to logger: Logger) {
        let accessLogger = AccessLogger(logger: logger, level: .debug, message: "setting read")
        for event in events { if case .success(_?) = event.result { accessLogger.report(event) } }
        if !sources.isEmpty {
            logger.info("settings: \(sources.map { "\($0.setting) (\($0.source))" }.joined(separator: ", "))")
        }
        let names = ConfigSchema.settings().map { ConfigSchema.environmentName($0.path) }
        for name in unknownVariables {
            let hint = ConfigSchema.closest(to: name, among: names + Array(Self.otherVariables)).map { " (did you mean \($0)?)" } ?? ""
            logger.warning("\(name) is not a Hearth setting and is ignored\(hint); see docs/configuration.md")
        }
    }
}

/// Keeps every access event of a resolution: the settings' sources for the log, and a source's failure to convert
/// a value (the reader's non-throwing lookups report it here).
private final class AccessRecorder: AccessReporter, Sendable {
    private let recorded = Mutex<[AccessEvent]>([])

    func report(_ event: AccessEvent) { recorded.withLock { $0.append(event) } }

    var events: [AccessEvent] { recorded.withLock { $0 } }

    /// The provider that failed to read the setting at `path`, if one did.
    func problem(for path: [String]) -> String? {
        recorded.withLock { events in
            for event in events.reversed() where event.metadata.key.components == path {
                if let failed = event.providerResults.first(where: { if case .failure = $0.result { true } else { false } }) {
                    return failed.providerName
                }
                if event.conversionError != nil { return event.providerResults.last?.providerName ?? "?" }
                return nil
            }
            return nil
        }
    }
}
