import Configuration
import Foundation
import HearthServer
import Testing

/// The configuration file's schema is the reference: every top-level key is documented in docs/configuration.md,
/// and typos are found at any depth.
@Suite struct ConfigSchemaTests {
    static func page() throws -> String {
        try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/configuration.md").standardizedFileURL, encoding: .utf8)
    }

    @Test func everyKeyIsDocumented() throws {
        let section = try Self.page()
        guard case .object(let keys) = ConfigSchema.root else { Issue.record("the root is an object"); return }
        let missing = keys.keys.sorted().filter { !section.contains("`\($0)`") && !section.contains("`\($0).") }
        #expect(missing.isEmpty, "docs/configuration.md lacks \(missing)")
    }

    /// The schema is read off `ConfigFile`, the type the settings decode into: each property's Swift type gives its
    /// kind, a dictionary is a map, an enum a string, and the declared secrets are secret.
    @Test func theSchemaIsReadOffTheTypeThatDecodesIt() throws {
        let kinds = Dictionary(uniqueKeysWithValues: ConfigSchema.settings().map { ($0.path.joined(separator: "."), $0.node) })
        func kind(_ path: String) -> String {
            switch kinds[path] {
            case .value(let kind, let secret)?: "\(kind)\(secret ? " secret" : "")"
            case .map?: "map"
            case .object?: "object"
            case nil: "absent"
            }
        }
        #expect(kind("port") == "int" && kind("emulator") == "bool" && kind("recentLoginWindowSeconds") == "double")
        #expect(kind("email.smtp.password") == "string secret" && kind("email.smtp.host") == "string")
        #expect(kind("email.smtp.security") == "string", "an enum is given as its raw value")
        #expect(kind("mfa.providers") == "strings" && kind("mfa.state") == "string" && kind("captcha.hostnames") == "strings")
        #expect(kind("identityProviders") == "map" && kind("email.templates") == "map" && kind("projects") == "map")
        #expect(kind("store") == "string secret" && kind("sms.twilio.authToken") == "string secret")
        #expect(ConfigSchema.firstUnknownKey(in: ["identityProviders": ["oidc.acme": ["codeFlow": true, "displayName": "Acme"]]]) == nil,
                "a map's entries take every key their type decodes")
        // A section whose own checks refuse placeholders (captcha's provider) is still read whole.
        #expect(kind("captcha.provider") == "string" && kind("captcha.action") == "string" && kind("captcha.secret") == "string secret")
    }

    /// A section's own checks answer as the operator wrote it.
    @Test func aSectionsChecksNameTheKeyAndWhatItTakes() throws {
        let file = Data(#"{"captcha": {"provider": "friendlycaptcha", "siteKey": "k", "secret": "s"}}"#.utf8)
        let error = try #require(throws: DecodingError.self) { try JSONDecoder().decode(ConfigFile.self, from: file) }
        #expect(ConfigFile.describe(error) == #"captcha.provider: expected "turnstile", "hcaptcha", "recaptcha", got "friendlycaptcha""#)
        let plain = Data(#"{"captcha": {"provider": "turnstile", "siteKey": "k", "secret": "s", "verifyURL": "ftp://x"}}"#.utf8)
        let refused = try #require(throws: DecodingError.self) { try JSONDecoder().decode(ConfigFile.self, from: plain) }
        #expect(ConfigFile.describe(refused) == #"captcha.verifyURL: expected an http(s) URL, got "ftp://x""#)
    }

    /// The reference table is exactly the schema's: a setting added to the code is documented.
    @Test func theReferenceShowsEverySetting() throws {
        let readme = try Self.page()
        let start = try #require(readme.range(of: "<!-- settings:begin -->\n"))
        let end = try #require(readme.range(of: "\n<!-- settings:end -->"))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == ConfigSchema.referenceTable(),
                "update docs/configuration.md's settings table from ConfigSchema.referenceTable()")
    }

    /// The names the documentation gives are the ones swift-configuration's providers look up: each setting, given only
    /// under its documented variable (or secret file name), is found.
    @Test func documentedNamesAreTheOnesTheProvidersRead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = ConfigSchema.settings()
        for (path, _) in settings {
            try Data("1".utf8).write(to: folder.appendingPathComponent(ConfigSchema.secretFileName(path)))
        }
        let variables = Dictionary(uniqueKeysWithValues: settings.map { (ConfigSchema.environmentName($0.path), "1") })
        let environment = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables)
            .prefixKeys(with: "hearth"))
        let files = ConfigReader(provider: try await DirectoryFilesProvider(directoryPath: .init(folder.path)))
        for (path, _) in settings {
            #expect(environment.string(forKey: ConfigKey(path)) == "1", "\(ConfigSchema.environmentName(path))")
            #expect(files.string(forKey: ConfigKey(path)) == "1", "\(ConfigSchema.secretFileName(path))")
        }
        #expect(ConfigSchema.environmentName(["email", "smtp", "password"]) == "HEARTH_EMAIL_SMTP_PASSWORD")
        #expect(ConfigSchema.environmentName(["publicURL"]) == "HEARTH_PUBLIC_URL")
    }

    @Test func typosAreFoundAtAnyDepth() {
        #expect(ConfigSchema.firstUnknownKey(in: ["logLevle": "info"]) == "unknown key logLevle (did you mean logLevel?)")
        #expect(ConfigSchema.firstUnknownKey(in: ["projects": ["my-app": ["emial": [:]]]])
                == "unknown key projects.my-app.emial (did you mean projects.my-app.email?)")
        #expect(ConfigSchema.firstUnknownKey(in: ["identityProviders": ["oidc.acme": ["clientId": "x", "issuer": "y"]]]) == nil)
        #expect(ConfigSchema.firstUnknownKey(in: ["zzzz": 1]) == "unknown key zzzz")
    }
}
