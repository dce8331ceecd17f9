import Foundation
import HearthCore
import Synchronization
import Testing

/// Phone numbers as a first factor (`PhoneSignIn`): a texted code signs in once, a wrong one does not, and a
/// session outlives neither its use nor its expiry.
@Suite struct PhoneSignInTests: InMemoryAccounts {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000.5))
    let store = InMemoryStore()

    /// The texts a gateway was asked to send.
    final class Inbox: SMSSender, Sendable {
        let messages = Mutex<[SMSMessage]>([])
        func send(_ message: SMSMessage) async throws { messages.withLock { $0.append(message) } }
        var last: SMSMessage? { messages.withLock { $0.last } }
    }

    func signIn(_ accounts: AccountContext, _ project: ProjectContext, session: String, code: String) async throws
        -> PhoneSignInOutcome {
        try await accounts.phone.signInWithPhoneNumber(in: project, sessionInfo: session, code: code, temporaryProof: nil,
                                                       phoneNumber: nil, idToken: nil, operation: nil)
    }

    @Test func aTextedCodeSignsInOnceAndAWrongOneDoesNot() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let inbox = Inbox()
        let session = try await accounts.phone.sendPhoneCode(to: "+16505550123", purpose: .signIn, in: project,
                                                             locale: "fr", sender: inbox)
        let text = try #require(inbox.last)
        #expect(text.sessionInfo == session && text.locale == "fr" && text.code.count == 6 && text.phoneNumber == "+16505550123")

        let wrong = text.code == "000000" ? "111111" : "000000"
        await #expect(throws: AuthFailure.invalidCode) { _ = try await signIn(accounts, project, session: session, code: wrong) }
        guard case .signedIn(let result) = try await signIn(accounts, project, session: session, code: text.code) else {
            Issue.record("the right code signs in")
            return
        }
        #expect(result.isNewUser && result.user.phoneNumber == "+16505550123")
        await #expect(throws: AuthFailure.self, "a code opens one session") {
            _ = try await signIn(accounts, project, session: session, code: text.code)
        }
    }

    @Test func anExpiredSessionIsRefusedAndAnInvalidNumberNeverTexted() async throws {
        let accounts = makeService()
        let project = try await makeProject()
        let inbox = Inbox()
        let session = try await accounts.phone.sendPhoneCode(to: "+16505550124", purpose: .signIn, in: project,
                                                             locale: nil, sender: inbox)
        clock.advance(by: 24 * 3600)
        await #expect(throws: AuthFailure.sessionExpired) {
            _ = try await signIn(accounts, project, session: session, code: try #require(inbox.last).code)
        }
        await #expect(throws: AuthFailure.invalidPhoneNumber) {
            _ = try await accounts.phone.sendPhoneCode(to: "650-555-0125", purpose: .signIn, in: project, locale: nil, sender: inbox)
        }
        #expect(inbox.messages.withLock { $0.count } == 1)
    }
}
