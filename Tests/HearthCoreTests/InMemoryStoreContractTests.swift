import HearthCore
import HearthStoreContract
import Testing

@Suite struct InMemoryStoreContractTests {
    @Test(arguments: StoreContract.all)
    func contract(_ check: StoreCheck) async throws {
        try await check.run(on: InMemoryStore())
    }
}
