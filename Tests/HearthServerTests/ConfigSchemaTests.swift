import Foundation
import HearthServer
import Testing

/// The configuration file's schema is the reference: every top-level key is documented in the README's
/// Configuration section, and typos are found at any depth.
@Suite struct ConfigSchemaTests {
    @Test func everyKeyIsInTheReadme() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Configuration\n"))
        let end = try #require(readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex))
        let section = readme[start.upperBound..<end.lowerBound]
        guard case .object(let keys) = ConfigSchema.root else { Issue.record("the root is an object"); return }
        let missing = keys.keys.sorted().filter { !section.contains("`\($0)`") && !section.contains("`\($0).") }
        #expect(missing.isEmpty, "README's Configuration section lacks \(missing)")
    }

    @Test func typosAreFoundAtAnyDepth() {
        #expect(ConfigSchema.firstUnknownKey(in: ["logLevle": "info"]) == "unknown key logLevle (did you mean logLevel?)")
        #expect(ConfigSchema.firstUnknownKey(in: ["projects": ["my-app": ["emial": [:]]]])
                == "unknown key projects.my-app.emial (did you mean projects.my-app.email?)")
        #expect(ConfigSchema.firstUnknownKey(in: ["identityProviders": ["oidc.acme": ["clientId": "x", "issuer": "y"]]]) == nil)
        #expect(ConfigSchema.firstUnknownKey(in: ["zzzz": 1]) == "unknown key zzzz")
    }
}
