import ArgumentParser
import Foundation
import HearthCore

/// `hearth console-admins create|list|delete`: the operators who sign in to `/console`.
struct ConsoleAdmins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-admins",
        abstract: "Create, list and delete the operators of the admin console (/console).",
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an operator with a password and an authenticator-app (TOTP) second factor.",
            discussion: """
                The password comes from HEARTH_CONSOLE_PASSWORD or, if unset, the first line of standard input
                (at least 12 characters). The TOTP secret is printed once, with an otpauth:// link for the
                authenticator app; Hearth keeps it sealed when HEARTH_ENCRYPTION_KEY is set. Example:

                  read -rs HEARTH_CONSOLE_PASSWORD && export HEARTH_CONSOLE_PASSWORD
                  hearth console-admins create ops@example.com
                """)

        @Argument(help: "The operator's email, their sign-in name.")
        var email: String

        @OptionGroup var data: DataOptions

        func run() async throws {
            guard EmailAddress.isValid(email) else { throw ValidationError("'\(email)' is not an email address") }
            let password = ProcessInfo.processInfo.environment["HEARTH_CONSOLE_PASSWORD"] ?? readLine(strippingNewline: true) ?? ""
            guard password.count >= 12 else {
                throw ValidationError("the password must have at least 12 characters (HEARTH_CONSOLE_PASSWORD or standard input)")
            }
            let secret = Base32.encode(TOTP.newSecret())
            try await ServiceAccounts.changing(data) { record in
                guard !record.consoleAdmins.contains(where: { EmailAddress.normalized($0.email) == EmailAddress.normalized(email) }) else {
                    throw ValidationError("project \(record.id) already has a console operator \(email)")
                }
                let hash = try PasswordHash.firebaseScrypt(password: password, parameters: record.hashConfig)
                record.consoleAdmins.append(ConsoleAdminRecord(email: email, passwordHash: hash, totpSecret: secret, createdAt: Date()))
                let label = "Hearth%20\(record.id):\(email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email)"
                print("created console operator \(email) for project \(record.id)")
                print("authenticator secret (shown once): \(secret)")
                print("otpauth://totp/\(label)?secret=\(secret)&issuer=Hearth")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the console's operators.")

        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
                if record.consoleAdmins.isEmpty { print("no console operators; create one with `hearth console-admins create EMAIL`") }
                let formatter = ISO8601DateFormatter()
                for admin in record.consoleAdmins {
                    print("\(admin.email)\t\(admin.totpSecret == nil ? "no second factor" : "TOTP")\tcreated \(formatter.string(from: admin.createdAt))")
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
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
