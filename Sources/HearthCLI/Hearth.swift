import ArgumentParser

/// `hearth`: the server and its tools.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted identity server that speaks Firebase Authentication's protocol.",
        subcommands: [Serve.self, Speed.self, AuthImport.self, AuthExport.self, ServiceAccounts.self])
}
