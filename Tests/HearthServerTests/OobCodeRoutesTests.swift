import Foundation
import HearthCore
import HearthServer
import HTTPTypes
import HearthWire
import Testing

/// Email action codes: sent, inspected, applied once, expiring; stored only as hashes.
@Suite struct OobCodeRoutesTests {
    static let send = Endpoints.sendOobCode.path
    static let reset = Endpoints.resetPassword.path
    static let update = Endpoints.update.path
    static let signIn = Endpoints.signInWithPassword.path

    /// The newest queued message's code, read from the outbox as a mail server would receive it.
    static func lastCode(_ app: TestApp) async throws -> String {
        try #require(try await app.store.outboxMessages(projectID: "demo-project").last?.code)
    }

    @Test func passwordResetFromRequestToNewPassword() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let user = try await client.signUp("reset@example.com", "secret123")
            let sent = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "reset@example.com"],
                                             headers: [HTTPField.Name("X-Firebase-Locale")!: "fr"])
            #expect(try sent.object() as NSDictionary == (try Fixture("sendOobCode-password-reset").body as! NSDictionary))
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(message.locale == "fr")
            #expect(message.link.contains("/__/auth/action?mode=resetPassword&oobCode=\(message.code)&apiKey=test-api-key&lang=fr"))
            #expect(try await app.store.actionCode(projectID: "demo-project", digest: message.code) == nil,
                    "the code itself is not stored")
            #expect(try await app.store.actionCode(projectID: "demo-project", digest: storageDigest(message.code)) != nil)

            for _ in 0..<2 {  // checking does not use the code up
                let check = try await client.post(Self.reset, ["oobCode": message.code])
                #expect(try check.object() as NSDictionary == (try Fixture("resetPassword-check-code").body as! NSDictionary))
            }
            let weak = try await client.post(Self.reset, ["oobCode": message.code, "newPassword": "123"])
            #expect(weak.errorMessage?.hasPrefix("WEAK_PASSWORD") == true)
            app.clock.advance(by: 1)  // the reset happens after the old session began
            let applied = try await client.post(Self.reset, ["oobCode": message.code, "newPassword": "brandNew456"])
            expectSameShape(try applied.object(), try Fixture("resetPassword-apply-newPassword").body)
            let reused = try await client.post(Self.reset, ["oobCode": message.code, "newPassword": "again4567"])
            #expect(reused.errorMessage == "INVALID_OOB_CODE")
            #expect(try await client.post(Self.signIn, ["email": "reset@example.com", "password": "secret123"]).status == 400)
            #expect(try await client.post(Self.signIn, ["email": "reset@example.com", "password": "brandNew456"]).status == 200)
            let oldSession = try await client.post("/securetoken.googleapis.com/v1/token",
                                                   ["grant_type": "refresh_token", "refresh_token": user["refreshToken"]!])
            #expect(oldSession.errorMessage == "TOKEN_EXPIRED", "a reset ends earlier sessions")
        }
    }

    @Test func codesExpire() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.signUp("late@example.com")
            _ = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "late@example.com"])
            let code = try await Self.lastCode(app)
            app.clock.advance(by: 3601)
            #expect(try await client.post(Self.reset, ["oobCode": code]).errorMessage == "EXPIRED_OOB_CODE")
            #expect(try await client.post(Self.reset, ["oobCode": code, "newPassword": "whatever1"]).errorMessage
                == "EXPIRED_OOB_CODE")
        }
    }

    @Test func verifyEmail() async throws {
        let app = TestApp()
        try await app.run { client in
            let user = try await client.signUp("verify@example.com")
            let sent = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            expectSameShape(try sent.object(), try Fixture("sendOobCode-verify-email").body)
            #expect(sent["email"] as? String == "verify@example.com")
            let code = try await Self.lastCode(app)
            let applied = try await client.post(Self.update, ["oobCode": code])
            expectSameShape(try applied.object(), try Fixture("update-verify-email-oobCode").body)
            #expect(applied["emailVerified"] as? Bool == true)
            #expect(try await client.post(Self.update, ["oobCode": code]).errorMessage == "INVALID_OOB_CODE")
            let badToken = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": "garbage"])
            #expect(badToken.errorMessage == "INVALID_ID_TOKEN")
        }
    }

    @Test func verifyAndChangeEmail() async throws {
        let app = TestApp()
        try await app.run { client in
            _ = try await client.signUp("taken@example.com")
            let user = try await client.signUp("old@example.com")
            let taken = try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL",
                                                          "idToken": user["idToken"]!, "newEmail": "taken@example.com"])
            #expect(taken.errorMessage == "EMAIL_EXISTS")
            let missing = try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]!])
            #expect(missing.errorMessage == "MISSING_NEW_EMAIL")
            _ = try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]!,
                                                  "newEmail": "changed@example.com"])
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(message.recipient == "changed@example.com", "the link goes to the new address")
            let applied = try await client.post(Self.update, ["oobCode": message.code])
            expectSameShape(try applied.object(), try Fixture("update-verify-and-change-email-oobCode").body)
            #expect(applied["email"] as? String == "changed@example.com")
            #expect(applied["emailVerified"] as? Bool == true)
            let signedIn = try await client.post(Self.signIn, ["email": "changed@example.com", "password": "secret1"])
            #expect(signedIn.status == 200)
            #expect(try await app.store.outboxMessages(projectID: "demo-project").last?.type == .verifyAndChangeEmail,
                    "old@ was never verified: no recovery notice")

            _ = try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL",
                                                  "idToken": signedIn["idToken"]!,
                                                  "newEmail": "third@example.com"])
            let second = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            _ = try await client.post(Self.update, ["oobCode": second.code])
            let notice = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(notice.type == .recoverEmail && notice.recipient == "changed@example.com"
                    && notice.newEmail == "third@example.com", "the verified changed@ is told and can revert")
        }
    }

    /// A verified address replaced by a direct change gets a RECOVER_EMAIL link; using it puts the address back,
    /// verified, and ends the sessions of whoever changed it.
    @Test func recoverEmailAfterAChangeOfAVerifiedAddress() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let user = try await client.signUp("owner@example.com", "secret123")
            _ = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            _ = try await client.post(Self.update, ["oobCode": try await Self.lastCode(app)])
            let changed = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "thief@example.com",
                                                              "returnSecureToken": true],
                                                headers: [HTTPField.Name("X-Firebase-Locale")!: "de"])
            #expect(changed.status == 200)
            let notice = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(notice.type == .recoverEmail && notice.recipient == "owner@example.com")
            #expect(notice.newEmail == "thief@example.com" && notice.locale == "de")
            #expect(notice.link.contains("mode=recoverEmail&oobCode=\(notice.code)"))

            let checked = try await client.post(Self.reset, ["oobCode": notice.code])
            #expect(checked["requestType"] as? String == "RECOVER_EMAIL")
            #expect(checked["email"] as? String == "owner@example.com" && checked["newEmail"] as? String == "thief@example.com")

            app.clock.advance(by: 2)
            let recovered = try await client.post(Self.update, ["oobCode": notice.code])
            #expect(recovered["email"] as? String == "owner@example.com")
            #expect(recovered["emailVerified"] as? Bool == true)
            let thiefSession = try await client.post("/securetoken.googleapis.com/v1/token",
                                                     ["grant_type": "refresh_token", "refresh_token": changed["refreshToken"]!])
            #expect(thiefSession.errorMessage == "TOKEN_EXPIRED", "the changer's session ended")
            #expect(try await client.post(Self.update, ["oobCode": notice.code]).errorMessage == "INVALID_OOB_CODE")
            #expect(try await client.post(Self.signIn, ["email": "owner@example.com", "password": "secret123"]).status == 200)
        }
    }

    @Test func noRecoveryNoticeForAnUnverifiedAddressAndNoRecoveryOntoATakenOne() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let unverified = try await client.signUp("draft@example.com")
            _ = try await client.post(Self.update, ["idToken": unverified["idToken"]!, "email": "draft2@example.com"])
            #expect(try await app.store.outboxMessages(projectID: "demo-project").isEmpty)

            let user = try await client.signUp("first@example.com")
            _ = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            _ = try await client.post(Self.update, ["oobCode": try await Self.lastCode(app)])
            _ = try await client.post(Self.update, ["idToken": user["idToken"]!, "email": "second@example.com"])
            let notice = try await Self.lastCode(app)
            _ = try await client.signUp("first@example.com")  // somebody takes the freed address meanwhile
            let refused = try await client.post(Self.update, ["oobCode": notice])
            #expect(refused.errorMessage == "EMAIL_EXISTS")
            #expect(try await client.post(Self.reset, ["oobCode": notice]).status == 200, "the code was not used up")
        }
    }

    @Test func badInput() async throws {
        try await TestApp(protection: false).run { client in
            let invalidType = try await client.post(Self.send, ["requestType": "NOT_A_TYPE", "email": "reset@example.com"])
            #expect(try invalidType.object() as NSDictionary
                == (try Fixture("sendOobCode-invalid-request-type").body as! NSDictionary))
            let missingType = try await client.post(Self.send, ["email": "reset@example.com"])
            #expect(try missingType.object() as NSDictionary
                == (try Fixture("sendOobCode-missing-request-type").body as! NSDictionary))
            let unknown = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(try unknown.object() as NSDictionary
                == (try Fixture("sendOobCode-password-reset-email-not-found").body as! NSDictionary))
            let missingEmail = try await client.post(Self.send, ["requestType": "PASSWORD_RESET"])
            #expect(missingEmail.errorMessage == "MISSING_EMAIL")
            _ = try await client.signUp("a@example.com")
            let foreign = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "a@example.com",
                                                            "continueUrl": "https://evil.example.net/steal"])
            #expect(foreign.errorMessage == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project")
            let notURL = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "a@example.com",
                                                           "continueUrl": "javascript:alert(1)"])
            #expect(notURL.errorMessage == "INVALID_CONTINUE_URI")
            let adminOnly = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "a@example.com",
                                                              "returnOobLink": true])
            #expect(adminOnly.errorMessage?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
            let invalid = try await client.post(Self.reset, ["oobCode": "made-up"])
            #expect(try invalid.object() as NSDictionary == (try Fixture("resetPassword-invalid-oob-code").body as! NSDictionary))
            #expect(try await client.post(Self.reset, [String: String]()).errorMessage == "MISSING_OOB_CODE", "missing, as Firebase says, not invalid")
        }
    }

    @Test func unknownEmailUnderProtectionLooksSentButSendsNothing() async throws {
        let app = TestApp(protection: true)
        try await app.run { client in
            let reply = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            expectSameShape(try reply.object(), try Fixture("sendOobCode-password-reset-email-not-found-privacy").body)
            #expect(try await app.store.outboxMessages(projectID: "demo-project").isEmpty)
        }
    }

    @Test func emulatorOutboxListsPendingCodes() async throws {
        try await TestApp(mode: .emulator).run { client in
            let user = try await client.signUp("list@example.com")
            _ = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            _ = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "list@example.com",
                                                  "continueUrl": "http://localhost/finish?step=2&x=y"])
            let listing = try await client.send(.get, "/emulator/v1/projects/demo-project/oobCodes", key: nil)
            let fixture = try Fixture("emulator-oobCodes-list")
            expectSameShape(try listing.object(), fixture.body)
            let entries = try #require(listing["oobCodes"] as? [[String: Any]])
            #expect(entries.map { $0["requestType"] as? String } == ["VERIFY_EMAIL", "PASSWORD_RESET"])
            let link = try #require(entries[1]["oobLink"] as? String)
            #expect(link.contains("/emulator/action?mode=resetPassword&oobCode="))
            #expect(link.hasSuffix("&continueUrl=http%3A%2F%2Flocalhost%2Ffinish%3Fstep%3D2%26x%3Dy"))
        }
    }
}

extension OobCodeRoutesTests {
    /// `continueUrl` comes back as sent where every parser reads it alike (the Admin SDKs compare strings), and
    /// `linkDomain` must be a domain that serves the project's links, never a default hosting one.
    @Test func continueURLsAreEchoedAsSentAndLinkDomainsAreChecked() async throws {
        for mode in [ServerConfiguration.Mode.emulator, .production] {
            let app = mode == .emulator ? TestApp(mode: .emulator) : CredentialGuardsTests.productionApp()
            let signer = mode == .emulator ? nil : try await CredentialGuardsTests.register(app)
            try await app.run { client in
                _ = try await client.signUp("link@example.com")
                func link(_ body: [String: Any]) async throws -> Reply {
                    var body = body
                    body["requestType"] = "EMAIL_SIGNIN"
                    body["email"] = "link@example.com"
                    body["returnOobLink"] = true
                    let headers = if let signer {
                        CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now()))
                    } else {
                        IdpConfigRoutesTests.owner
                    }
                    return try await client.post("/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:sendOobCode",
                                                 body, key: nil, headers: headers)
                }
                let sent = try await link(["continueUrl": "http://localhost?a=1&b=5#f=1"])
                let oobLink = try #require(sent["oobLink"] as? String, "\(sent.text)")
                let items = URLComponents(string: oobLink)?.queryItems ?? []
                #expect(items.first { $0.name == "continueUrl" }?.value == "http://localhost?a=1&b=5#f=1", "\(oobLink)")
                for domain in ["cool.link", "demo-project.firebaseapp.com", "evil.example/@localhost"] {
                    let refused = try await link(["continueUrl": "http://localhost/", "linkDomain": domain])
                    #expect(refused.errorMessage?.hasPrefix("INVALID_HOSTING_LINK_DOMAIN : The provided hosting link domain") == true,
                            "\(domain): \(refused.text)")
                }
                let ownHost = try #require(URLComponents(string: oobLink)?.host)
                let same = try await link(["continueUrl": "http://localhost/", "linkDomain": ownHost])
                #expect(same.status == 200, "the server's own host serves its links: \(same.text)")
            }
        }
    }

    /// Emulator mode takes a `continueUrl` on any host, as Firebase's emulator does; in both modes the URL is read
    /// as a browser reads it, and that reading is what the link carries (a backslash is a slash, never userinfo).
    @Test func emulatorModeTakesAnyHostReadAsABrowserDoes() async throws {
        for mode in [ServerConfiguration.Mode.emulator, .production] {
            try await TestApp(mode: mode, protection: false).run { client in
                _ = try await client.signUp("a@example.com")
                func send(_ url: String) async throws -> Reply {
                    try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "a@example.com", "continueUrl": url])
                }
                for foreign in ["https://app.example.org/done", "https://evil.example\\@localhost/"] {
                    let reply = try await send(foreign)
                    #expect(mode == .emulator ? reply.status == 200
                            : reply.errorMessage == "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project", "\(mode): \(reply.text)")
                }
                #expect(try await send("javascript:alert(1)").errorMessage == "INVALID_CONTINUE_URI")
                guard mode == .emulator else { return }
                let codes = try await client.send(.get, "/emulator/v1/projects/demo-project/oobCodes")
                let links = (codes["oobCodes"] as? [[String: Any]] ?? []).compactMap { $0["oobLink"] as? String }
                let continueURLs = links.compactMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "continueUrl" }?.value }
                #expect(continueURLs.sorted() == ["https://app.example.org/done", "https://evil.example/@localhost/"], "\(links)")
            }
        }
    }
}

extension OobCodeRoutesTests {
    static func listed(_ client: Client) async throws -> [[String: Any]] {
        try await client.send(.get, "/emulator/v1/projects/demo-project/oobCodes")["oobCodes"] as? [[String: Any]] ?? []
    }

    /// Emulator mode's outbox as Firebase's emulator shows it: a used code leaves the list, a change-of-address code
    /// is listed under the current address, and an email change tells the old address (RECOVER_EMAIL) even if it
    /// was never verified. `initialEmail` keeps the first address in both modes.
    @Test func emulatorOutboxListsUnusedCodesUnderTheAccountsAddress() async throws {
        try await TestApp(mode: .emulator).run { client in
            let alice = try await client.signUp("alice@example.com")
            let idToken = try #require(alice["idToken"] as? String)
            try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": idToken, "newEmail": "new@example.com"])
            let change = try #require(try await Self.listed(client).first)
            #expect(change["email"] as? String == "alice@example.com" && change["newEmail"] as? String == "new@example.com")
            let applied = try await client.post(Self.update, ["oobCode": change["oobCode"] as Any])
            #expect(applied["email"] as? String == "new@example.com" && applied["emailVerified"] as? Bool == true, "\(applied.text)")
            #expect(try await Self.listed(client).isEmpty, "a used code leaves the list")

            let bob = try await client.signUp("bob@example.com")
            let changed = try await client.post(Self.update, ["idToken": bob["idToken"] as Any, "email": "bobby@example.com"])
            #expect(changed.status == 200)
            let notice = try #require(try await Self.listed(client).first)
            #expect(notice["requestType"] as? String == "RECOVER_EMAIL" && notice["email"] as? String == "bob@example.com")
            let looked = try await client.post(Endpoints.lookup.path, ["idToken": changed["idToken"] as Any])
            #expect((looked["users"] as? [[String: Any]])?.first?["initialEmail"] as? String == "bob@example.com", "\(looked.text)")
            let missing = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "email": "bob@example.com"])
            #expect(missing.errorMessage == "INVALID_ID_TOKEN", "a client's VERIFY_EMAIL is about its own token")
            let noNew = try await client.post(Self.send, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "bob@example.com"])
            #expect(noNew.errorMessage == "MISSING_NEW_EMAIL")
        }
    }
}
