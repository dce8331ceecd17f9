import Foundation
import HearthCore

/// A project on disk, in the layout Firebase's emulator exports and imports (`firebase emulators:export DIR`,
/// `firebase emulators:start --import DIR`):
///
///     DIR/firebase-export-metadata.json     {"version": …, "auth": {"version": …, "path": "auth_export"}}
///     DIR/auth_export/config.json           the project's `Config`, as Google's Admin REST API gives it
///     DIR/auth_export/accounts.json         the project's users, as `accounts:batchGet` gives them
///     DIR/auth_export/accounts-TENANT.json  a tenant's users
///
/// Hearth adds two kinds of file the emulator leaves alone (it imports only files named `accounts…` and
/// `config.json`), each holding Google's list responses: `tenants.json` (`{"tenants": […]}`) and
/// `idp-configs.json` / `idp-configs-TENANT.json` (`{"oauthIdpConfigs": […], "inboundSamlConfigs": […], …}`).
/// A folder the emulator wrote has neither: its tenants are then named by its account files.
struct EmulatorExportFolder: ProjectSource {
    /// The folder holding `config.json` and the account files.
    let auth: URL

    var summary: String { auth.path }

    /// The export at `path`: its top folder (with `firebase-export-metadata.json`) or its `auth_export` folder.
    init(reading path: String) throws {
        let top = URL(fileURLWithPath: path)
        let manager = FileManager.default
        if let data = manager.contents(atPath: top.appendingPathComponent(Self.metadataFile).path) {
            let metadata = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            guard let authPath = (metadata?["auth"] as? [String: Any])?["path"] as? String else {
                throw CommandFailure("\(path) holds an emulator export without Authentication data "
                                     + "(its \(Self.metadataFile) has no \"auth\")")
            }
            auth = top.appendingPathComponent(authPath)
        } else if manager.fileExists(atPath: top.appendingPathComponent("auth_export").path) {
            auth = top.appendingPathComponent("auth_export")
        } else if manager.fileExists(atPath: top.appendingPathComponent("config.json").path)
                    || manager.fileExists(atPath: top.appendingPathComponent("accounts.json").path) {
            auth = top
        } else {
            throw CommandFailure("\(path) is not a Firebase emulator export: it has no \(Self.metadataFile), auth_export/ "
                                 + "or accounts.json (write one with `firebase emulators:export DIR`)")
        }
    }

    static let metadataFile = "firebase-export-metadata.json"
    static let pageSize = 500

    // MARK: Reading

    func config() async throws -> [String: Any] { try object("config.json") ?? [:] }

    func tenants() async throws -> [[String: Any]] {
        if let listed = try object("tenants.json") { return listed["tenants"] as? [[String: Any]] ?? [] }
        // The emulator's own export: a tenant is known by its account file only. It gets what the emulator gives a
        // tenant its import makes (every sign-in method on, SMS second factors allowed), so its users sign in here
        // as they did there.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: auth.path)) ?? []
        return names.filter { $0.hasPrefix("accounts-") && $0.hasSuffix(".json") }.sorted().map {
            let id = String($0.dropFirst("accounts-".count).dropLast(".json".count))
            return ["tenantId": id, "displayName": Self.displayName(forTenant: id), "allowPasswordSignup": true,
                    "enableEmailLinkSignin": true, "enableAnonymousUser": true, "disableAuth": false,
                    "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]]
        }
    }

    /// A tenant's display name made from its id, as Firebase allows one (a letter, then 4-20 letters, digits or
    /// hyphens): the id itself when it is one, else `tenant-` and the id's first 13 letters and digits (the
    /// emulator's ids are 28 characters). The same id always gives the same name, so a second move finds the tenant.
    static func displayName(forTenant id: String) -> String {
        if TenantRecord.isValidDisplayName(id) { return id }
        return "tenant-" + String(id.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(13))
    }

    func providers(_ collection: String, tenant: String?) async throws -> ProviderList {
        .listed(try object(Self.name("idp-configs", tenant))?[collection] as? [[String: Any]] ?? [])
    }

    func users(tenant: String?, after token: String?) async throws -> (users: [[String: Any]], next: String?) {
        let all = try object(Self.name("accounts", tenant))?["users"] as? [[String: Any]] ?? []
        let start = min(token.flatMap(Int.init) ?? 0, all.count)
        let end = min(start + Self.pageSize, all.count)
        return (Array(all[start..<end]), end < all.count ? String(end) : nil)
    }

    static func name(_ kind: String, _ tenant: String?) -> String { kind + (tenant.map { "-\($0)" } ?? "") + ".json" }

    private func object(_ name: String) throws -> [String: Any]? {
        let file = auth.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CommandFailure("\(file.path) is not a JSON object")
        }
        return object
    }

    // MARK: Writing

    /// What ``write(from:to:version:)`` wrote.
    struct Written {
        var tenants = 0
        var providers = 0
        var users = 0
        /// Users with a password whose hash the source did not give (hashed under other parameters, or imported
        /// with another algorithm and not signed in since).
        var withoutHash = 0

        var lines: [String] {
            ["settings: written (config.json)", "identity providers: \(providers) written", "tenants: \(tenants) written",
             "users: \(users) written" + (withoutHash == 0 ? ", with their password hashes"
                : "; \(withoutHash) of them have a password but no exportable hash (they sign in with a reset link)")]
        }
    }

    /// Writes everything `source` holds into `path` (created if missing; an existing export's other emulators'
    /// data is kept). `firebase emulators:start --import PATH` then serves it, and `hearth auth:migrate --from PATH`
    /// moves it into a Hearth project.
    static func write(from source: some ProjectSource, to path: String, version: String,
                      log: (String) -> Void) async throws -> Written {
        let top = URL(fileURLWithPath: path)
        let auth = top.appendingPathComponent("auth_export")
        // Password hashes and provider secrets: readable by their owner only, as `auth:export` writes its file.
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: auth.path)
        // An earlier export's files of a tenant gone since would be imported with the rest.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: auth.path)) ?? []
        where name.hasSuffix(".json") && (name.hasPrefix("accounts") || name.hasPrefix("idp-configs")) {
            try FileManager.default.removeItem(at: auth.appendingPathComponent(name))
        }
        var written = Written()
        func save(_ object: [String: Any], _ name: String) throws {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            let file = auth.appendingPathComponent(name)
            guard FileManager.default.createFile(atPath: file.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure("cannot write \(file.path)")
            }
        }
        try save(try await source.config(), "config.json")
        let tenants = try await source.tenants()
        try save(["tenants": tenants], "tenants.json")
        written.tenants = tenants.count
        let ids = tenants.compactMap { $0["tenantId"] as? String ?? ($0["name"] as? String)?.split(separator: "/").last.map(String.init) }
        for tenant in [nil] + ids.map(Optional.some) {
            var providers: [String: Any] = [:]
            for (collection, _) in ProjectMove.idpCollections {
                if case .listed(let configs) = try await source.providers(collection, tenant: tenant), !configs.isEmpty {
                    providers[collection] = configs
                    written.providers += configs.count
                }
            }
            try save(providers, name("idp-configs", tenant))
            var users: [[String: Any]] = []
            var token: String?
            var progress = Progress()
            repeat {
                let page = try await source.users(tenant: tenant, after: token)
                users += page.users
                token = page.next
                progress.show(users.count, "users read (\(tenant.map { "tenant \($0)" } ?? "project"))")
            } while token != nil
            progress.show(users.count, "users read (\(tenant.map { "tenant \($0)" } ?? "project"))", final: true)
            try save(["kind": "identitytoolkit#DownloadAccountResponse", "users": users], name("accounts", tenant))
            written.users += users.count
            written.withoutHash += users.filter { user in
                user["passwordHash"] == nil
                    && (user["providerUserInfo"] as? [[String: Any]] ?? []).contains { $0["providerId"] as? String == "password" }
            }.count
        }
        // The metadata last: a folder with it is a whole export. Other emulators' entries stay.
        let metadataURL = top.appendingPathComponent(metadataFile)
        var metadata = FileManager.default.contents(atPath: metadataURL.path)
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? ["version": version]
        metadata["auth"] = ["version": version, "path": "auth_export"]
        try JSONSerialization.data(withJSONObject: metadata, options: [.sortedKeys, .withoutEscapingSlashes])
            .write(to: metadataURL, options: .atomic)
        log("wrote \(auth.path)")
        return written
    }
}
