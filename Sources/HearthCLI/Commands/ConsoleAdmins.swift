import ArgumentParser
import Foundation
import HearthCore

/// `hearth console-admins create|list|reset|delete`: the operators who sign in to `/console`.
struct ConsoleAdmins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-admins",
        abstract: "Create, list, reset and delete the operators of the admin console (/console).",
        subcommands: [Create.self, List.self, Reset.self, Delete.self])

    /// The password from HEARTH_CONSOLE_PASSWORD or standard input's first line, at least 12 characters.
    static func newPassword() throws -> String {
        let password = ProcessInfo.processInfo.environment["HEARTH_CONSOLE_PASSWORD"] ?? readLine(strippingNewline: true) ?? ""
        guard password.count >= 12 else {
            throw ValidationError("the password must have at least 12 characters (HEARTH_CONSOLE_PASSWORD or standard input)")
        }
        return password
    }

    static func printSecret(_ secret: String, email: String, project: String) {
        let label = "Hearth%20\(project):\(email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email)"
        let link = "otpauth://totp/\(label)?secret=\(secret)&issuer=Hearth"
        print("authenticator secret (shown once): \(secret)")
        print(link)
        if let code = TerminalQR(text: link) {
            print("scan it with the authenticator app:")
            print(code.rendered(colors: isatty(STDOUT_FILENO) == 1))
        }
    }

    struct Create: AsyncParsableCommand, AuditedCommand {
        var subject: String? { email }
        static let configuration = CommandConfiguration(
            abstract: "Create an operator with a password and an authenticator-app (TOTP) second factor.",
            discussion: """
                The password comes from HEARTH_CONSOLE_PASSWORD or, if unset, the first line of standard input \
                (at least 12 characters). The TOTP secret is printed once, with an otpauth:// link for the \
                authenticator app; Hearth keeps it sealed when HEARTH_ENCRYPTION_KEY is set. Example:

                  read -rs HEARTH_CONSOLE_PASSWORD && export HEARTH_CONSOLE_PASSWORD
                  hearth console-admins create ops@example.com
                """)

        @Argument(help: "The operator's email, their sign-in name.")
        var email: String

        @OptionGroup var data: DataOptions

        func run() async throws {
            guard EmailAddress.isValid(email) else { throw ValidationError("'\(email)' is not an email address") }
            let password = try ConsoleAdmins.newPassword()
            let secret = Base32.encode(TOTP.newSecret())
            var project = ""
            try await ServiceAccounts.changing(data) { record in
                guard !record.consoleAdmins.contains(where: { EmailAddress.normalized($0.email) == EmailAddress.normalized(email) }) else {
                    throw ValidationError("project \(record.id) already has a console operator \(email)")
                }
                let hash = try PasswordHash.firebaseScrypt(password: password, parameters: record.hashConfig)
                record.consoleAdmins.append(ConsoleAdminRecord(email: email, passwordHash: hash, totpSecret: secret, createdAt: Date()))
                project = record.id
            }
            print("created console operator \(email) for project \(project)")
            ConsoleAdmins.printSecret(secret, email: email, project: project)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the console's operators.")

        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
                let formatter = ISO8601DateFormatter()
                var table = Table(columns: [("email", "EMAIL"), ("secondFactor", "SECOND FACTOR"), ("created", "CREATED")])
                for admin in record.consoleAdmins {
                    table.append([admin.email, admin.totpSecret == nil ? "none" : "TOTP", formatter.string(from: admin.createdAt)])
                }
                table.print(json: json, whenEmpty: "no console operators; create one with `hearth console-admins create EMAIL`")
            }
        }
    }

    struct Reset: AsyncParsableCommand, AuditedCommand {
        var subject: String? { email }
        static let configuration = CommandConfiguration(
            abstract: "Give an operator a new password, a new authenticator, or both; their sessions end at once.",
            discussion: """
                For a lost authenticator or a forgotten password, and after a stolen session: every session the \
                operator had ends. The password comes as for `create`. Example:

                  hearth console-admins reset ops@example.com --authenticator
                """)

        @Argument var email: String
        @Flag(help: "Set a new password (HEARTH_CONSOLE_PASSWORD or standard input).") var password = false
        @Flag(help: "Make a new authenticator secret, printed once.") var authenticator = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            guard password || authenticator else { throw ValidationError("say what to reset: --password, --authenticator, or both") }
            let newPassword = password ? try ConsoleAdmins.newPassword() : nil
            let secret = authenticator ? Base32.encode(TOTP.newSecret()) : nil
            var project = ""
            try await ServiceAccounts.changing(data) { record in
                guard let index = record.consoleAdmins.firstIndex(where: { EmailAddress.normalized($0.email) == EmailAddress.normalized(email) })
                else { throw ValidationError("no console operator \(email); `hearth console-admins list` shows them") }
                if let newPassword {
                    record.consoleAdmins[index].passwordHash = try PasswordHash.firebaseScrypt(password: newPassword, parameters: record.hashConfig)
                }
                if let secret { record.consoleAdmins[index].totpSecret = secret }
                project = record.id
            }
            print("reset \([password ? "password" : nil, authenticator ? "authenticator" : nil].compactMap { $0 }.joined(separator: " and ")) of \(email); their console sessions have ended")
            if let secret { ConsoleAdmins.printSecret(secret, email: email, project: project) }
        }
    }

    struct Delete: AsyncParsableCommand, AuditedCommand {
        var subject: String? { email }
        static let configuration = CommandConfiguration(abstract: "Delete an operator; their console sessions end at once.")

        @Argument var email: String

        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
                let before = record.consoleAdmins.count
                record.consoleAdmins.removeAll { EmailAddress.normalized($0.email) == EmailAddress.normalized(email) }
                guard record.consoleAdmins.count < before else { throw ValidationError("no console operator \(email)") }
                print("deleted console operator \(email)")
            }
        }
    }
}
