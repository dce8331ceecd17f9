import ArgumentParser

/// `hearth`: the server and its tools.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted identity server that speaks Firebase Authentication's protocol.",
        version: HearthVersion.description,
        subcommands: [Serve.self, ProjectCommand.self, Speed.self, Users.self, Keys.self, Backup.self, StoreCommands.self, ConsoleAdmins.self, AuthImport.self, AuthExport.self,
                      ServiceAccounts.self,
                      AdminToken.self])
}

/// The release this binary was built as, and from which commit when (`hearth --version`).
enum HearthVersion {
    static let current = "0.9.0"
    static let description = "\(current) (commit \(BuildInfo.commit), built \(BuildInfo.date))"
}
