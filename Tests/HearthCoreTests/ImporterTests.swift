import Foundation
import HearthCore
import Testing

/// Imports (`Importer`): emulator fake hashes, re-runs and dry runs.
@Suite struct ImporterTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    /// Firebase's emulator's plain-text `fakeHash` is taken in emulator mode only; production refuses that user.
    @Test(arguments: [false, true])
    func emulatorFakeHashesImportInEmulatorModeOnly(emulator: Bool) async throws {
        var accounts = makeService()
        accounts.emulatorRules = emulator
        let project = try await makeProject()
        var user = ImportUser(localID: "fake", email: "fake@example.com")
        user.emulatorFakeHash = "fakeHash:salt=beach:password=hawaii"
        let rejected = try await accounts.importer.importUsers(in: project, [user], hashing: nil)
        #expect(rejected.isEmpty == emulator, "\(rejected)")
        if emulator {
            let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "fake@example.com", password: "hawaii").signedIn()
            #expect(signedIn.user.passwordHash?.hasPrefix("$fbscrypt$") == true, "the first sign-in replaces it")
        }
    }

    /// A re-run import counts users already stored with the same data as unchanged, refuses one that changed since,
    /// and a dry run checks the same things without writing.
    @Test func importsCanBeRunAgainAndTriedDry() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        var first = ImportUser(localID: "i1", email: "i1@example.com")
        first.displayName = "One"
        first.createdAt = Date(timeIntervalSince1970: 1_600_000_000)
        let second = ImportUser(localID: "i2", email: "i2@example.com")
        let dry = try await accounts.importer.importBatch(in: project, [first, second], hashing: nil, skipUnchanged: true, dryRun: true)
        #expect(dry.rejections.isEmpty && dry.unchanged.isEmpty)
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i1") == nil, "a dry run writes nothing")

        let done = try await accounts.importer.importBatch(in: project, [first], hashing: nil, skipUnchanged: true)
        #expect(done.rejections.isEmpty && done.unchanged.isEmpty)
        let again = try await accounts.importer.importBatch(in: project, [first, second], hashing: nil, skipUnchanged: true)
        #expect(again.unchanged == [0] && again.rejections.isEmpty, "\(again)")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i2") != nil)

        first.displayName = "Changed"
        let changed = try await accounts.importer.importBatch(in: project, [first], hashing: nil, skipUnchanged: true)
        #expect(changed.unchanged.isEmpty && changed.rejections.map(\.index) == [0], "a changed user is not overwritten")
        let tried = try await accounts.importer.importBatch(in: project, [first, ImportUser(localID: "i3", email: "i2@example.com")],
                                                   hashing: nil, skipUnchanged: true, dryRun: true)
        #expect(tried.rejections.map(\.message) == ["localId belongs to an existing account - can not overwrite.",
                                                   "email exists in other account in database"], "\(tried)")
        #expect(try await store.user(projectID: project.id, tenantID: nil, localID: "i1")?.displayName == "One")
    }
}
