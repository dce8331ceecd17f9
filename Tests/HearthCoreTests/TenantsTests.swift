import Foundation
import HearthCore
import Testing

/// A project's tenants (`Tenants`): a colliding id is replaced, racing changes all land, and a tenant that is not
/// there is said to be absent rather than made.
@Suite struct TenantsTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    @Test func aCollidingIDIsReplacedByANewOne() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let first = try #require(try await accounts.tenants.create(TenantRecord(projectID: project.id, id: "shop-aaaaa"),
                                                                   newID: { "shop-bbbbb" }))
        #expect(first.id == "shop-aaaaa")
        let second = try #require(try await accounts.tenants.create(TenantRecord(projectID: project.id, id: "shop-aaaaa"),
                                                                    newID: { "shop-bbbbb" }))
        #expect(second.id == "shop-bbbbb")
        #expect(try await accounts.tenants.create(TenantRecord(projectID: project.id, id: "shop-aaaaa"), newID: { "shop-bbbbb" }) == nil,
                "an id source that keeps colliding gives up")
    }

    @Test func racingChangesAllLand() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        _ = try await accounts.tenants.create(TenantRecord(projectID: project.id, id: "race-aaaaa"), newID: { "unused" })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await accounts.tenants.modify("race-aaaaa", in: project) {
                        $0.testPhoneNumbers["+1555555010\(index)"] = "12345\(index)"
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try #require(try await accounts.tenants.tenant("race-aaaaa", in: project))
        #expect(final.testPhoneNumbers.count == 8, "no change was lost: \(final.testPhoneNumbers)")
    }

    @Test func anAbsentTenantIsNotMade() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        #expect(try await accounts.tenants.modify("none-aaaaa", in: project) { $0[.passwordSignIn] = true } == nil)
        #expect(try await accounts.tenants.delete("none-aaaaa", in: project) == false)
        _ = try await accounts.tenants.create(TenantRecord(projectID: project.id, id: "gone-aaaaa"), newID: { "unused" })
        #expect(try await accounts.tenants.delete("gone-aaaaa", in: project))
        #expect(try await accounts.tenants.tenant("gone-aaaaa", in: project) == nil)
    }
}
