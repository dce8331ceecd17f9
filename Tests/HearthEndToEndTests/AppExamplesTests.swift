import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthTestSupport
import Testing

/// The docs' examples run as printed against a production `hearth serve`: every config-file example (marked
/// `<!-- config-example -->`) starts a server, every admin example (`<!-- admin-example -->`, in page order) succeeds,
/// and the backends of docs/apps.md (`<!-- backend-example: LANGUAGE -->`) verify a real ID token and set a claim.
@Suite struct AppExamplesTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The fenced blocks after `marker` in the docs, with the page and, for a `marker: value` line, the value.
    static func blocks(marked marker: String) throws -> [(page: String, label: String, code: String)] {
        let docs = checkout.appendingPathComponent("docs")
        var found: [(String, String, String)] = []
        for page in try FileManager.default.contentsOfDirectory(atPath: docs.path).filter({ $0.hasSuffix(".md") }).sorted() {
            let lines = try String(contentsOf: docs.appendingPathComponent(page), encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                guard line.hasPrefix("<!-- \(marker)"), line.hasSuffix("-->") else { index += 1; continue }
                let label = line.dropFirst("<!-- \(marker)".count).dropLast(3).trimmingCharacters(in: CharacterSet(charactersIn: ": "))
                let indent = lines[index + 1].prefix { $0 == " " }.count
                var code: [String] = []
                index += 2
                while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                    code.append(String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
                    index += 1
                }
                found.append((page, label, code.joined(separator: "\n") + "\n"))
            }
        }
        return found
    }

    /// A production server in a folder of its own, with a service account's key where the docs say, and the
    /// variables the docs use.
    struct Server {
        let folder: URL
        let process: ChildProcess
        let environment: [String: String]
        let base: String

        static func start(config: String? = nil, settings: [String: String] = [:]) async throws -> Server {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-examples-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
            let binary = try #require(hearthBinary)
            environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            var serve = environment
            let port = try freePort()
            serve["HEARTH_PORT"] = String(port)
            serve.merge(settings) { $1 }
            var arguments: [String] = []
            if let config {
                try Data(config.utf8).write(to: folder.appendingPathComponent("hearth.json"))
                arguments = ["--config", "hearth.json"]
            }
            let (process, banner) = try await startServe(arguments, in: folder, environment: serve)
            try #require(process.isRunning && banner.contains("passwords:"), "hearth serve did not start: \(banner)")
            let base = "http://127.0.0.1:\(port)"
            environment["HEARTH"] = base
            environment["PROJECT"] = "hearth-local"
            environment["KEY_FILE"] = "hearth-data/service-accounts/backend-api.json"
            let created = try await runHearth(["service-accounts", "create", "backend-api"], in: folder, environment: environment)
            try #require(created.status == 0, "\(created.output)")
            return Server(folder: folder, process: process, environment: environment, base: base)
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }

        func bash(_ script: String) async throws -> (status: Int32, output: String) {
            try await runProcess(URL(fileURLWithPath: "/bin/bash"), ["-euo", "pipefail", "-c", script], in: folder, environment: environment)
        }
    }

    /// The captcha provider of docs/security.md, so that page's enforcement example has the provider it needs.
    static func captchaConfig() throws -> String {
        let fragment = try #require(try blocks(marked: "config-example").first { $0.code.contains("\"captcha\"") }?.code)
        return "{" + fragment + "}"
    }

    @Test func everyConfigExampleStartsAServer() async throws {
        let examples = try Self.blocks(marked: "config-example")
        #expect(examples.count >= 5, "config examples found: \(examples.map(\.page))")
        for example in examples {
            let text = example.code.trimmingCharacters(in: .whitespacesAndNewlines)
            let config = text.hasPrefix("\"") ? "{" + text + "}" : text  // a fragment of the file's object
            let server = try await Server.start(config: config)
            server.stop()
        }
    }

    @Test func everyAdminExampleSucceedsAsPrinted() async throws {
        let examples = try Self.blocks(marked: "admin-example")
        #expect(examples.count >= 8, "admin examples found: \(examples.map(\.page))")
        let server = try await Server.start(config: try Self.captchaConfig())
        defer { server.stop() }
        for example in examples {
            let (status, output) = try await server.bash(example.code)
            #expect(status == 0 && !output.contains("\"error\""), "\(example.page): \(example.code)\n→ \(output)")
        }
        // What the MFA example turned on: TOTP alone, not SMS.
        let (_, config) = try await server.bash("""
            curl -sS "$HEARTH/identitytoolkit.googleapis.com/v2/projects/$PROJECT/config" \
              -H "Authorization: Bearer $(hearth admin-token --key-file "$KEY_FILE")"
            """)
        let mfa = try #require((try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])?["mfa"] as? [String: Any], "\(config)")
        #expect(mfa["state"] as? String == "ENABLED" && (mfa["enabledProviders"] as? [String] ?? []).isEmpty, "\(mfa)")
    }

    /// A setting `hearth serve` takes from a variable or the config file is applied at every start: the admin API
    /// refuses to change it, naming where it is set, rather than accept a change the next start would undo.
    @Test func aSettingTheServerIsGivenIsRefusedByTheAPINamingItsSource() async throws {
        let server = try await Server.start(config: #"{"mfa": {"state": "ENABLED", "providers": ["TOTP"]}}"#,
                                            settings: ["HEARTH_ANONYMOUS_SIGN_IN": "true"])
        defer { server.stop() }
        for (mask, body, source) in [
            ("signIn.anonymous.enabled", #"{"signIn": {"anonymous": {"enabled": false}}}"#, "HEARTH_ANONYMOUS_SIGN_IN"),
            ("mfa.state", #"{"mfa": {"state": "DISABLED"}}"#, "the config file"),
        ] {
            let (_, reply) = try await server.bash("""
                curl -sS -X PATCH "$HEARTH/identitytoolkit.googleapis.com/v2/projects/$PROJECT/config?updateMask=\(mask)" \
                  -H "Authorization: Bearer $(hearth admin-token --key-file "$KEY_FILE")" -H 'content-type: application/json' -d '\(body)'
                """)
            #expect(reply.contains("is set by \(source) and applied at every start"), "\(mask): \(reply)")
        }
    }

    /// How each backend example runs, and why it would be skipped here.
    static let runners: [String: (file: String, command: [String], skip: String?)] = {
        let environment = ProcessInfo.processInfo.environment
        func installed(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func onPath(_ name: String) -> Bool { path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") } }
        return [
            "node": ("backend.js", ["node", "backend.js"],
                     !onPath("node") ? "node is not installed" : !installed("/usr/share/nodejs/jose") && environment["NODE_PATH"] == nil
                        ? "jose is not installed (apt-get install node-jose, or NODE_PATH to an npm install)" : nil),
            "python": ("backend.py", ["python3", "backend.py"], nil),
            "go": ("backend.go", ["go", "run", "backend.go"],
                   !onPath("go") ? "go is not installed (apt-get install golang-go)"
                       : !installed("/usr/share/gocode/src/gopkg.in/square/go-jose.v2") ? "go-jose is not installed (apt-get install golang-gopkg-square-go-jose.v2-dev)" : nil),
        ]
    }()

    @Test(arguments: ["node", "python", "go"])
    func aBackendExampleVerifiesATokenAndSetsAClaim(_ language: String) async throws {
        let runner = try #require(Self.runners[language])
        if let skip = runner.skip {
            print("AppExamplesTests: the \(language) backend example is skipped: \(skip)")
            return
        }
        let code = try #require(try Self.blocks(marked: "backend-example").first { $0.label == language }?.code, "no \(language) example")
        let server = try await Server.start()
        defer { server.stop() }
        try Data(code.utf8).write(to: server.folder.appendingPathComponent(runner.file))
        let (_, signUp) = try await server.bash("""
            KEY=$(hearth project show --field apiKey 2>/dev/null)
            curl -sS -f "$HEARTH/identitytoolkit.googleapis.com/v1/accounts:signUp?key=$KEY" -H 'content-type: application/json' \
              -d '{"email":"backend-\(language)@example.com","password":"secret123","returnSecureToken":true}'
            """)
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(signUp.utf8)) as? [String: Any], "\(signUp)")
        let idToken = try #require(reply["idToken"] as? String), uid = try #require(reply["localId"] as? String)

        var environment = server.environment
        environment["NODE_PATH"] = environment["NODE_PATH"] ?? "/usr/share/nodejs"  // Debian's node-jose
        environment["GO111MODULE"] = "off"  // Debian's Go packages, in GOPATH mode
        environment["GOPATH"] = environment["GOPATH"] ?? "/usr/share/gocode"
        environment["GOCACHE"] = server.folder.appendingPathComponent("go-cache").path
        let arguments = Array(runner.command.dropFirst()) + [idToken]
        let (status, output) = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), [runner.command[0]] + arguments,
                                                    in: server.folder, environment: environment)
        #expect(status == 0, "\(language): \(output)")
        #expect(output.contains("verified \(uid) backend-\(language)@example.com"), "\(language): \(output)")
        #expect(output.contains(#"claims {"role":"editor"}"#) || output.contains(#"claims {"role": "editor"}"#), "\(language): \(output)")

        // A token from elsewhere is refused: the same claims signed by another key.
        let forged = idToken.split(separator: ".").prefix(2).joined(separator: ".") + ".c2lnbmF0dXJl"
        let refused = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), [runner.command[0]] + Array(runner.command.dropFirst()) + [forged],
                                           in: server.folder, environment: environment)
        #expect(refused.status != 0 && !refused.output.contains("verified"), "\(language) accepted a forged token: \(refused.output)")
    }

    /// The JS SDK app test of docs/apps.md (`<!-- emulator-test-example: js -->`), run with the official SDK built
    /// by ../shared/peer/build-js-sdk.sh (`HEARTH_JS_SDK`, else /tmp/jssdk/dist/firebase-auth-node.mjs) against
    /// emulator mode: it freezes and moves the clock and sees an injected fault as `auth/quota-exceeded`.
    @Test func theEmulatorTestExampleMovesTheClockAndInjectsAFault() async throws {
        let bundle = ProcessInfo.processInfo.environment["HEARTH_JS_SDK"] ?? "/tmp/jssdk/dist/firebase-auth-node.mjs"
        guard FileManager.default.fileExists(atPath: bundle) else {
            print("AppExamplesTests: the JS SDK emulator example is skipped: no \(bundle) (build it with MIRROR=… bash "
                  + "../shared/peer/build-js-sdk.sh /tmp/jssdk; CI has no mirrors)")
            return
        }
        let example = try #require(try Self.blocks(marked: "emulator-test-example").first { $0.label == "js" }?.code)
        let code = example.replacingOccurrences(of: #"from "firebase/app""#, with: "from \"\(bundle)\"")
            .replacingOccurrences(of: #"from "firebase/auth""#, with: "from \"\(bundle)\"")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-js-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(code.utf8).write(to: folder.appendingPathComponent("test.mjs"))
        let configuration = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: "js-project")
        try await serving(configuration, store: InMemoryStore()) { base in
            var environment = ProcessInfo.processInfo.environment
            environment["HEARTH"] = base
            environment["PROJECT"] = "js-project"
            let (status, output) = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["node", "test.mjs"],
                                                        in: folder, environment: environment)
            #expect(status == 0 && output.contains("clock and faults: ok Thu, 01 May 2031 13:00:01 GMT"), "\(output)")
        }
    }
}
