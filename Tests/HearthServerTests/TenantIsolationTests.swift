import Foundation
import HearthCore
import HTTPTypes
import Testing

/// What a tenant hands out works only in that tenant: email codes, the hosted action page that applies them, and
/// pending sessions (an SMS session here; MFA and redirect sessions share the same key).
@Suite struct TenantIsolationTests {
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    static func seed(_ app: TestApp) async throws {
        for id in ["t-a", "t-b"] {
            var tenant = TenantRecord(projectID: "demo-project", id: id, allowPasswordSignup: true, enableEmailLinkSignin: true)
            tenant.testPhoneNumbers = ["+15555550100": "123456"]
            try await app.store.insertTenant(tenant)
        }
    }

    static func lastMessage(_ app: TestApp) async throws -> OutboxMessage {
        try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
    }

    /// A reset code sent in tenant t-a: refused where t-b is named (nothing changes there), used in t-a where no
    /// tenant is named. An email-link code for an address with no account yet is the tenant's too.
    @Test func aCodeWorksOnlyInTheTenantThatSentIt() async throws {
        let app = TestApp(protection: false)
        try await Self.seed(app)
        var policy = PasswordPolicyConfig(enforcement: .enforce)
        policy.minLength = 10
        var tenant = try #require(try await app.store.tenant(projectID: "demo-project", id: "t-a"))
        tenant.passwordPolicy = policy
        _ = try await app.store.updateTenant(tenant)
        try await app.run { client in
            _ = try await client.signUp("ada@example.com", "project-pass")
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "ada@example.com", "password": "tenant-pass-1", "tenantId": "t-a"])
            _ = try await client.post(Self.v1 + "/accounts:sendOobCode",
                                      ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "tenantId": "t-a"])
            let reset = try await Self.lastMessage(app)
            #expect(reset.tenantID == "t-a" && reset.link.contains("tenantId=t-a"), "\(reset.link)")
            let refused = try await client.post(Self.v1 + "/accounts:resetPassword",
                                                ["oobCode": reset.code, "newPassword": "stolen-pass", "tenantId": "t-b"])
            #expect(refused.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "t-b: \(refused.text)")
            // Naming no tenant, the call runs in the code's: its tenant's account changes, and its policy applies.
            let weak = try await client.post(Self.v1 + "/accounts:resetPassword", ["oobCode": reset.code, "newPassword": "short-pw"])
            #expect(weak.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "t-a's policy: \(weak.text)")
            let used = try await client.post(Self.v1 + "/accounts:resetPassword",
                                             ["oobCode": reset.code, "newPassword": "new-tenant-pass"])
            #expect(used.status == 200, "\(used.text)")
            let again = try await client.post(Self.v1 + "/accounts:resetPassword",
                                              ["oobCode": reset.code, "newPassword": "other-pass", "tenantId": "t-a"])
            #expect(again.errorMessage?.hasPrefix("INVALID_OOB_CODE") == true, "used once: \(again.text)")
            let tenantSignIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                                     ["email": "ada@example.com", "password": "new-tenant-pass", "tenantId": "t-a"])
            #expect(tenantSignIn.status == 200, "\(tenantSignIn.text)")
            let projectSignIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                                      ["email": "ada@example.com", "password": "project-pass"])
            #expect(projectSignIn.status == 200, "the project's account kept its password: \(projectSignIn.text)")

            _ = try await client.post(Self.v1 + "/accounts:sendOobCode", [
                "requestType": "EMAIL_SIGNIN", "email": "new@example.com", "tenantId": "t-a",
                "continueUrl": "http://localhost/finishSignIn"])
            let link = try await Self.lastMessage(app)
            let elsewhere = try await client.post(Self.v1 + "/accounts:signInWithEmailLink",
                                                  ["email": "new@example.com", "oobCode": link.code, "tenantId": "t-b"])
            #expect(elsewhere.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(elsewhere.text)")
            let inTenant = try await client.post(Self.v1 + "/accounts:signInWithEmailLink",
                                                 ["email": "new@example.com", "oobCode": link.code])
            #expect(inTenant.status == 200, "naming none, it runs in the link's tenant: \(inTenant.text)")
        }
        #expect(try await app.store.user(projectID: "demo-project", tenantID: "t-a", email: "new@example.com") != nil)
        #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "new@example.com") == nil)
    }

    /// The hosted page reads the link's `tenantId`: without it, or with another tenant's, the link is invalid; with
    /// it, the form keeps the tenant and the reset lands on the tenant's account.
    @Test func theActionPageActsInTheLinksTenant() async throws {
        let app = TestApp(protection: false)
        try await Self.seed(app)
        try await app.run { client in
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "ada@example.com", "password": "tenant-pass", "tenantId": "t-a"])
            _ = try await client.post(Self.v1 + "/accounts:sendOobCode",
                                      ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "tenantId": "t-a"])
            let message = try await Self.lastMessage(app)
            let page = ActionPageTests.page(message)
            for wrong in [page.replacingOccurrences(of: "tenantId=t-a", with: "tenantId=t-b"),
                          page.replacingOccurrences(of: "&tenantId=t-a", with: ""),
                          page.replacingOccurrences(of: "tenantId=t-a", with: "tenantId=t-missing")] {
                #expect(wrong != page)
                let refused = try await client.send(.get, wrong, key: nil)
                #expect(refused.status == 400, "\(wrong): \(refused.status)")
            }
            let form = try await client.send(.get, page, key: nil)
            #expect(form.status == 200 && ActionPageTests.field("tenantId", in: form.text) == "t-a", "\(form.text)")
            let token = try #require(ActionPageTests.field("csrf", in: form.text))
            let fields = ["mode": "resetPassword", "oobCode": message.code, "apiKey": TestApp.apiKey, "lang": "en",
                          "csrf": token, "newPassword": "from-the-page", "tenantId": "t-a"]
            let body = fields.map { "\($0.key)=\(ActionCodes.queryEncoded($0.value))" }.joined(separator: "&")
            let posted = try await client.send(.post, "/__/auth/action", key: nil, raw: body, headers: [
                .contentType: "application/x-www-form-urlencoded", .cookie: "hearth_action_csrf=\(token)"])
            #expect(posted.status == 200, "\(posted.text)")
            let signIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                               ["email": "ada@example.com", "password": "from-the-page", "tenantId": "t-a"])
            #expect(signIn.status == 200, "\(signIn.text)")
        }
    }

    /// An SMS session started in t-a is refused where t-b is named, and finishes in t-a where no tenant is named.
    @Test func aSessionStartedInATenantFinishesOnlyThere() async throws {
        let app = TestApp()
        try await Self.seed(app)
        try await app.run { client in
            let sent = try await client.post(Self.v1 + "/accounts:sendVerificationCode",
                                             ["phoneNumber": "+15555550100", "tenantId": "t-a"])
            let session = try #require(sent["sessionInfo"] as? String, "\(sent.text)")
            let refused = try await client.post(Self.v1 + "/accounts:signInWithPhoneNumber",
                                                ["sessionInfo": session, "code": "123456", "tenantId": "t-b"])
            #expect(refused.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "t-b: \(refused.text)")
            // The session names its tenant, but only as a pointer: moved to another tenant, it is not found there.
            let moved = session.replacingOccurrences(of: ".t-a", with: ".t-b")
            #expect(moved != session)
            let forged = try await client.post(Self.v1 + "/accounts:signInWithPhoneNumber", ["sessionInfo": moved, "code": "123456"])
            #expect(forged.errorMessage?.hasPrefix("INVALID_SESSION_INFO") == true, "\(forged.text)")
            let signedIn = try await client.post(Self.v1 + "/accounts:signInWithPhoneNumber",
                                                 ["sessionInfo": session, "code": "123456"])
            let token = try #require(signedIn["idToken"] as? String, "\(signedIn.text)")
            #expect((try TenantRoutesTests.claims(token)["firebase"] as? [String: Any])?["tenant"] as? String == "t-a")
        }
        #expect(try await app.store.users(projectID: "demo-project", after: nil, limit: 5).isEmpty)
    }

    /// A tenant's emails use Hearth's built-in text unless it inherits the project's email settings
    /// (`inheritance.emailSendingConfig`); the tenant resource shows and changes that switch and email privacy.
    @Test func aTenantsEmailSettings() async throws {
        let app = TestApp(mode: .emulator)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true))
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let path = TenantRoutesTests.tenants + "/t-a"
            let read = try await client.send(.get, path, key: nil, headers: owner)
            #expect(read.status == 200 && read["inheritance"] == nil, "off, and left out as Google leaves defaults: \(read.text)")
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "ada@example.com", "password": "secret1", "tenantId": "t-a"])
            _ = try await client.post(Self.v1 + "/accounts:sendOobCode",
                                      ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "tenantId": "t-a"])
            #expect(try await Self.lastMessage(app).builtInText == true)

            let patched = try await client.send(.patch, path + "?updateMask=inheritance,emailPrivacyConfig", [
                "inheritance": ["emailSendingConfig": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true],
            ], key: nil, headers: owner)
            #expect((patched["inheritance"] as? [String: Any])?["emailSendingConfig"] as? Bool == true, "\(patched.text)")
            #expect((patched["emailPrivacyConfig"] as? [String: Any])?["enableImprovedEmailPrivacy"] as? Bool == true)
            _ = try await client.post(Self.v1 + "/accounts:sendOobCode",
                                      ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "tenantId": "t-a"])
            #expect(try await Self.lastMessage(app).builtInText == false)
            // With enumeration protection on in the tenant, createAuthUri no longer says which methods an email has.
            let methods = try await client.post(Self.v1 + "/accounts:createAuthUri",
                                                ["identifier": "ada@example.com", "continueUri": "http://localhost", "tenantId": "t-a"])
            #expect(methods["registered"] == nil && methods["signinMethods"] == nil, "\(methods.text)")
            let project = try await client.post(Self.v1 + "/accounts:createAuthUri",
                                                ["identifier": "nobody@example.com", "continueUri": "http://localhost"])
            #expect(project["registered"] as? Bool == false, "the project's own setting is unchanged: \(project.text)")
        }
    }
}

extension TenantIsolationTests {
    /// Firebase's emulator has no phone sign-in in tenants and its tests expect the refusal: emulator mode answers as
    /// it does, production serves it (see aSessionStartedInATenantFinishesOnlyThere).
    @Test func emulatorModeRefusesPhoneSignInInTenantsAsFirebasesEmulator() async throws {
        let app = TestApp(mode: .emulator)
        try await Self.seed(app)
        try await app.run { client in
            for path in ["accounts:sendVerificationCode", "accounts:signInWithPhoneNumber"] {
                let reply = try await client.post(Self.v1 + "/" + path, ["phoneNumber": "+15555550100", "tenantId": "t-a"])
                #expect(reply.errorMessage == "UNSUPPORTED_TENANT_OPERATION", "\(path): \(reply.text)")
            }
            let project = try await client.post(Self.v1 + "/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"])
            #expect(project["sessionInfo"] is String, "the project's own phone sign-in works: \(project.text)")
            let codes = "/emulator/v1/projects/demo-project"
            let listed = try await client.send(.get, codes + "/verificationCodes", key: nil)
            #expect((listed["verificationCodes"] as? [[String: Any]])?.count == 1, "\(listed.text)")
            let tenantList = try await client.send(.get, codes + "/tenants/t-a/verificationCodes", key: nil)
            #expect(tenantList.status == 200 && (tenantList["verificationCodes"] as? [[String: Any]] ?? []).isEmpty,
                    "the tenant's list holds none of the project's codes: \(tenantList.text)")
        }
    }

    /// A tenant user whose uid is also a project user's asks, naming no tenant, to change their email: the code is
    /// the tenant's, refused where another tenant is named, and run in its own tenant where none is; the project
    /// user's email never changes.
    @Test func aTenantUsersEmailChangeCodeNeverTouchesTheProjectUserWithTheSameUID() async throws {
        let app = TestApp(protection: false)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true))
        try await app.run { client in
            let victim = try #require(try await client.signUp("victim@example.com")["localId"] as? String)
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "attacker@example.com", "password": "secret1", "tenantId": "t-a"])
            // The attacker's tenant account takes the victim's uid (as an import or a custom token could give it).
            var mine = try #require(try await app.store.user(projectID: "demo-project", tenantID: "t-a", email: "attacker@example.com"))
            try await app.store.deleteUser(projectID: "demo-project", tenantID: "t-a", localID: mine.localID)
            mine.localID = victim
            mine.version = nil
            try await app.store.insertUser(mine, uniqueEmail: true)
            let signIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                               ["email": "attacker@example.com", "password": "secret1", "tenantId": "t-a"])
            let idToken = try #require(signIn["idToken"] as? String, "\(signIn.text)")

            let sent = try await client.post(Self.v1 + "/accounts:sendOobCode", [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": idToken, "newEmail": "taken-over@example.com"])
            #expect(sent.status == 200, "\(sent.text)")
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(message.tenantID == "t-a" && message.link.contains("tenantId=t-a"), "the link names the user's tenant: \(message.link)")
            // Naming the project's scope explicitly ("" is none) or another tenant: refused, as Identity Platform does.
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-b", allowPasswordSignup: true))
            for path in [Self.v1 + "/accounts:update", Self.v3 + "/setAccountInfo"] {
                let applied = try await client.post(path, ["oobCode": message.code, "tenantId": "t-b"])
                #expect(applied.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(path): \(applied.text)")
            }
            let project = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: victim))
            #expect(project.email == "victim@example.com", "the project user's email is untouched")
            // Naming none, the code runs in the tenant that sent it: the tenant's user changes, never the project's.
            let inTenant = try await client.post(Self.v3 + "/setAccountInfo", ["oobCode": message.code])
            #expect(inTenant.status == 200, "the code works in its own tenant: \(inTenant.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: "t-a", localID: victim)?.email == "taken-over@example.com")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: victim)?.email == "victim@example.com")
        }
    }
}
