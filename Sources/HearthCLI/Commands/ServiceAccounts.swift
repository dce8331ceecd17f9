import ArgumentParser
import Foundation
import HearthCore

/// `hearth service-accounts create|list|delete`: the keys that may call the admin API and sign custom tokens.
struct ServiceAccounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-accounts",
        abstract: "Create, list and delete the service accounts that call the admin API.",
        subcommands: [Create.self, List.self, Delete.self])

    /// Opens the project, lets `body` change its record, stores it if it changed, and closes the store.
    static func changing(_ data: DataOptions, _ body: (inout ProjectRecord) throws -> Void) async throws {
        let (store, project, _) = try await data.open()
        do {
            // Compare-and-set on the stored record: a running server's write in between is read again, not lost.
            try await store.modifyProject(project.id, body)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a service account and write its JSON key file (shaped like Google's).",
            discussion: """
                The file holds the private key: Hearth keeps only the public half, so a lost file cannot be
                recovered (create another and delete the old account). Example:

                  hearth service-accounts create backend-api --out backend-api.json
                """)

        @Argument(help: "6 to 30 lowercase letters, digits or hyphens, starting with a letter.")
        var name: String

        @Option(help: "Where to write the key file (default: NAME.json; refuses to overwrite).")
        var out: String?

        @OptionGroup var data: DataOptions

        func run() async throws {
            guard ServiceAccountRecord.isValidName(name) else {
                throw ValidationError("'\(name)' is not a valid name: use 6 to 30 lowercase letters, digits or hyphens, starting with a letter")
            }
            let path = out ?? "\(name).json"
            guard !FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("\(path) exists; choose another --out")
            }
            try await ServiceAccounts.changing(data) { record in
            guard !record.serviceAccounts.contains(where: { $0.name == name }) else {
                throw ValidationError("project \(record.id) already has a service account named \(name)")
            }
            let key = try ServiceAccountKey.generate(name: name, projectID: record.id, now: Date())
            // Owner-only from the first byte: the file is created with mode 0600, then filled.
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: path)
            else { throw ValidationError("cannot write \(path)") }
            try handle.write(contentsOf: key.keyFileJSON)
            try handle.close()
            record.serviceAccounts.append(key.record)
            print("created \(key.record.clientEmail) (key \(key.record.keyID)); key file: \(path)")
            print("keep it secret: whoever holds it administers project \(record.id)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project's service accounts.")

        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
            if record.serviceAccounts.isEmpty { print("no service accounts; create one with `hearth service-accounts create NAME`") }
            let formatter = ISO8601DateFormatter()
            for account in record.serviceAccounts {
                print("\(account.clientEmail)\tkey \(account.keyID)\tcreated \(formatter.string(from: account.createdAt))")
            }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a service account: its key stops working at once (within 5 s on other instances).")

        @Argument(help: "The name given at creation.")
        var name: String

        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
            guard record.serviceAccounts.contains(where: { $0.name == name }) else {
                throw ValidationError("project \(record.id) has no service account named \(name)")
            }
            record.serviceAccounts.removeAll { $0.name == name }
            print("deleted \(name)")
            }
        }
    }
}
