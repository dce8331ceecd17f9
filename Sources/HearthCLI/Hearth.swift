import ArgumentParser

/// `hearth`: the server and its tools.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted identity server that speaks Firebase Authentication's protocol.",
        version: HearthVersion.current,
        subcommands: [Serve.self, Speed.self, Users.self, Keys.self, Backup.self, StoreCommands.self, ConsoleAdmins.self, AuthImport.self, AuthExport.self,
                      ServiceAccounts.self,
                      AdminToken.self])
}

/// The release this binary was built as (`hearth --version`).
enum HearthVersion {
    static let current = "0.9.0"
}
