import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Testing

/// `hearth auth:migrate` with a folder on either side (`EmulatorExportFolder`): the layout of Firebase's emulator
/// exports, written from a Hearth project and read back into another, and as the emulator itself writes it.
@Suite struct EmulatorExportFolderTests {
    /// `--to DIR` writes the project in the layout of Firebase's emulator exports (Google's shapes: `Config`, the
    /// tenant and identity-provider lists, `batchGet`'s users with their hashes), and `--from DIR` moves it into a
    /// production Hearth, where every user signs in with their password; a folder in the emulator's own layout (no
    /// tenants.json) names its tenants by their account files.
    @Test func aProjectGoesThroughAnEmulatorExportFolder() async throws {
        let sides = try await AuthMigrateTests.Sides.make()
        defer { try? FileManager.default.removeItem(at: sides.folder) }
        let (folder, sourceStore, targetStore, keyFile) = (sides.folder, sides.sourceStore, sides.targetStore, sides.keyFile)
        let (sourceConfig, targetConfig) = (sides.source, sides.target)
        let seed = folder.appendingPathComponent("seed")
        try await serving(sourceConfig, store: sourceStore) { source in
            try await AuthMigrateTests.populate(source)
            let written = try await CLIStoreTests.hearth(["auth:migrate", "--from", source, "--from-project", AuthMigrateTests.sourceProject,
                                                          "--to", seed.path], in: folder)
            #expect(written.status == 0 && written.output.contains("users: 48 written") && written.output.contains("tenants: 2 written")
                    && written.output.contains("identity providers: 4 written"), "\(written.output)")
        }
        func json(_ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: seed.appendingPathComponent(name))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
        }
        #expect((try json("firebase-export-metadata.json")["auth"] as? [String: Any])?["path"] as? String == "auth_export")
        #expect((try json("auth_export/config.json")["authorizedDomains"] as? [String]) == ["localhost", "app.example.com"])
        let tenants = try #require(try json("auth_export/tenants.json")["tenants"] as? [[String: Any]])
        #expect(Set(tenants.compactMap { $0["displayName"] as? String }) == ["Acme", "Globex"])
        let providers = try json("auth_export/idp-configs.json")
        #expect((providers["oauthIdpConfigs"] as? [[String: Any]])?.first?["clientSecret"] as? String == "acme-secret")
        let users = try #require(try json("auth_export/accounts.json")["users"] as? [[String: Any]])
        #expect(users.count == 43 && users.allSatisfy { $0["passwordHash"] != nil && $0["salt"] != nil }, "every hash is written")
        let permissions = try FileManager.default.attributesOfItem(atPath: seed.appendingPathComponent("auth_export/accounts.json").path)[.posixPermissions]
        #expect((permissions as? NSNumber)?.intValue == 0o600, "hashes and secrets are readable by their owner only")
        let acmeID = try #require(tenants.first { $0["displayName"] as? String == "Acme" }?["tenantId"] as? String)
        #expect((try json("auth_export/accounts-\(acmeID).json")["users"] as? [[String: Any]])?.count == 3)

        // Back into a production Hearth, from the folder alone (the source server is gone).
        let arguments = ["auth:migrate", "--from", seed.path, "--to-key-file", keyFile.path, "--project-id", AuthMigrateTests.targetProject]
            + (try await sides.hashArguments())
        try await serving(targetConfig, store: targetStore) { target in
            let moved = try await CLIStoreTests.hearth(arguments + ["--to", target], in: folder)
            #expect(moved.status == 0 && moved.output.contains("users: 48 created") && moved.output.contains("tenants: 2 created"),
                    "\(moved.output)")
            func signIn(_ email: String, _ password: String, tenant: String? = nil) async throws -> [String: Any] {
                try await AuthMigrateTests.Sides.signIn(at: target, email, password, tenant: tenant)
            }
            #expect(try await signIn("user12@example.com", "password-12")["localId"] as? String == "user-12")
            let acme = try #require(try await targetStore.tenants(projectID: AuthMigrateTests.targetProject, after: nil, limit: 100)
                .first { $0.displayName == "Acme" })
            #expect(try await signIn("acme2@example.com", "password-Acme-2", tenant: acme.id)["localId"] as? String == "acme-2")
            #expect(acme.identityProviders["google.com"]?.clientSecret == "acme-google-secret")
            let settings = try #require(try await targetStore.project(id: AuthMigrateTests.targetProject)?.settings)
            #expect(settings.identityProviders?["oidc.acme"]?.clientSecret == "acme-secret")

            // Out of a production Hearth, read with a Hearth service account's key: its config shows the hash
            // parameters `firebase auth:import` needs.
            let out = folder.appendingPathComponent("out")
            let exported = try await CLIStoreTests.hearth(["auth:migrate", "--from", target, "--from-key-file", keyFile.path,
                                                           "--from-project", AuthMigrateTests.targetProject, "--to", out.path], in: folder)
            #expect(exported.status == 0 && exported.output.contains("users: 48 written") && exported.output.contains("tenants: 2 written"),
                    "\(exported.output)")
            let hashConfig = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("auth_export/config.json")))
            #expect(((hashConfig as? [String: Any])?["signIn"] as? [String: Any])?["hashConfig"] != nil, "\(hashConfig)")

            // The emulator's own layout: no tenants.json, a tenant known by its account file (and named by it).
            try FileManager.default.removeItem(at: seed.appendingPathComponent("auth_export/tenants.json"))
            let dry = try await CLIStoreTests.hearth(arguments + ["--to", target, "--dry-run"], in: folder)
            #expect(dry.status == 0 && dry.output.contains("tenants: 2 would be created") && dry.output.contains("users: 5 would be created, 43 already there"),
                    "\(dry.output)")
        }
        let notAnExport = try await CLIStoreTests.hearth(["auth:migrate", "--from", folder.appendingPathComponent("nothing").path,
                                                          "--to", "http://127.0.0.1:1", "--project-id", AuthMigrateTests.targetProject], in: folder)
        #expect(notAnExport.status != 0 && notAnExport.output.contains("is not a Firebase emulator export"), "\(notAnExport.output)")
        try await targetStore.close()
    }

    /// What `firebase emulators:export DIR` writes for Authentication (firebase-tools' `hubExport.ts`, which the
    /// offline build of the emulator leaves out): the same four reads of the emulator, into the same files.
    static func exportAsTheEmulatorDoes(_ base: String, project: String, to folder: URL) async throws {
        let auth = folder.appendingPathComponent("auth_export")
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        func save(_ url: String, _ name: String) async throws {
            let reply = try await AuthMigrateTests.rest("GET", url)
            try #require(reply.status == 200, "\(url): \(reply.json)")
            try JSONSerialization.data(withJSONObject: reply.json).write(to: auth.appendingPathComponent(name))
        }
        let tenants = try await AuthMigrateTests.rest("GET", "\(base)/identitytoolkit.googleapis.com/v2/projects/\(project)/tenants")
        for tenant in tenants.json["tenants"] as? [[String: Any]] ?? [] {
            let id = try #require(tenant["tenantId"] as? String)
            try await save("\(base)/identitytoolkit.googleapis.com/v1/projects/\(project)/accounts:batchGet?maxResults=-1&tenantId=\(id)",
                           "accounts-\(id).json")
        }
        try await save("\(base)/identitytoolkit.googleapis.com/v1/projects/\(project)/accounts:batchGet?maxResults=-1", "accounts.json")
        try await save("\(base)/emulator/v1/projects/\(project)/config", "config.json")
        try #"{"version":"13.0.0","auth":{"version":"13.0.0","path":"auth_export"}}"#
            .write(to: folder.appendingPathComponent("firebase-export-metadata.json"), atomically: true, encoding: .utf8)
    }
}
