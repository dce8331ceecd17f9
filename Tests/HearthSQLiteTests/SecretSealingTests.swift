import Foundation
import HearthCore
@testable import HearthSQLite
import HearthSQL
import HearthStoreContract
import Testing

/// Secrets at rest: private keys and TOTP secrets are sealed with AES-GCM by the store's codec on the way into the
/// file and opened on the way out; the store contract holds with a key; a wrong or missing key, or a secret moved to
/// another record, is refused rather than misread.
@Suite struct SecretSealingTests {
    static let key = Data((0..<32).map { UInt8($0) })
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: StoreContract.all)
    func contractHoldsThroughTheSeal(_ check: StoreCheck) async throws {
        try await check.run(closing: try await SQLiteStore.temporary(sealer: try SecretSealer(key: Self.key)))
    }

    /// Runs `body` on `store` and closes it whatever happens (a connection left open fails an assertion).
    func closing(_ store: SQLiteStore, _ body: (SQLiteStore) async throws -> Void) async throws {
        var failure: (any Error)?
        do { try await body(store) } catch { failure = error }
        try await store.close()
        if let failure { throw failure }
    }

    /// A new migrated store sealed with ``key``.
    func sealedStore(_ body: (SQLiteStore) async throws -> Void) async throws {
        let store = try await SQLiteStore.temporary(sealer: try SecretSealer(key: Self.key))
        try await closing(store) { store in
            try await store.migrate()
            try await body(store)
        }
    }

    /// The same file, opened with another key or none.
    func reopened(_ store: SQLiteStore, key: Data?, _ body: (SQLiteStore) async throws -> Void) async throws {
        try await closing(try await SQLiteStore.open(path: store.path, sealer: try key.map { try SecretSealer(key: $0) }), body)
    }

    /// A row's JSON as it lies in the file ("" when there is none).
    func raw(_ store: SQLiteStore, _ table: String, _ condition: String) async throws -> String {
        try await store.read(SQL(raw: "SELECT data FROM \(table) WHERE \(condition)")).first?[0].string ?? ""
    }

    @Test func secretsAreSealedAtRestAndOpenOnlyWithTheirKeyAndRecord() async throws {
        try await sealedStore { store in
        var project = ProjectRecord(id: "p-seal", number: "1", apiKeys: ["k"], signingKeys: [try await SigningKey.generate(now: Self.now)],
                                    hashConfig: .generate(memoryCost: 4), settings: ProjectSettings(enableImprovedEmailPrivacy: true),
                                    createdAt: Self.now)
        var apple = IdentityProviderConfig(clientId: "com.example.app")
        apple.privateKey = "-----BEGIN PRIVATE KEY-----apple"
        project.settings.identityProviders = ["apple.com": apple]
        _ = try await store.createProjectIfAbsent(project)
        var user = UserRecord(projectID: "p-seal", localID: "u1", validSince: 0, createdAt: Self.now)
        user.enrollments = [MFAEnrollment(id: "f1", displayName: nil, totpSecret: "JBSWY3DPEHPK3PXP", enrolledAt: Self.now)]
        try await store.insertUser(user, uniqueEmail: true)

        let rawProject = try await raw(store, "projects", "id = 'p-seal'")
        #expect(rawProject.contains("hearth-sealed:v1:") && !rawProject.contains("PRIVATE KEY"))
        let rawUser = try await raw(store, "users", "local_id = 'u1'")
        #expect(rawUser.contains("hearth-sealed:v1:") && !rawUser.contains("JBSWY3DPEHPK3PXP"))
        #expect(try await store.project(id: "p-seal") == project, "opened as written")
        #expect(try await store.user(projectID: "p-seal", tenantID: nil, localID: "u1")?.enrollments == user.enrollments)

        try await reopened(store, key: Data(repeating: 7, count: 32)) { otherKey in
            await #expect(throws: SealingError.wrongKey) { try await otherKey.project(id: "p-seal") }
        }
        try await reopened(store, key: nil) { noKey in
        await #expect(throws: SealingError.noKey) { try await noKey.project(id: "p-seal") }
        // A sealed secret copied onto another user does not open there: the record is part of what is authenticated.
        var thief = UserRecord(projectID: "p-seal", localID: "u2", validSince: 0, createdAt: Self.now)
        thief.enrollments = try RecordCoding.decode(UserRecord.self, from: rawUser).enrollments
        try await noKey.insertUser(thief, uniqueEmail: true)  // without a key, a sealed value is written as it is
        }
        await #expect(throws: SealingError.wrongKey) { try await store.user(projectID: "p-seal", tenantID: nil, localID: "u2") }
        #expect(throws: SealingError.badKey) { try SecretSealer(key: Data(count: 16)) }
        }
    }

    /// A tenant's apple.com signing key is sealed as the project's is, and bound to its tenant.
    @Test func aTenantsProviderKeysAreSealed() async throws {
        try await sealedStore { store in
        var tenant = TenantRecord(projectID: "p", id: "t-a")
        var apple = IdentityProviderConfig(clientId: "com.example.app")
        apple.privateKey = "-----BEGIN PRIVATE KEY-----tenant"
        tenant.identityProviders["apple.com"] = apple
        try await store.insertTenant(tenant)
        let raw = try await raw(store, "tenants", "tenant_id = 't-a'")
        #expect(raw.contains("hearth-sealed:v1:") && !raw.contains("PRIVATE KEY"))
        #expect(try await store.tenant(projectID: "p", id: "t-a")?.identityProviders == tenant.identityProviders)
        let updated = try await store.updateTenant(try #require(try await store.tenant(projectID: "p", id: "t-a")))
        #expect(updated.identityProviders == tenant.identityProviders, "an update returns the opened record")
        #expect(try await store.tenants(projectID: "p", after: nil, limit: 5).first?.identityProviders == tenant.identityProviders)
        var copied = try RecordCoding.decode(TenantRecord.self, from: raw)
        copied.id = "t-b"
        copied.version = 0
        try await reopened(store, key: nil) { noKey in try await noKey.insertTenant(copied) }
        await #expect(throws: SealingError.wrongKey) { try await store.tenant(projectID: "p", id: "t-b") }
        }
    }

    /// A webhook endpoint's signing secret is sealed too, and opens on every read, the claimed messages' included.
    @Test func aWebhookSecretIsSealed() async throws {
        try await sealedStore { store in
            let endpoint = WebhookEndpoint(projectID: "p", url: "https://api.example.com/hook", now: Self.now)
            try await store.insertWebhookEndpoint(endpoint)
            let raw = try await raw(store, "webhook_endpoints", "project_id = 'p'")
            #expect(raw.contains("hearth-sealed:v1:") && !raw.contains(endpoint.secret))
            #expect(try await store.webhookEndpoints(projectID: "p") == [endpoint])
            try await store.insertAuditEvent(AuditEvent(projectID: "p", at: Self.now, kind: "sign-up", localID: "u",
                                                        outcome: .success, clientAddress: nil))
            let claimed = try await store.claimWebhookMessages(dueAt: Self.now, leaseUntil: Self.now + 60, limit: 5)
            #expect(claimed.first?.endpoint?.secret == endpoint.secret)
        }
    }

    /// A TOTP secret being enrolled (and a provider's tokens between sign-in steps) waits in a pending record: it is
    /// sealed too, bound to its record, and opens on the way out of every read.
    @Test func pendingSecretsAreSealedAndBoundToTheirRecord() async throws {
        try await sealedStore { store in
        let payload = #"{"secret":"JBSWY3DPEHPK3PXP","localId":"u1"}"#
        try await store.insertPending(PendingRecord(digest: "d1", projectID: "p", kind: .totpEnrollment, payload: payload,
                                                    expiresAt: Self.now + 600), now: Self.now)
        let raw = try await raw(store, "pending_secrets", "digest = 'd1'")
        #expect(raw.contains("hearth-sealed:v1:") && !raw.contains("JBSWY3DPEHPK3PXP"))
        #expect(try await store.pending(projectID: "p", digest: "d1", now: Self.now)?.payload == payload)
        // Copied under another digest, the sealed payload does not open.
        try await reopened(store, key: nil) { noKey in
            try await noKey.insertPending(PendingRecord(digest: "d2", projectID: "p", kind: .totpEnrollment,
                                                        payload: try RecordCoding.decode(PendingRecord.self, from: raw).payload,
                                                        expiresAt: Self.now + 600), now: Self.now)
        }
        await #expect(throws: SealingError.wrongKey) { try await store.pending(projectID: "p", digest: "d2", now: Self.now) }
        #expect(try await store.consumePending(projectID: "p", digest: "d1")?.payload == payload)
        }
    }

    @Test func secretsFromBeforeEncryptionAreReadThenSealedAtTheirNextWrite() async throws {
        try await closing(try await SQLiteStore.temporary()) { plain in
        try await plain.migrate()
        var user = UserRecord(projectID: "p", localID: "u1", validSince: 0, createdAt: Self.now)
        user.enrollments = [MFAEnrollment(id: "f1", displayName: nil, totpSecret: "PLAINSECRET", enrolledAt: Self.now)]
        try await plain.insertUser(user, uniqueEmail: true)
        try await reopened(plain, key: Self.key) { store in
        let read = try #require(try await store.user(projectID: "p", tenantID: nil, localID: "u1"))
        #expect(read.enrollments[0].totpSecret == "PLAINSECRET")
        _ = try await store.updateUser(read, uniqueEmail: true, revokeRefreshTokens: false)
        let raw = try await raw(store, "users", "local_id = 'u1'")
        #expect(raw.contains("hearth-sealed:v1:") && !raw.contains("PLAINSECRET"))
        }
        }
    }
}
