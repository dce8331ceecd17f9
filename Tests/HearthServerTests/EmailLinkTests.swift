import Foundation
import HearthCore
import HearthServer
import HearthWire
import Testing

/// Passwordless sign-in with email links, and the limits on sending email.
@Suite struct EmailLinkTests {
    static let send = Endpoints.sendOobCode.path
    static let signIn = Endpoints.signInWithEmailLink.path

    static func requestLink(_ client: Client, _ app: TestApp, _ email: String) async throws -> String {
        let sent = try await client.post(Self.send, ["requestType": "EMAIL_SIGNIN", "email": email,
                                                     "continueUrl": "http://localhost/finishSignIn",
                                                     "canHandleCodeInApp": true])
        expectSameShape(try sent.object(), try Fixture("sendOobCode-email-signin").body)
        return try #require(try await app.store.outboxMessages(projectID: "demo-project").last?.code)
    }

    @Test func newUserThenReturningUser() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let code = try await Self.requestLink(client, app, "linkuser@example.com")
            let mismatch = try await client.post(Self.signIn, ["email": "someone.else@example.com", "oobCode": code])
            #expect(try mismatch.object() as NSDictionary
                == (try Fixture("signInWithEmailLink-email-mismatch").body as! NSDictionary))
            let created = try await client.post(Self.signIn, ["email": "LinkUser@example.com", "oobCode": code])
            expectSameShape(try created.object(), try Fixture("signInWithEmailLink-new-user").body)
            #expect(created["isNewUser"] as? Bool == true, "a mismatched email did not use the code up")
            let reused = try await client.post(Self.signIn, ["email": "linkuser@example.com", "oobCode": code])
            #expect(try reused.object() as NSDictionary
                == (try Fixture("signInWithEmailLink-invalid-oob-code").body as! NSDictionary))

            let lookup = try await client.post(Endpoints.lookup.path,
                                               ["idToken": created["idToken"]!])
            let user = try #require((lookup["users"] as? [[String: Any]])?.first)
            #expect(user["emailVerified"] as? Bool == true)
            #expect(user["passwordHash"] == nil)
            let methods = try await client.post(Endpoints.createAuthUri.path,
                                                ["identifier": "linkuser@example.com", "continueUri": "http://localhost"])
            #expect(methods["signinMethods"] as? [String] == ["emailLink"])
            #expect(methods["allProviders"] as? [String] == ["password"])

            let second = try await Self.requestLink(client, app, "linkuser@example.com")
            let returning = try await client.post(Self.signIn, ["email": "linkuser@example.com", "oobCode": second])
            expectSameShape(try returning.object(), try Fixture("signInWithEmailLink-existing-user").body)
            #expect(returning["localId"] as? String == created["localId"] as? String)
        }
    }

    @Test func passwordUserSignsInByLinkAndAnonymousUserLinksTheEmail() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let pw = try await client.signUp("pwuser@example.com")
            let code = try await Self.requestLink(client, app, "pwuser@example.com")
            let signedIn = try await client.post(Self.signIn, ["email": "pwuser@example.com", "oobCode": code])
            #expect(signedIn["localId"] as? String == pw["localId"] as? String)
            #expect(signedIn["isNewUser"] as? Bool == false)

            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let linkCode = try await Self.requestLink(client, app, "anon@example.com")
            let linked = try await client.post(Self.signIn, ["email": "anon@example.com", "oobCode": linkCode,
                                                             "idToken": anonymous["idToken"]!])
            #expect(linked["localId"] as? String == anonymous["localId"] as? String, "linking keeps the localId")
            let takenCode = try await Self.requestLink(client, app, "pwuser@example.com")
            let other = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let conflict = try await client.post(Self.signIn, ["email": "pwuser@example.com", "oobCode": takenCode,
                                                               "idToken": other["idToken"]!])
            #expect(conflict.errorMessage == "EMAIL_EXISTS")
        }
    }

    @Test func linkCodesCannotResetPasswordsOrVerifyEmails() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.signUp("x@example.com")
            let code = try await Self.requestLink(client, app, "x@example.com")
            let reset = try await client.post(Endpoints.resetPassword.path,
                                              ["oobCode": code, "newPassword": "hijacked1"])
            #expect(reset.errorMessage == "INVALID_OOB_CODE")
            let inspect = try await client.post(Endpoints.resetPassword.path, ["oobCode": code])
            #expect(inspect["requestType"] as? String == "EMAIL_SIGNIN")
            #expect(inspect["email"] == nil, "Firebase does not echo the email of a sign-in link")
        }
    }

    @Test func sendingEmailIsLimited() async throws {
        var configured = TestApp(protection: false)
        configured.configuration.rateLimits = .init(enabled: true, emailsPerRecipient: .init(limit: 2, window: 3600))
        let app = configured
        try await app.run { client in
            _ = try await client.signUp("flood@example.com")
            for _ in 0..<2 {
                let ok = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "flood@example.com"])
                #expect(ok.status == 200)
            }
            let third = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "FLOOD@example.com"])
            #expect(third.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
            #expect(try await app.store.outboxMessages(projectID: "demo-project").count == 2)
        }
    }
}
