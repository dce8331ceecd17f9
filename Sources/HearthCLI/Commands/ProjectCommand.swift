import ArgumentParser
import Foundation
import HearthCore

/// `hearth project show`: what a client or an operator needs later, without scrolling back to the banner.
struct ProjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project",
        abstract: "Show the project's id, API key and addresses.",
        subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the project id, API key, base, console and JWKS URLs, store and mode.",
            discussion: """
                Reads the same settings as `hearth serve` (flags, HEARTH_* variables, the config file), so run it \
                where the server runs. The URLs are the running server's, from server.json in its data folder; \
                without a running server, publicURL or the configured host and port, with a note on standard error.
                  hearth project show
                  KEY=$(hearth project show --field apiKey)
                """)

        @OptionGroup var data: DataOptions

        @Flag(help: "Print one JSON object instead of aligned lines.")
        var json = false

        @Option(help: "Print only this field's value, for scripts: projectId, apiKey, baseURL, consoleURL, jwksURL, store or mode.")
        var field: String?

        func run() async throws {
            let file = try await data.configFile()
            let emulator = file.emulator ?? false
            let location = data.storeLocation(file, emulator: emulator)
            guard location != "memory:" else {
                throw CommandFailure("the store is memory: (emulator mode's default), which only the running server holds. "
                    + "Its banner shows the project; any API key is accepted in emulator mode.")
            }
            let (store, project, _) = try await data.open()
            try? await store.close()  // everything shown is in the project record now in hand
            let (base, note) = ServerRecord.address(store: location, publicURL: file.publicURL, host: file.host, port: file.port)
            if let note { FileHandle.standardError.write(Data((note + "\n").utf8)) }
            let fields: [(key: String, label: String, value: String)] = [
                ("projectId", "project id", project.id),
                ("apiKey", "API key", project.record.apiKeys.first ?? "(none)"),
                ("baseURL", "base URL", base),
                ("consoleURL", "console", base + "/console"),
                ("jwksURL", "JWKS", base + "/.well-known/jwks.json"),
                ("store", "store", StoreFactory.redacted(location)),
                ("mode", "mode", emulator ? "emulator" : "production"),
            ]
            if let field {
                guard let value = fields.first(where: { $0.key == field })?.value else {
                    throw ValidationError("unknown field \(field): use one of \(fields.map(\.key).joined(separator: ", "))")
                }
                print(value)
            } else if json {
                let object = Dictionary(uniqueKeysWithValues: fields.map { ($0.key, $0.value) })
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
                print(String(decoding: data, as: UTF8.self))
            } else {
                let width = fields.map(\.label.count).max() ?? 0
                for field in fields {
                    print(field.label + ":" + String(repeating: " ", count: width - field.label.count + 2) + field.value)
                }
            }
        }
    }
}
