import Foundation
import HearthCore
import Testing

/// Action codes (`ActionCodes`): links sent, returned and queued.
@Suite struct ActionCodesTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()

    /// Production: a link an administrator asks for comes back in the answer and no email is queued; emulator mode
    /// queues it too, since its outbox is only the list Firebase's emulator shows.
    @Test(arguments: [false, true])
    func aReturnedLinkIsQueuedOnlyInEmulatorMode(emulator: Bool) async throws {
        var accounts = makeService()
        accounts.emulatorRules = emulator
        let project = try await makeProject()
        _ = try await accounts.passwords.signUp(in: project, email: "link@example.com", password: "secret1")
        var request = ActionCodeRequest(type: .passwordReset, email: "link@example.com")
        request.byAdministrator = true
        request.returnLink = true
        let sent = try #require(try await accounts.actionCodes.sendActionCode(
            in: project, request, links: ActionLinkBase(url: "http://localhost/__/auth/action", apiKey: "k"),
            authorizedDomains: nil))
        #expect(sent.message.link.contains(sent.message.code))
        #expect(try await store.outboxMessages(projectID: project.id).count == (emulator ? 1 : 0))
    }
}
