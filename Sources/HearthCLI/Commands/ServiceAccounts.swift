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

    struct Create: AsyncParsableCommand, AuditedCommand {
        var subject: String? { name }
        static let configuration = CommandConfiguration(
            abstract: "Create a service account and write its JSON key file (shaped like Google's).",
            discussion: """
                The file holds the private key: Hearth keeps only the public half, so a lost file cannot be \
                recovered (create another and delete the old account). Example:

                  hearth service-accounts create backend-api          # → hearth-data/service-accounts/backend-api.json
                  hearth service-accounts create backend-api --out /etc/myapp/hearth-key.json
                """)

        @Argument(help: "6 to 30 lowercase letters, digits or hyphens, starting with a letter.")
        var name: String

        @Option(help: "Where to write the key file (default: service-accounts/NAME.json in the data folder; refuses to overwrite).")
        var out: String?

        @OptionGroup var data: DataOptions

        func run() async throws {
            guard ServiceAccountRecord.isValidName(name) else {
                throw ValidationError("'\(name)' is not a valid name: use 6 to 30 lowercase letters, digits or hyphens, starting with a letter")
            }
            let store = data.storeLocation(try await data.configFile())
            let path = out ?? KeyFiles.defaultPath(for: name, store: store)
            guard !FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("\(path) exists; choose another --out")
            }
            if let repository = KeyFiles.gitWorkTree(containing: path), !KeyFiles.isIgnored(path, in: repository) {
                FileHandle.standardError.write(Data("""
                    warning: \(path) is inside the git work tree \(repository) and git does not ignore it: add \
                    it (or service-accounts/) to .gitignore before you commit, or write the key elsewhere with --out.

                    """.utf8))
            }
            try await ServiceAccounts.changing(data) { record in
            guard !record.serviceAccounts.contains(where: { $0.name == name }) else {
                throw ValidationError("project \(record.id) already has a service account named \(name)")
            }
            let key = try ServiceAccountKey.generate(name: name, projectID: record.id, now: Date())
            // Owner-only from the first byte: the folder is 0700, the file is created with mode 0600, then filled.
            try KeyFiles.makeFolder(for: path)
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

        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
            let formatter = ISO8601DateFormatter()
            var table = Table(columns: [("clientEmail", "CLIENT EMAIL"), ("keyId", "KEY ID"), ("created", "CREATED")])
            for account in record.serviceAccounts {
                table.append([account.clientEmail, account.keyID, formatter.string(from: account.createdAt)])
            }
            table.print(json: json, whenEmpty: "no service accounts; create one with `hearth service-accounts create NAME`")
            }
        }
    }

    struct Delete: AsyncParsableCommand, AuditedCommand {
        var subject: String? { name }
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

/// Where service-account key files go: beside the data (the SQLite file's folder, else ./hearth-data), in a
/// `service-accounts` folder only the owner can read, so that a key never lands loose in the folder the command was
/// run from (often a checkout).
enum KeyFiles {
    static func defaultPath(for name: String, store location: String) -> String {
        (StoreFactory.dataFolder(location) as NSString).appendingPathComponent("service-accounts/\(name).json")
    }

    static func makeFolder(for path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// The root of the git work tree `path` would be in, if any (a `.git` folder or file in it or above it).
    static func gitWorkTree(containing path: String) -> String? {
        var folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder.path }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// Whether git would leave `path` out (`git check-ignore`); false when git is not there to ask.
    static func isIgnored(_ path: String, in repository: String) -> Bool {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", repository, "check-ignore", "-q", "--no-index", absolute]
        git.standardOutput = FileHandle.nullDevice
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return false }
        git.waitUntilExit()
        return git.terminationStatus == 0
    }
}
