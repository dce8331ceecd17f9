import Foundation
import HearthCore
import HearthStoreContract
import Testing

/// Secrets at rest: private keys and TOTP secrets are sealed with AES-GCM on the way into the store and opened on
/// the way out; the store contract holds through the seal; a wrong or missing key, or a secret moved to another
/// record, is refused rather than misread.
@Suite struct SealingStoreTests {
    static let key = Data((0..<32).map { UInt8($0) })

    @Test(arguments: StoreContract.all)
    func contractHoldsThroughTheSeal(_ check: StoreCheck) async throws {
        try await check.run(on: SealingStore(InMemoryStore(), sealer: try SecretSealer(key: Self.key)))
    }

    @Test func secretsAreSealedAtRestAndOpenOnlyWithTheirKeyAndRecord() async throws {
        let base = InMemoryStore()
        let store = SealingStore(base, sealer: try SecretSealer(key: Self.key))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var project = ProjectRecord(id: "p-seal", number: "1", apiKeys: ["k"], signingKeys: [try await SigningKey.generate(now: now)],
                                    hashConfig: .generate(memoryCost: 4), settings: ProjectSettings(enableImprovedEmailPrivacy: true),
                                    createdAt: now)
        var apple = IdentityProviderConfig(clientId: "com.example.app")
        apple.privateKey = "-----BEGIN PRIVATE KEY-----apple"
        project.settings.identityProviders = ["apple.com": apple]
        _ = try await store.createProjectIfAbsent(project)
        var user = UserRecord(projectID: "p-seal", localID: "u1", validSince: 0, createdAt: now)
        user.enrollments = [MFAEnrollment(id: "f1", displayName: nil, totpSecret: "JBSWY3DPEHPK3PXP", enrolledAt: now)]
        try await store.insertUser(user, uniqueEmail: true)

        let raw = try #require(try await base.project(id: "p-seal"))
        #expect(SecretSealer.isSealed(raw.signingKeys[0].privateKeyPEM) && !raw.signingKeys[0].privateKeyPEM.contains("PRIVATE KEY"))
        #expect(SecretSealer.isSealed(raw.settings.identityProviders?["apple.com"]?.privateKey ?? ""))
        let rawUser = try #require(try await base.user(projectID: "p-seal", tenantID: nil, localID: "u1"))
        #expect(SecretSealer.isSealed(rawUser.enrollments[0].totpSecret ?? ""))
        #expect(try await store.project(id: "p-seal") == project, "opened as written")
        #expect(try await store.user(projectID: "p-seal", tenantID: nil, localID: "u1")?.enrollments == user.enrollments)

        let otherKey = SealingStore(base, sealer: try SecretSealer(key: Data(repeating: 7, count: 32)))
        await #expect(throws: SealingError.wrongKey) { try await otherKey.project(id: "p-seal") }
        await #expect(throws: SealingError.noKey) { try await SealingStore(base, sealer: nil).project(id: "p-seal") }
        // A sealed secret copied onto another user does not open there: the record is part of what is authenticated.
        var thief = UserRecord(projectID: "p-seal", localID: "u2", validSince: 0, createdAt: now)
        thief.enrollments = rawUser.enrollments
        try await base.insertUser(thief, uniqueEmail: true)
        await #expect(throws: SealingError.wrongKey) { try await store.user(projectID: "p-seal", tenantID: nil, localID: "u2") }
        #expect(throws: SealingError.badKey) { try SecretSealer(key: Data(count: 16)) }
    }

    /// A tenant's apple.com signing key is sealed as the project's is, and bound to its tenant.
    @Test func aTenantsProviderKeysAreSealed() async throws {
        let base = InMemoryStore()
        let store = SealingStore(base, sealer: try SecretSealer(key: Self.key))
        var tenant = TenantRecord(projectID: "p", id: "t-a")
        var apple = IdentityProviderConfig(clientId: "com.example.app")
        apple.privateKey = "-----BEGIN PRIVATE KEY-----tenant"
        tenant.identityProviders["apple.com"] = apple
        try await store.insertTenant(tenant)
        let raw = try #require(try await base.tenant(projectID: "p", id: "t-a"))
        #expect(SecretSealer.isSealed(raw.identityProviders["apple.com"]?.privateKey ?? ""))
        #expect(try await store.tenant(projectID: "p", id: "t-a")?.identityProviders == tenant.identityProviders)
        let updated = try await store.updateTenant(try #require(try await store.tenant(projectID: "p", id: "t-a")))
        #expect(updated.identityProviders == tenant.identityProviders, "an update returns the opened record")
        #expect(try await store.tenants(projectID: "p", after: nil, limit: 5).first?.identityProviders == tenant.identityProviders)
        var copied = raw
        copied.id = "t-b"
        copied.version = 0
        try await base.insertTenant(copied)
        await #expect(throws: SealingError.wrongKey) { try await store.tenant(projectID: "p", id: "t-b") }
    }

    /// A TOTP secret being enrolled (and a provider's tokens between sign-in steps) waits in a pending record: it is
    /// sealed too, bound to its record, and opens on the way out of every read.
    @Test func pendingSecretsAreSealedAndBoundToTheirRecord() async throws {
        let base = InMemoryStore()
        let store = SealingStore(base, sealer: try SecretSealer(key: Self.key))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let payload = #"{"secret":"JBSWY3DPEHPK3PXP","localId":"u1"}"#
        let pending = PendingRecord(digest: "d1", projectID: "p", kind: .totpEnrollment, payload: payload,
                                    expiresAt: now + 600)
        try await store.insertPending(pending, now: now)
        let raw = try #require(try await base.pending(projectID: "p", digest: "d1", now: now))
        #expect(SecretSealer.isSealed(raw.payload) && !raw.payload.contains("JBSWY3DPEHPK3PXP"))
        #expect(try await store.pending(projectID: "p", digest: "d1", now: now)?.payload == payload)
        // Copied under another digest, the sealed payload does not open.
        try await base.insertPending(PendingRecord(digest: "d2", projectID: "p", kind: .totpEnrollment,
                                                   payload: raw.payload, expiresAt: now + 600), now: now)
        await #expect(throws: SealingError.wrongKey) { try await store.pending(projectID: "p", digest: "d2", now: now) }
        #expect(try await store.consumePending(projectID: "p", digest: "d1")?.payload == payload)
    }

    @Test func secretsFromBeforeEncryptionAreReadThenSealedAtTheirNextWrite() async throws {
        let base = InMemoryStore()
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var user = UserRecord(projectID: "p", localID: "u1", validSince: 0, createdAt: now)
        user.enrollments = [MFAEnrollment(id: "f1", displayName: nil, totpSecret: "PLAINSECRET", enrolledAt: now)]
        try await base.insertUser(user, uniqueEmail: true)
        let store = SealingStore(base, sealer: try SecretSealer(key: Self.key))
        let read = try #require(try await store.user(projectID: "p", tenantID: nil, localID: "u1"))
        #expect(read.enrollments[0].totpSecret == "PLAINSECRET")
        _ = try await store.updateUser(read, uniqueEmail: true, revokeRefreshTokens: false)
        #expect(SecretSealer.isSealed(try await base.user(projectID: "p", tenantID: nil, localID: "u1")?.enrollments[0].totpSecret ?? ""))
    }
}
