import ArgumentParser
import Foundation
import HearthServer

/// `hearth`: the server and its tools.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted identity server that speaks Firebase Authentication's protocol.",
        version: HearthVersion.description,
        subcommands: [Serve.self, ProjectCommand.self, Speed.self, Users.self, Keys.self, Backup.self, StoreCommands.self, ConsoleAdmins.self, Events.self, Outbox.self, AuthImport.self, AuthExport.self, AuthMigrate.self,
                      ServiceAccounts.self,
                      AdminToken.self])

    /// ArgumentParser's entry point, after a look for a mistyped command: `hearth servr` says which one was meant
    /// rather than only that the argument was unexpected.
    static func main() async {
        if let message = unknownCommand(in: Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(64)  // EX_USAGE, as ArgumentParser's own usage errors
        }
        do {
            var command = try parseAsRoot()
            if var runnable = command as? any AsyncParsableCommand { try await runnable.run() } else { try command.run() }
            if let audited = command as? any AuditedCommand, audited.changesStore {
                await CLIAudit.record(audited, words: CLIAudit.words(of: Array(CommandLine.arguments.dropFirst())))
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The message for the first word that names no subcommand of the command before it, with the nearest name.
    static func unknownCommand(in arguments: [String]) -> String? {
        var level = Level(Hearth.self)
        var path = ["hearth"]
        for argument in arguments {
            guard !argument.hasPrefix("-"), argument != "help", !level.children.isEmpty, !level.hasDefault else { return nil }
            guard let next = level.children.first(where: { $0.names.contains(argument) }) else {
                let names = level.children.map { $0.names[0] }
                let hint = ConfigSchema.closest(to: argument, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                return "error: '\(argument)' is not a \(path.joined(separator: " ")) command\(hint). "
                    + "Commands: \(names.joined(separator: ", ")); see '\(path.joined(separator: " ")) --help'."
            }
            level = next
            path.append(argument)
        }
        return nil
    }

    /// A command's names and subcommands, read once from its configuration.
    struct Level {
        let names: [String]
        let hasDefault: Bool
        let type: any ParsableCommand.Type

        init(_ type: any ParsableCommand.Type) {
            self.type = type
            let configuration = type.configuration
            names = [type._commandName] + configuration.aliases
            hasDefault = configuration.defaultSubcommand != nil
        }

        var children: [Level] { type.configuration.subcommands.map(Level.init) }
    }
}

/// The release this binary was built as, and the commit it was built from, with that commit's date (`hearth --version`).
enum HearthVersion {
    static let current = "0.9.0"
    static let description = "\(current) (commit \(BuildInfo.commit) of \(BuildInfo.date))"
}
