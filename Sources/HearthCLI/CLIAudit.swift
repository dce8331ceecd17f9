import ArgumentParser
import Foundation
import HearthCore

/// A command that changes the store. Once it succeeds, `hearth` writes an `admin-call` row to the project's audit
/// log with a `cli:USER` actor (the operating-system account, or the one behind sudo), as the admin API records
/// its callers: the console's audit table shows who changed what from either side.
protocol AuditedCommand: ParsableCommand {
    var data: DataOptions { get }
    /// What it acted on (a uid or email, a key id, an account's name); nil when the command names nothing.
    var subject: String? { get }
    /// False for a run that only checks (`auth:import --dry-run`).
    var changesStore: Bool { get }
}

extension AuditedCommand {
    var changesStore: Bool { true }
}

enum CLIAudit {
    static var actor: String {
        let environment = ProcessInfo.processInfo.environment
        return "cli:" + (environment["SUDO_USER"] ?? environment["USER"] ?? NSUserName())
    }

    /// Records `command` (its words, `users delete`), never its options: a password given as a flag stays out.
    static func record(_ command: any AuditedCommand, words: [String]) async {
        do {
            let file = try await command.data.configFile()
            let (store, _) = try await StoreFactory.open(command.data.storeLocation(file))
            var details = ["actor": actor, "command": (["hearth"] + words).joined(separator: " ")]
            if let subject = command.subject { details["subject"] = subject }
            if let tenant = command.data.tenant { details["tenant"] = tenant }
            let event = AuditEvent(projectID: command.data.projectID(file), at: Date(), kind: "admin-call", localID: nil,
                                   outcome: .success, clientAddress: nil, details: details)
            do { try await store.insertAuditEvent(event) } catch { try? await store.close(); throw error }
            try await store.close()
        } catch {
            FileHandle.standardError.write(Data("warning: the change was made but not written to the audit log: \(error)\n".utf8))
        }
    }

    /// The subcommand words of an invocation: `hearth users delete ada` → `users delete`.
    static func words(of arguments: [String]) -> [String] {
        var level = Hearth.Level(Hearth.self)
        var words: [String] = []
        for argument in arguments {
            guard let next = level.children.first(where: { $0.names.contains(argument) }) else { break }
            words.append(argument)
            level = next
        }
        return words
    }
}
