import ArgumentParser
import Foundation

/// `hearth auth:migrate`: a Firebase project's Authentication moved into Hearth (or out of it) in one command,
/// through the Admin REST API both sides speak.
struct AuthMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:migrate",
        abstract: "Move a Firebase project's settings, providers, tenants and users (with password hashes) into Hearth.",
        discussion: """
            Reads the source through the Admin REST API firebase-admin uses, with a service-account key of the \
            source project (the Firebase Authentication Admin role), and writes into the running Hearth server \
            through the same API, with a Hearth service account's key:

              hearth auth:migrate --from-key-file firebase-sa.json --to-key-file service-accounts/mover.json

            Run it again at any time: nothing is duplicated (users already there are left as they are unless \
            --overwrite-users). --dry-run reads both sides and writes nothing. It ends with a report of what \
            moved and what was skipped and why (secrets Google never returns, TOTP second factors, settings the \
            target's config file fixes). For Firebase's emulator as the source, give --from http://127.0.0.1:9099 \
            --from-project ID and no key; the way back is the same command with --to pointing at Google or an \
            emulator.

            --from and --to also take a folder in the layout of Firebase's emulator exports: \
            `firebase emulators:export ./seed` then `hearth auth:migrate --from ./seed` moves an emulator's data in, \
            and `hearth auth:migrate --from http://127.0.0.1:9099 --from-project ID --to ./seed` writes one that \
            `firebase emulators:start --import ./seed` serves (config.json holds the project's Config as Google's \
            API gives it; tenants.json and idp-configs*.json hold the tenants and identity providers).
            """)

    @Option(help: "The source's base URL (default: Google's API; Firebase's emulator: http://127.0.0.1:9099), or an emulator export's folder.")
    var from = "https://identitytoolkit.googleapis.com"
    @Option(name: .customLong("from-project"), help: "The source project id (default: the key file's project_id).")
    var fromProject: String?
    @Option(name: .customLong("from-key-file"), help: "A Google service-account key of the source project (none: an emulator).")
    var fromKeyFile: String?

    @Option(help: "The target's base URL (default: the running Hearth server's address; https://identitytoolkit.googleapis.com with a Google key moves back to Firebase), or a folder to write an emulator export into.")
    var to: String?
    @Option(name: .customLong("to-key-file"), help: "A Hearth service account's key file (none: a server in emulator mode).")
    var toKeyFile: String?

    @Option(name: .customLong("hash-key"), help: "The source's scrypt signer key (base64), when its config does not give it (Firebase console: Users → ⋮ → Password hash parameters).")
    var hashKey: String?
    @Option(name: .customLong("salt-separator"), help: "The source's scrypt salt separator (base64).")
    var saltSeparator = "Bw=="
    @Option(help: "The source's scrypt rounds.")
    var rounds = 8
    @Option(name: .customLong("mem-cost"), help: "The source's scrypt memory cost.")
    var memoryCost = 14

    @Option(name: .customLong("lazy-until"), help: "Until this date (2027-03-01 or RFC 3339), users moved without a password hash are checked once against the source at their first sign-in (needs --source-api-key).")
    var lazyUntil: String?
    @Option(name: .customLong("source-api-key"), help: "The source project's web API key, for --lazy-until.")
    var sourceAPIKey: String?

    @Flag(name: .customLong("overwrite-users"), help: "Replace users the target already has with the source's.")
    var overwriteUsers = false
    @Flag(name: .customLong("dry-run"), help: "Read both sides and write nothing.")
    var dryRun = false

    @OptionGroup var location: StoreOptions

    func run() async throws {
        let source = try await sourceProject()
        if let to, !Self.isURL(to) {
            guard !dryRun, lazyUntil == nil else { throw ValidationError("--dry-run and --lazy-until need a server as the target") }
            FileHandle.standardError.write(Data("exporting \(source.summary) → \(to)\n".utf8))
            let written = try await EmulatorExportFolder.write(from: source, to: to, version: "hearth-\(HearthVersion.current)") {
                FileHandle.standardError.write(Data(($0 + "\n").utf8))
            }
            for line in written.lines { print(line) }
            print("serve it with: firebase emulators:start --only auth --import \(to)")
            return
        }
        let target = try await targetAPI()
        FileHandle.standardError.write(Data("moving \(source.summary) → \(target.summary)\(dryRun ? " (dry run)" : "")\n".utf8))
        var move = ProjectMove(source: source, target: target, dryRun: dryRun, overwriteUsers: overwriteUsers)
        move.givenHashing = hashKey.map { ["hashAlgorithm": "SCRYPT", "signerKey": $0, "saltSeparator": saltSeparator,
                                           "rounds": rounds, "memoryCost": memoryCost] }
        do {
            try await move.run()
        } catch let failure as AdminREST.Failure {
            throw CommandFailure("\(failure). Nothing after this step was moved; run the command again once it is fixed.")
        }
        for line in move.report.lines(dryRun: dryRun) { print(line) }
        if let lazyUntil {
            let date = try Self.date(lazyUntil)
            guard let sourceAPIKey else { throw ValidationError("--lazy-until needs --source-api-key") }
            guard let source = source as? AdminREST else { throw ValidationError("--lazy-until needs a live source, not a folder") }
            if dryRun {
                print("lazy migration: would be on until \(date.ISO8601Format())")
            } else {
                try await target.call(.PATCH, target.owner("v1") + "/lazyPasswordMigration", [
                    "sourceUrl": source.root, "apiKey": sourceAPIKey, "expireTime": date.ISO8601Format(),
                    "tenants": move.tenantSources])
                print("lazy migration: on until \(date.ISO8601Format()); users without a hash are checked once at \(source.root)")
            }
        }
    }

    static func isURL(_ text: String) -> Bool { text.hasPrefix("http://") || text.hasPrefix("https://") }

    private func sourceProject() async throws -> any ProjectSource {
        if !Self.isURL(from) { return try EmulatorExportFolder(reading: from) }
        guard let fromKeyFile else {
            guard let fromProject else { throw ValidationError("give --from-project (or --from-key-file, whose project_id is used)") }
            return AdminREST(root: AdminREST.root(for: from), project: fromProject, credential: .emulatorOwner)
        }
        let (credential, keyProject) = try await Self.credential(keyFile: fromKeyFile, for: from)
        guard let project = fromProject ?? keyProject else { throw ValidationError("give --from-project") }
        return AdminREST(root: AdminREST.root(for: from), project: project, credential: credential)
    }

    private func targetAPI() async throws -> AdminREST {
        let file = try await location.configFile()
        var url = to ?? ""
        if to == nil {
            let address = ServerRecord.address(store: location.storeLocation(file), publicURL: file.publicURL,
                                               host: file.host, port: file.port)
            if let note = address.note { FileHandle.standardError.write(Data((note + "\n").utf8)) }
            url = address.url
        }
        let project = location.projectID(file)
        guard let toKeyFile else { return AdminREST(root: AdminREST.root(for: url), project: project, credential: .emulatorOwner) }
        let (credential, keyProject) = try await Self.credential(keyFile: toKeyFile, for: url)
        // A Hearth key names the project the server serves by `--project-id`; a Google key its own (the way back).
        if case .accessToken = credential { return AdminREST(root: AdminREST.root(for: url), project: keyProject ?? project, credential: credential) }
        return AdminREST(root: AdminREST.root(for: url), project: project, credential: credential)
    }

    /// How calls to `url` are authorized with a key file, on either side: a Hearth service account's key (its
    /// account ends in `.iam.hearth`) signs a fresh assertion per call, which Hearth takes as the bearer; a Google
    /// key is exchanged for an access token at its `token_uri`, as Google's client libraries do. Also the key's
    /// project.
    static func credential(keyFile path: String, for url: String) async throws -> (AdminREST.Credential, project: String?) {
        guard let data = FileManager.default.contents(atPath: path),
              let key = try? JSONDecoder().decode(GoogleAccessToken.KeyFile.self, from: data) else {
            throw CommandFailure("\(path) is not a service-account key file (private_key_id, private_key, client_email): give "
                                 + "a Google key (Firebase console → Service accounts) or one `hearth service-accounts create` wrote")
        }
        if key.client_email.hasSuffix(".iam.hearth") { return (.hearthKey(data, audience: url), key.project_id) }
        return (.accessToken(try await GoogleAccessToken.fetch(key)), key.project_id)
    }

    /// `2027-03-01` (midnight UTC) or an RFC 3339 time.
    static func date(_ text: String) throws -> Date {
        if let full = try? Date(text, strategy: .iso8601) { return full }
        if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return day }
        throw ValidationError("--lazy-until must be a date like 2027-03-01 or 2027-03-01T00:00:00Z")
    }
}
