import Crypto
import Foundation
import HearthCore
import HearthServer
import HTTPTypes
import Testing

/// A password policy as Identity Platform has it: set through the config (and a tenant), shown to the SDKs by
/// `GET v2/passwordPolicy`, held against every new password (sign-up, change, reset) with Firebase's
/// `PASSWORD_DOES_NOT_MEET_REQUIREMENTS`, and against sign-in with `forceUpgradeOnSignin`.
@Suite struct PasswordPolicyRoutesTests {
    static let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/config"
    static let policy = "/identitytoolkit.googleapis.com/v2/passwordPolicy"
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static var strict: [String: Any] { [
        "passwordPolicyEnforcementState": "ENFORCE", "forceUpgradeOnSignin": false,
        "passwordPolicyVersions": [["customStrengthOptions": [
            "minPasswordLength": 8, "containsUppercaseCharacter": true, "containsNumericCharacter": true]]],
    ] }

    /// An admin call with a fresh service-account assertion.
    static func admin(_ client: Client, _ app: TestApp, _ signer: ServiceAccountSigner, _ method: HTTPRequest.Method,
                      _ path: String, _ body: Any?) async throws -> Reply {
        let token = try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now())
        return try await client.send(method, path, body, key: nil, headers: CredentialGuardsTests.bearer(token))
    }

    @Test func anEnforcedPolicyHoldsEveryNewPasswordAndTheSDKsSeeIt() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let before = try await client.send(.get, Self.policy)
            #expect(before["enforcementState"] as? String == "OFF" && before["schemaVersion"] as? Int == 1, "\(before.text)")
            #expect((before["customStrengthOptions"] as? [String: Any])?["minPasswordLength"] as? Int == 6)
            #expect((before["allowedNonAlphanumericCharacters"] as? [String])?.contains("!") == true)
            _ = try await client.signUp("old@example.com", "weakpass")  // before the policy: allowed

            let set = try await Self.admin(client, app, signer, .patch, Self.config + "?updateMask=passwordPolicyConfig",
                                           ["passwordPolicyConfig": Self.strict])
            let stored = try #require(set["passwordPolicyConfig"] as? [String: Any], "\(set.text)")
            #expect(stored["passwordPolicyEnforcementState"] as? String == "ENFORCE" && stored["lastUpdateTime"] != nil)
            let sdk = try await client.send(.get, Self.policy)
            let options = try #require(sdk["customStrengthOptions"] as? [String: Any], "\(sdk.text)")
            #expect(sdk["enforcementState"] as? String == "ENFORCE" && options["minPasswordLength"] as? Int == 8)
            #expect(options["containsUppercaseCharacter"] as? Bool == true && options["containsLowercaseCharacter"] as? Bool == false)

            // Sign-up: what is missing, in Firebase's words.
            let weak = try await client.post(Self.v1 + "/accounts:signUp", ["email": "new@example.com", "password": "password"])
            #expect(weak.errorMessage == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain an upper case character, Password must contain a numeric character]",
                    "\(weak.text)")
            let short = try await client.post(Self.v1 + "/accounts:signUp", ["email": "new@example.com", "password": "Ab1"])
            #expect(short.errorMessage?.hasPrefix("WEAK_PASSWORD") == true, "Firebase's minimum first: \(short.text)")
            let strong = try await client.signUp("new@example.com", "Passw0rdX")

            // A change and a reset are held to it too; a refused reset leaves its code usable.
            let change = try await client.post(Self.v1 + "/accounts:update", ["idToken": strong["idToken"]!, "password": "lowercase1"])
            #expect(change.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "\(change.text)")
            _ = try await client.post(Self.v1 + "/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "old@example.com"])
            let code = try #require(try await app.store.outboxMessages(projectID: "demo-project").last?.code)
            let refusedReset = try await client.post(Self.v1 + "/accounts:resetPassword", ["oobCode": code, "newPassword": "weakpass2"])
            #expect(refusedReset.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "\(refusedReset.text)")

            // Existing passwords sign in until forceUpgradeOnSignin; then only after a reset.
            let oldSignIn = try await client.post(Self.v1 + "/accounts:signInWithPassword", ["email": "old@example.com", "password": "weakpass"])
            #expect(oldSignIn["idToken"] != nil, "\(oldSignIn.text)")
            var forced = Self.strict
            forced["forceUpgradeOnSignin"] = true
            _ = try await Self.admin(client, app, signer, .patch, Self.config + "?updateMask=passwordPolicyConfig.forceUpgradeOnSignin",
                                     ["passwordPolicyConfig": forced])
            let refused = try await client.post(Self.v1 + "/accounts:signInWithPassword", ["email": "old@example.com", "password": "weakpass"])
            #expect(refused.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "\(refused.text)")
            let wrong = try await client.post(Self.v1 + "/accounts:signInWithPassword", ["email": "old@example.com", "password": "wrongpass"])
            #expect(wrong.errorMessage == "INVALID_LOGIN_CREDENTIALS", "only the one who knows it learns of the policy: \(wrong.text)")
            let reset = try await client.post(Self.v1 + "/accounts:resetPassword", ["oobCode": code, "newPassword": "Upgraded1"])
            #expect(reset["email"] as? String == "old@example.com", "\(reset.text)")
            let upgraded = try await client.post(Self.v1 + "/accounts:signInWithPassword", ["email": "old@example.com", "password": "Upgraded1"])
            #expect(upgraded["idToken"] != nil, "\(upgraded.text)")

            // An administrator's password meets Firebase's minimum only, as Identity Platform's Admin SDK.
            let made = try await Self.admin(client, app, signer, .post, Self.v1 + "/projects/demo-project/accounts",
                                            ["email": "staff@example.com", "password": "staffpass"])
            #expect(made["localId"] != nil, "\(made.text)")

            // Constraints Identity Platform refuses, refused with its code.
            var bad = Self.strict
            bad["passwordPolicyVersions"] = [["customStrengthOptions": ["minPasswordLength": 5]]]
            let invalid = try await Self.admin(client, app, signer, .patch, Self.config + "?updateMask=passwordPolicyConfig",
                                               ["passwordPolicyConfig": bad])
            #expect(invalid.errorMessage?.hasPrefix("INVALID_CONFIG") == true, "\(invalid.text)")
            let off = try await Self.admin(client, app, signer, .patch, Self.config + "?updateMask=passwordPolicyConfig.passwordPolicyEnforcementState",
                                           ["passwordPolicyConfig": ["passwordPolicyEnforcementState": "OFF"]])
            #expect((off["passwordPolicyConfig"] as? [String: Any])?["passwordPolicyEnforcementState"] as? String == "OFF")
            let relaxed = try await client.post(Self.v1 + "/accounts:signUp", ["email": "later@example.com", "password": "password"])
            #expect(relaxed["idToken"] != nil || relaxed["localId"] != nil, "OFF enforces nothing beyond the minimum: \(relaxed.text)")
        }
    }

    /// A tenant's own policy holds its users and is what the SDKs get with its `tenantId`; the project's users keep
    /// the project's.
    @Test func aTenantHasItsOwnPolicy() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            let tenant = "/identitytoolkit.googleapis.com/v2/projects/demo-project/tenants/acme-a1b2c"
            let set = try await Self.admin(client, app, signer, .patch, tenant + "?updateMask=passwordPolicyConfig",
                                           ["passwordPolicyConfig": Self.strict])
            #expect((set["passwordPolicyConfig"] as? [String: Any])?["passwordPolicyEnforcementState"] as? String == "ENFORCE", "\(set.text)")
            let sdk = try await client.send(.get, Self.policy + "?tenantId=acme-a1b2c")
            #expect(sdk["enforcementState"] as? String == "ENFORCE", "\(sdk.text)")
            #expect(try await client.send(.get, Self.policy)["enforcementState"] as? String == "OFF", "the project's stays off")
            let weak = try await client.post(Self.v1 + "/accounts:signUp", ["email": "t@example.com", "password": "password", "tenantId": "acme-a1b2c"])
            #expect(weak.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "\(weak.text)")
            let projectUser = try await client.post(Self.v1 + "/accounts:signUp", ["email": "p@example.com", "password": "password"])
            #expect(projectUser["localId"] != nil, "\(projectUser.text)")
            let recaptcha = try await client.send(.get, "/identitytoolkit.googleapis.com/v2/recaptchaConfig?tenantId=acme-a1b2c&clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE")
            let states = try #require(recaptcha["recaptchaEnforcementState"] as? [[String: String]], "\(recaptcha.text)")
            #expect(states.map { $0["enforcementState"] } == ["OFF", "OFF"] && recaptcha["recaptchaKey"] is String)
            let unknown = try await client.send(.get, Self.policy + "?tenantId=nobody-zzzzz")
            #expect(unknown.errorMessage == "TENANT_NOT_FOUND", "\(unknown.text)")
        }
    }

    /// With a breach list configured, a listed password is refused at sign-up and change (and reset), in words that
    /// say why; others pass. A list that is not there stops the start.
    @Test func breachedPasswordsAreRefused() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString).txt")
        let hashes = ["password123", "iloveyou1"].map { password in
            Insecure.SHA1.hash(data: Data(password.utf8)).map { String(format: "%02X", $0) }.joined() + ":42"
        }.sorted()
        try hashes.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        var app = TestApp()
        app.configuration.breachedPasswords = file.path
        try await app.run { client in
            let listed = try await client.post(Self.v1 + "/accounts:signUp", ["email": "b@example.com", "password": "password123"])
            #expect(listed.errorMessage == "WEAK_PASSWORD : This password has appeared in a data breach; choose another", "\(listed.text)")
            let fine = try await client.signUp("b@example.com", "a fine long passphrase")
            let change = try await client.post(Self.v1 + "/accounts:update", ["idToken": fine["idToken"]!, "password": "iloveyou1"])
            #expect(change.errorMessage?.hasPrefix("WEAK_PASSWORD") == true, "\(change.text)")
        }
        var missing = TestApp()
        missing.configuration.breachedPasswords = "/nonexistent/pwned.txt"
        await #expect(throws: BreachedListError.missing("/nonexistent/pwned.txt")) { try await missing.run { _ in } }
    }
}
