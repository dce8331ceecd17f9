import ArgumentParser
import Configuration
import Foundation
import HearthCore
import HearthServer

/// Where Hearth finds its data, shared by `serve` and the other commands: each setting from its flag, else its
/// `HEARTH_*` variable, else the config file, else the default.
struct StoreOptions: ParsableArguments {
    @Option(help: "sqlite:PATH | postgres://URL | memory: (default: HEARTH_STORE, the config file's store, or \(StoreFactory.defaultLocation); memory: in emulator mode).")
    var store: String?

    @Option(name: .customLong("project-id"), help: "The project served (default: HEARTH_PROJECT_ID, the config file's, or hearth-local).")
    var projectID: String?

    @Option(help: "A JSON configuration file (see docs/configuration.md; default: HEARTH_CONFIG).")
    var config: String?

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Every setting, from this command's flags, `HEARTH_*` variables, secret files and the config file (``Settings``).
    func settings(flags extra: [AbsoluteConfigKey: ConfigValue] = [:]) async throws -> Settings {
        var flags = extra
        if let store { flags["store"] = ConfigValue(.string(store), isSecret: true) }
        if let projectID { flags["projectId"] = ConfigValue(.string(projectID), isSecret: false) }
        return try await Settings.resolve(flags: flags, configPath: config ?? environment["HEARTH_CONFIG"],
                                          environment: environment)
    }

    func configFile() async throws -> ConfigFile { try await settings().file }

    /// Emulator mode keeps its data in memory unless a store is named, as Firebase's emulator starts empty.
    func storeLocation(_ file: ConfigFile, emulator: Bool = false) -> String {
        file.store ?? (emulator ? "memory:" : StoreFactory.defaultLocation)
    }

    func projectID(_ file: ConfigFile) -> String { file.projectId ?? "hearth-local" }
}

/// What the commands that act on users and the project take beyond ``StoreOptions``: a tenant, and leave to create
/// the store and project (`serve` creates them anyway and names no tenant, so it takes ``StoreOptions`` alone).
struct DataOptions: ParsableArguments {
    @OptionGroup var location: StoreOptions

    @Option(help: "Act on this tenant's users instead of the project's own (Identity Platform tenants).")
    var tenant: String?

    @Flag(name: .customLong("create-project"),
          help: "Create the store and the project if they do not exist yet (otherwise only `hearth serve` creates them).")
    var createProject = false

    func configFile() async throws -> ConfigFile { try await location.configFile() }
    func storeLocation(_ file: ConfigFile, emulator: Bool = false) -> String { location.storeLocation(file, emulator: emulator) }
    func projectID(_ file: ConfigFile) -> String { location.projectID(file) }

    /// Opens the store (migrated) and the project, and says which on standard error. A store or project that does
    /// not exist is an error naming where it was looked for (a command run from another folder must not quietly
    /// start a new store with new keys) unless `--create-project` asks for it, as a first `hearth serve` would.
    func open() async throws -> (store: any IdentityStore, project: ProjectContext, accounts: AccountContext) {
        let file = try await configFile()
        let id = projectID(file)
        guard ProjectID.isValid(id) else { throw ValidationError("project id '\(id)' is not valid") }
        let location = storeLocation(file)
        if !createProject, let path = StoreFactory.sqlitePath(location), !FileManager.default.fileExists(atPath: path) {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            throw CommandFailure("no Hearth store at \(absolute) (from \(location)). Run this where `hearth serve` keeps "
                + "its data, name the store with --store or HEARTH_STORE, or add --create-project to start a new one.")
        }
        let (store, description) = try await StoreFactory.open(location)
        var project: ProjectContext
        do {
            project = try await openProject(id, in: store, description: description)
            if let tenant {
                guard let record = try await store.tenant(projectID: id, id: tenant) else {
                    throw CommandFailure("project \(id) has no tenant \(tenant) (\(description)). Create it with the admin "
                        + "API (v2/projects/\(id)/tenants) or name another with --tenant.")
                }
                project = project.scoped(to: record)
            }
        } catch {
            try? await store.close()  // a store must be closed, also when what it holds cannot be read
            if let sealing = error as? SealingError { throw CommandFailure(sealing.description) }
            throw error
        }
        FileHandle.standardError.write(Data("store: \(description); project: \(id)\(tenant.map { "; tenant: \($0)" } ?? "")\n".utf8))
        return (store, project, AccountContext(store: store, clock: SystemClock(), hashing: InlineWorkRunner()))
    }

    private func openProject(_ id: String, in store: any IdentityStore, description: String) async throws -> ProjectContext {
        try await store.migrate()
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) })
        if let existing = try await directory.context(for: id) {
            return existing
        } else if createProject {
            return try await directory.contextCreatingIfNeeded(for: id)
        } else {
            throw CommandFailure("project \(id) is not in the store (\(description)). Name the project with "
                + "--project-id or HEARTH_PROJECT_ID, or add --create-project to create it.")
        }
    }
}

/// Progress on standard error: rewritten in place on a terminal, a line per step otherwise.
struct Progress {
    let started = ContinuousClock.now
    let isTerminal = isatty(STDERR_FILENO) != 0
    var lastShown = ContinuousClock.now
    var lastCount = -1

    mutating func show(_ done: Int, _ noun: String, final: Bool = false) {
        let now = ContinuousClock.now
        guard final || now - lastShown > .milliseconds(isTerminal ? 200 : 5000), done != lastCount else { return }
        lastShown = now
        lastCount = done
        let seconds = max((now - started) / .seconds(1), 0.001)
        let line = "\(done) \(noun) (\(Int(Double(done) / seconds))/s)"
        FileHandle.standardError.write(Data(((isTerminal ? "\r" : "") + line + (isTerminal && !final ? "" : "\n")).utf8))
    }
}

/// `hearth auth:import FILE`: the Firebase CLI's `auth:import`, with the same file formats and flags.
struct AuthImport: AsyncParsableCommand, AuditedCommand {
    var subject: String? { file }
    var changesStore: Bool { !dryRun }
    static let configuration = CommandConfiguration(
        commandName: "auth:import",
        abstract: "Import users from a Firebase CLI JSON or CSV file (passwords keep working).",
        discussion: """
            Example, for a file exported from a Firebase project (its hash parameters are in the Firebase console, \
            Authentication → Users → ⋮ → Password hash parameters):
              hearth auth:import users.json --hash-algo=scrypt --hash-key=<base64 signer key> \\
                --salt-separator=Bw== --rounds=8 --mem-cost=14
            Users are read and imported 1000 at a time; rejected users are listed at the end with their position. \
            Run it again after an interruption: users already imported with the same data are counted and skipped. \
            --dry-run checks the whole file against the store and writes nothing. Exit status: 0 when every user is \
            imported or already there, 1 when some were refused (or would be).
            """)

    @Argument(help: "users.json or users.csv, as `firebase auth:export` writes them.")
    var file: String

    @Option(help: "json or csv (default: from the file name).")
    var format: FirebaseUserFile.Format?

    @Option(name: .customLong("hash-algo"), help: "SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF_SHA1, PBKDF2_SHA256, HMAC_SHA512/256/1/MD5, SHA512/256/1, MD5.")
    var hashAlgorithm: String?
    @Option(name: .customLong("hash-key"), help: "The signer key (base64), for SCRYPT and HMAC_*.")
    var hashKey: String?
    @Option(name: .customLong("salt-separator"), help: "SCRYPT's salt separator (base64).")
    var saltSeparator: String?
    @Option(help: "Rounds (SCRYPT, SHA*, MD5, PBKDF*).")
    var rounds: Int?
    @Option(name: .customLong("mem-cost"), help: "SCRYPT's memory cost (log2 N), or STANDARD_SCRYPT's N.")
    var memoryCost: Int?
    @Option(help: "STANDARD_SCRYPT's p.")
    var parallelization: Int?
    @Option(name: .customLong("block-size"), help: "STANDARD_SCRYPT's r.")
    var blockSize: Int?
    @Option(name: .customLong("dk-len"), help: "STANDARD_SCRYPT's key length (taken from each hash's length).")
    var dkLen: Int?
    @Option(name: .customLong("hash-input-order"), help: "SALT_FIRST or PASSWORD_FIRST.")
    var hashInputOrder: String?

    @Flag(name: .customLong("dry-run"), help: "Check every user against the store and write nothing.")
    var dryRun = false

    @OptionGroup var data: DataOptions

    func run() async throws {
        let hashing = try hashAlgorithm.map { name in
            let upper = name.uppercased()
            return try ImportHashing(
                algorithm: upper, signerKey: try hashKey.map { try Self.base64($0, "--hash-key") },
                saltSeparator: try saltSeparator.map { try Self.base64($0, "--salt-separator") }, rounds: rounds,
                memoryCost: upper == "STANDARD_SCRYPT" ? nil : memoryCost,
                cpuMemCost: upper == "STANDARD_SCRYPT" ? memoryCost : nil,
                parallelization: parallelization, blockSize: blockSize, order: hashInputOrder)
        }
        if case .none = hashing {
            FileHandle.standardError.write(Data("warning: no --hash-algo: users with a password hash cannot be imported\n".utf8))
        }
        let (store, project, accounts) = try await data.open()
        do {
            try await importFile(accounts: accounts, project: project, hashing: hashing)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    private func importFile(accounts: AccountContext, project: ProjectContext, hashing: ImportHashing?) async throws {
        let reader = try FirebaseUserFile.Reader(path: file, format: format)
        var progress = Progress()
        var imported = 0
        var unchanged = 0
        var rejected: [(position: Int, message: String)] = []
        let verb = dryRun ? "users checked" : "users imported"
        // Reading the next batch overlaps storing this one: parsing and the database each get a core.
        var before = reader.position
        var batch = try reader.next(Importer.importBatchLimit)
        while !batch.isEmpty {
            let upcoming = Task.detached { () throws -> (Int, [ImportUser]) in
                (reader.position, try reader.next(Importer.importBatchLimit))
            }
            let report = try await accounts.importer.importBatch(in: project, batch, hashing: hashing, skipUnchanged: true,
                                                        dryRun: dryRun)
            // Positions for the summary: the n-th user of this batch is user `before + n + 1` of the file (JSON)
            // or a line near it (CSV, where blank lines are skipped).
            rejected += report.rejections.map { (before + $0.index + 1, $0.message) }
            unchanged += report.unchanged.count
            imported += batch.count - report.rejections.count - report.unchanged.count
            progress.show(imported + unchanged, verb)
            (before, batch) = try await upcoming.value
        }
        progress.show(imported + unchanged, verb, final: true)
        let summary = dryRun
            ? "dry run, nothing written: \(imported) users would be imported, \(unchanged) are already there with the same data, \(rejected.count) would be refused"
            : "\(imported) users imported, \(unchanged) already there with the same data (skipped), \(rejected.count) refused"
        print(summary)
        if !rejected.isEmpty {
            FileHandle.standardError.write(Data("\(rejected.count) users \(dryRun ? "would not be" : "were not") imported:\n".utf8))
            for (position, message) in rejected.prefix(100) {
                FileHandle.standardError.write(Data("  user \(position): \(message)\n".utf8))
            }
            if rejected.count > 100 { FileHandle.standardError.write(Data("  … and \(rejected.count - 100) more\n".utf8)) }
            throw ExitCode(1)
        }
    }

    static func base64(_ text: String, _ flag: String) throws -> Data {
        guard let data = FirebaseUserFile.base64(text) else { throw ValidationError("\(flag) is not base64") }
        return data
    }
}

/// `hearth auth:export FILE`: every user in the Firebase CLI's JSON or CSV format, with Firebase-scrypt hashes and
/// the project's parameters printed, so the file imports into Firebase (or another Hearth) as is.
struct AuthExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:export",
        abstract: "Export users to a Firebase CLI JSON or CSV file, password hashes included.")

    @Argument(help: "users.json or users.csv.")
    var file: String

    @Option(help: "json or csv (default: from the file name).")
    var format: FirebaseUserFile.Format?

    @OptionGroup var data: DataOptions

    func run() async throws {
        let format = format ?? FirebaseUserFile.Format(path: file)
        let (store, project, _) = try await data.open()
        // Password hashes and salts: the file is its owner's only.
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]),
              let output = FileHandle(forWritingAtPath: file) else {
            throw ValidationError("cannot write \(file)")
        }
        defer { try? output.close() }
        let parameters = project.record.hashConfig
        var progress = Progress()
        var count = 0
        var withoutHash = 0
        var after: String?
        if format == .json { output.write(Data("{\"users\": [\n".utf8)) }
        while true {
            let page = try await store.users(projectID: project.id, tenantID: project.tenantID, after: after, limit: 1000)
            guard let last = page.last else { break }
            var chunk = ""
            for user in page {
                if user.passwordHash != nil, FirebaseUserFile.exportFields(user, parameters: parameters).hash == nil {
                    withoutHash += 1
                }
                switch format {
                case .json: chunk += (count == 0 ? "" : ",\n") + FirebaseUserFile.jsonLine(user, parameters: parameters)
                case .csv: chunk += FirebaseUserFile.csvLine(user, parameters: parameters) + "\n"
                }
                count += 1
            }
            output.write(Data(chunk.utf8))
            after = last.localID
            progress.show(count, "users exported")
        }
        if format == .json { output.write(Data("\n]}\n".utf8)) }
        progress.show(count, "users exported", final: true)
        try await store.close()
        if withoutHash > 0 {
            FileHandle.standardError.write(Data("""
                warning: \(withoutHash) users have a password hash Hearth has not yet re-hashed with this project's \
                parameters (imported, and not signed in since); their hashes are left out, as Firebase's export does.

                """.utf8))
        }
        let p = parameters
        FileHandle.standardError.write(Data("""
            Password hashes are Firebase SCRYPT. To import this file into Firebase or another Hearth:
              --hash-algo=SCRYPT --hash-key=\(p.signerKey.base64EncodedString()) --salt-separator=\(p.saltSeparator.base64EncodedString()) --rounds=\(p.rounds) --mem-cost=\(p.memoryCost)
            Keep the hash key secret: with it and this file, passwords can be attacked offline.

            """.utf8))
    }
}

extension FirebaseUserFile.Format: ExpressibleByArgument {}
