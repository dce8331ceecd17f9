import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthTestSupport
import HTTPTypes
import HearthWire
import Testing

/// `OutboxRoutes`: the emails waiting or given up, and a retry, through the console's session.
@Suite struct OutboxRoutesTests {
    /// A given-up email keeps no code; retrying it sends a new code that works, and the discarded one never does.
    @Test func aGivenUpEmailIsRetriedWithANewCode() async throws {
        let app = try await ConsoleRoutesTests.app()
        try await app.run { client in
            _ = try await client.signUp("lost@example.com")
            _ = try await client.post(Endpoints.sendOobCode.path,
                                      ["requestType": "PASSWORD_RESET", "email": "lost@example.com"])
            let queued = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            try await app.store.rescheduleOutboxMessage(id: queued.id, attempts: 8, nextAttemptAt: nil, lastError: "550 no such mailbox")
            let givenUp = try #require(try await app.store.outboxMessages(projectID: "demo-project").first { $0.id == queued.id })
            #expect(givenUp.code.isEmpty && givenUp.link.isEmpty, "the row keeps no code")

            let signedIn = try await ConsoleRoutesTests.signIn(client, app)
            let session = String(try #require(signedIn.headers[.setCookie]).split(separator: ";")[0])
            let console: HTTPFields = [.cookie: session, HTTPField.Name("X-Hearth-CSRF")!: try #require(signedIn["csrf"] as? String)]
            let retried = try await client.post("/identitytoolkit.googleapis.com/v1/projects/demo-project/outbox/\(queued.id):retry",
                                                [:], key: nil, headers: console)
            #expect(retried.status == 200, "\(retried.text)")
            let messages = try await app.store.outboxMessages(projectID: "demo-project")
            let fresh = try #require(messages.last)
            #expect(!messages.contains { $0.id == queued.id } && fresh.code != queued.code && !fresh.code.isEmpty)
            #expect(fresh.recipient == "lost@example.com" && fresh.type == .passwordReset)
            let reset = Endpoints.resetPassword.path
            #expect(try await client.post(reset, ["oobCode": fresh.code, "newPassword": "brand-new-1"]).status == 200)

            // A recovery notice goes to an address the account no longer has: re-issued for the same account.
            let moved = try await client.signUp("moved@example.com")
            var verified = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "moved@example.com"))
            verified.emailVerified = true
            try await app.store.updateUser(verified, uniqueEmail: true, revokeRefreshTokens: false)
            let changed = try await client.post(Endpoints.update.path,
                                                ["idToken": moved["idToken"] as! String, "email": "elsewhere@example.com"])
            #expect(changed.status == 200, "\(changed.text)")
            let notice = try #require(try await app.store.outboxMessages(projectID: "demo-project").last { $0.type == .recoverEmail })
            try await app.store.rescheduleOutboxMessage(id: notice.id, attempts: 8, nextAttemptAt: nil, lastError: "421 try later")
            let again = try await client.post("/identitytoolkit.googleapis.com/v1/projects/demo-project/outbox/\(notice.id):retry",
                                              [:], key: nil, headers: console)
            #expect(again.status == 200, "\(again.text)")
            let renewed = try #require(try await app.store.outboxMessages(projectID: "demo-project").last { $0.type == .recoverEmail })
            #expect(renewed.id != notice.id && renewed.recipient == "moved@example.com" && !renewed.code.isEmpty)
            let recovered = try await client.post(Endpoints.update.path, ["oobCode": renewed.code])
            #expect(recovered.status == 200, "\(recovered.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: moved["localId"] as! String)?.email
                    == "moved@example.com", "the owner has the address back")
        }
    }
}
