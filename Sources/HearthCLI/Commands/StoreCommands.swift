import ArgumentParser
import Foundation
import HearthCore
import HearthSQLite

/// `hearth store encrypt`: seals the secrets of an existing store with the key in HEARTH_ENCRYPTION_KEY(_FILE).
struct StoreCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Work on the store itself.",
        subcommands: [Encrypt.self])

    struct Encrypt: AsyncParsableCommand, AuditedCommand {
        var subject: String? { nil }
        static let configuration = CommandConfiguration(
            abstract: "Encrypt the project's and its tenants' private keys and users' TOTP secrets with HEARTH_ENCRYPTION_KEY.",
            discussion: """
                With a key given, new secrets are written encrypted and old ones are encrypted at their next write; \
                this writes them all now. Safe to run again, and while servers run (they need the same key).
                  export HEARTH_ENCRYPTION_KEY=$(openssl rand -base64 32)   # keep it apart from the store
                  hearth store encrypt
                """)

        @OptionGroup var data: DataOptions

        func run() async throws {
            guard try StoreFactory.encryptionKey() != nil else {
                throw CommandFailure("set HEARTH_ENCRYPTION_KEY (or HEARTH_ENCRYPTION_KEY_FILE) to the key to encrypt with")
            }
            let (store, project, _) = try await data.open()
            do {
                // Read through the sealing store (opened), written back through it (sealed).
                try await store.updateProject(project.record)
                var tenants: [TenantRecord] = []
                while true {
                    let page = try await store.tenants(projectID: project.id, after: tenants.last?.id, limit: 100)
                    for tenant in page { _ = try await store.updateTenant(tenant) }  // its providers' keys
                    tenants += page
                    if page.count < 100 { break }
                }
                var users = 0
                for tenantID in [nil] + tenants.map(\.id) {
                    var after: String?
                    while true {
                        let page = try await store.users(projectID: project.id, tenantID: tenantID, after: after, limit: 500)
                        for user in page where user.mfaEnrollments?.contains(where: { $0.totpSecret != nil }) == true {
                            _ = try await store.updateUser(user, uniqueEmail: !project.settings[.allowDuplicateEmails],
                                                           revokeRefreshTokens: false)
                            users += 1
                        }
                        guard let last = page.last, page.count == 500 else { break }
                        after = last.localID
                    }
                }
                print("encrypted project \(project.id)'s private keys, those of its \(tenants.count) tenants, "
                      + "and the TOTP secrets of \(users) users")
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
            // The plaintext they replaced must not stay behind in free pages of the file.
            if let path = StoreFactory.sqlitePath(data.storeLocation(try await data.configFile())) {
                let file = try await SQLiteStore.open(path: path, readers: 1)
                do { try await file.compact() } catch { try? await file.close(); throw error }
                try await file.close()
            }
        }
    }
}
