import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthWire

/// `hearth users …`: user management from the command line, as the Admin SDKs' user calls, on the store directly.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List, inspect, create, change and delete users.",
        discussion: """
            Examples:
              hearth users list --limit 20
              hearth users create --email ada@example.com --password 'secret123' --display-name Ada
              hearth users get ada@example.com --json
              hearth users set-claims UID '{"role":"admin"}'
              hearth users revoke UID            # ends every session of the user
              hearth users reset-link ada@example.com
            """,
        subcommands: [List.self, Get.self, Create.self, Update.self, Disable.self, Enable.self, Delete.self,
                      SetClaims.self, Revoke.self, ResetLink.self])

    /// Opens the store and project, runs `body`, closes the store (also when `body` throws).
    static func with<T>(_ data: DataOptions,
                        _ body: (any IdentityStore, ProjectContext, AccountContext) async throws -> T) async throws -> T {
        let (store, project, accounts) = try await data.open()
        do {
            let result = try await body(store, project, accounts)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// A user by uid, or by email when the argument has an `@`.
    static func find(_ key: String, in project: ProjectContext, store: any IdentityStore) async throws -> UserRecord {
        let found = key.contains("@")
            ? try await store.user(projectID: project.id, tenantID: project.tenantID, email: key)
            : try await store.user(projectID: project.id, tenantID: project.tenantID, localID: key)
        guard let found else { throw CommandFailure("no user \(key) in project \(project.id)") }
        return found
    }

    /// One line per user for people, or the Admin API's JSON (`UserInfo`) for scripts.
    static func show(_ users: [UserRecord], json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            let wire = users.map { UserInfo($0) }
            let data = try users.count == 1 ? encoder.encode(wire[0]) : encoder.encode(wire)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        var table = Table(columns: [("uid", "UID"), ("identifier", "EMAIL OR PHONE"), ("name", "NAME"),
                                    ("providers", "PROVIDERS"), ("flags", "FLAGS")])
        for user in users {
            let name = user.email ?? user.phoneNumber ?? (user.isAnonymous ? "(anonymous)" : "-")
            let flags = [user.disabled ? "disabled" : nil, user.emailVerified ? "verified" : nil,
                         user.customAttributes.map { "claims \($0)" }].compactMap { $0 }
            let providers = (user.passwordHash == nil ? [] : ["password"]) + user.providers.map(\.providerID)
                + (user.customAuth == true ? ["custom"] : []) + ((user.passkeys ?? []).isEmpty ? [] : ["passkey"])
            table.append([user.localID, name, user.displayName ?? "", providers.joined(separator: ","), flags.joined(separator: " ")])
        }
        table.print(json: false, whenEmpty: "no users; create one with `hearth users create --email EMAIL --password PASSWORD`")
    }

    /// Says what a failed admin change was, in Firebase's words (`EMAIL_EXISTS`, `WEAK_PASSWORD`, …).
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let failure as AuthFailure { throw CommandFailure("refused: \(failure.firebaseMessage)") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users in uid order.")
        @Option(help: "At most this many (default 100).") var limit = 100
        @Option(help: "Start after this uid (the last one of the previous page).") var after: String?
        @Flag(help: "The Admin API's JSON.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await Users.with(data) { store, project, _ in
                try Users.show(try await store.users(projectID: project.id, tenantID: project.tenantID, after: after,
                                                     limit: max(1, limit)), json: json)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user, by uid or email.")
        @Argument(help: "uid or email") var user: String
        @Flag(help: "The Admin API's JSON.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await Users.with(data) { store, project, _ in
                try Users.show([try await Users.find(user, in: project, store: store)], json: json)
            }
        }
    }

    struct Create: AsyncParsableCommand, AuditedCommand {
        var subject: String? { uid ?? email }
        static let configuration = CommandConfiguration(abstract: "Create a user, as the Admin SDKs' createUser.")
        @Option var uid: String?
        @Option var email: String?
        @Option(help: "At least 6 characters. Prefer HEARTH_USER_PASSWORD: flags show in process lists.") var password: String?
        @Option(name: .customLong("display-name")) var displayName: String?
        @Option var phone: String?
        @Flag(name: .customLong("email-verified")) var emailVerified = false
        @Flag(help: "The Admin API's JSON.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await Users.with(data) { _, project, accounts in
                var new = AdminNewUser(localID: uid, email: email,
                                       password: password ?? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"])
                new.displayName = displayName
                new.phoneNumber = phone
                new.emailVerified = emailVerified
                let user = try await Users.run { try await accounts.administration.adminCreate(in: project, new) }
                try Users.show([user], json: json)
            }
        }
    }

    struct Update: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(abstract: "Change a user's email, password, name or phone.")
        @Argument(help: "uid or email") var user: String
        @Option var email: String?
        @Option(help: "Prefer HEARTH_USER_PASSWORD: flags show in process lists.") var password: String?
        @Option(name: .customLong("display-name")) var displayName: String?
        @Option(help: "E.164, or empty to remove it.") var phone: String?
        @Option(name: .customLong("email-verified"), help: "true or false.") var emailVerified: Bool?
        @Flag(help: "The Admin API's JSON.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await Users.with(data) { store, project, accounts in
                let found = try await Users.find(user, in: project, store: store)
                var changes = AdminChanges()
                changes.profile = AccountChanges(
                    email: email, password: password ?? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"],
                    displayName: displayName)
                changes.phoneNumber = phone
                changes.emailVerified = emailVerified
                let updated = try await Users.run {
                    try await accounts.administration.adminUpdate(in: project, localID: found.localID, changes: changes)
                }
                try Users.show([updated], json: json)
            }
        }
    }

    /// A change of one admin field, for the commands that are only that.
    static func change(_ user: String, _ data: DataOptions, _ message: String, _ edit: (inout AdminChanges) -> Void) async throws {
        try await Users.with(data) { store, project, accounts in
            let found = try await Users.find(user, in: project, store: store)
            var changes = AdminChanges()
            edit(&changes)
            _ = try await Users.run { try await accounts.administration.adminUpdate(in: project, localID: found.localID, changes: changes) }
            print("\(found.localID): \(message)")
        }
    }

    struct Disable: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(abstract: "Disable a user: sign-ins and refreshes fail with USER_DISABLED.")
        @Argument(help: "uid or email") var user: String
        @OptionGroup var data: DataOptions
        func run() async throws { try await Users.change(user, data, "disabled") { $0.disabled = true } }
    }

    struct Enable: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user.")
        @Argument(help: "uid or email") var user: String
        @OptionGroup var data: DataOptions
        func run() async throws { try await Users.change(user, data, "enabled") { $0.disabled = false } }
    }

    struct SetClaims: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(
            commandName: "set-claims",
            abstract: "Set a user's custom claims (a JSON object of at most 1000 bytes; {} removes them).")
        @Argument(help: "uid or email") var user: String
        @Argument(help: #"For example '{"role":"admin"}'."#) var claims: String
        @OptionGroup var data: DataOptions
        func run() async throws {
            try await Users.change(user, data, "claims set; they appear in the next ID token") { $0.customAttributes = claims }
        }
    }

    struct Revoke: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(
            abstract: "End every session of a user: refresh tokens and older ID tokens stop working.")
        @Argument(help: "uid or email") var user: String
        @OptionGroup var data: DataOptions
        func run() async throws {
            let now = Date().epochSeconds
            try await Users.change(user, data, "sessions revoked") { $0.validSince = now }
        }
    }

    struct Delete: AsyncParsableCommand, AuditedCommand {
        var subject: String? { user }
        static let configuration = CommandConfiguration(abstract: "Delete a user and their sessions.")
        @Argument(help: "uid or email") var user: String
        @OptionGroup var data: DataOptions
        func run() async throws {
            try await Users.with(data) { store, project, _ in
                let found = try await Users.find(user, in: project, store: store)
                _ = try await store.deleteUser(projectID: project.id, tenantID: project.tenantID, localID: found.localID)
                print("\(found.localID): deleted")
            }
        }
    }

    struct ResetLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-link",
            abstract: "Print a password-reset link for a user (nothing is emailed), as generatePasswordResetLink.")
        @Argument(help: "The user's email.") var email: String
        @OptionGroup var data: DataOptions

        func run() async throws {
            var configuration = ServerConfiguration()
            try await data.configFile().apply(to: &configuration)
            try await Users.with(data) { _, project, accounts in
                var request = ActionCodeRequest(type: .passwordReset, email: email)
                request.byAdministrator = true
                request.returnLink = true
                let sent = try await Users.run {
                    try await accounts.actionCodes.sendActionCode(
                        in: project, request, links: ActionLinkBase(url: configuration.actionURL, apiKey: project.record.apiKeys.first ?? ""),
                        authorizedDomains: configuration.authorizedDomains(for: project.record))
                }
                guard let link = sent?.message.link else { throw CommandFailure("no user with email \(email)") }
                print(link)
            }
        }
    }
}
