import ArgumentParser
import Foundation
import HearthCore

/// `hearth outbox list`: the emails waiting to go out (or given up), for an operator and for development without SMTP.
struct Outbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the emails in the outbox: waiting, retrying, given up.",
        subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the outbox's emails, oldest first, with their delivery state.",
            discussion: """
                Each email's metadata: when it was queued, its type, its recipient, its state and last error. An \
                email leaves the outbox once an SMTP server takes it; without one (no HEARTH_SMTP_URL) it waits here. \
                Links and codes are shown only in emulator mode, as Firebase's emulator lists them: in production \
                they are credentials, and an operator has no use for them. To read emails in development, run a \
                local SMTP sink (docs/sign-in-methods.md#email-in-development).

                  hearth outbox list
                  hearth outbox list --json --limit 5
                """)

        @Option(help: "How many, oldest first (at most 500).") var limit = 50
        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            // Emulator mode by the settings, or by the server running on this data (`serve --emulator --store …`).
            let file = try await data.configFile()
            let emulator = file.emulator ?? ServerRecord.running(store: data.storeLocation(file))?.emulator ?? false
            let entries = try await Events.withStore(data) { store, project in
                try await store.outboxStatus(projectID: project.id, limit: max(1, min(limit, 500)))
            }
            var columns = [("queued", "QUEUED (UTC)"), ("type", "TYPE"), ("to", "TO"), ("state", "STATE"),
                           ("attempts", "ATTEMPTS"), ("lastError", "LAST ERROR")]
            if emulator { columns += [("code", "CODE"), ("link", "LINK")] }
            var table = Table(columns: columns)
            for entry in entries {
                let message = entry.message
                var row = [Self.format(message.createdAt), message.type.rawValue, message.recipient, Self.state(of: entry),
                           String(entry.attempts), entry.lastError ?? ""]
                if emulator { row += [message.code, message.link] }
                table.append(row)
            }
            table.print(json: json, whenEmpty: "the outbox is empty")
        }

        /// Waiting (never tried), retrying (tried, with the next attempt's time) or given up.
        static func state(of entry: OutboxStatus) -> String {
            guard let next = entry.nextAttemptAt else { return "given up" }
            return entry.attempts == 0 ? "waiting" : "retrying at \(format(next))"
        }

        static func format(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: date)
        }
    }
}
