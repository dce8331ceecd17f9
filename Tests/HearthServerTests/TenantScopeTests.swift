import Foundation
import HearthCore
@testable import HearthServer
import HearthWire
import Testing

/// One scope per call: a tenant user's call that carries their credential but names no tenant runs in that tenant,
/// so every setting of the tenant applies — its password policy, SMS regions, phone CAPTCHA and MFA switch — through
/// each name of each route. Before, such a call ran in the project's scope and skipped them all. A call naming another
/// tenant than its credential's is refused (`TENANT_ID_MISMATCH`).
@Suite struct TenantScopeTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let mfaStart = Endpoints.startMFAEnrollment.path
    static let strict = "strict-t1a2b", open = "open-t3c4d"

    /// The project allows everything (phone, MFA by SMS, any region, no CAPTCHA, no policy). Tenant `strict` has a
    /// password policy and MFA off; tenant `open` has MFA on, an SMS allowlist of GB and phone CAPTCHA enforced.
    static func seeded(_ body: @escaping @Sendable (TestApp, Client, StandInVerifier) async throws -> Void) async throws {
        try await CaptchaGateTests.withProvider { app, _, client, verifier in
            var project = try #require(try await app.store.project(id: "demo-project"))
            project.settings.mfa = MFASettings(state: .enabled, providers: [.phoneSMS])
            _ = try await app.store.updateProject(project)
            var policy = PasswordPolicyConfig(enforcement: .enforce)
            policy.minLength = 12
            var strict = TenantRecord(projectID: "demo-project", id: Self.strict, allowPasswordSignup: true,
                                      enableAnonymousUser: true, mfa: MFASettings(state: .disabled))
            strict.passwordPolicy = policy
            try await app.store.insertTenant(strict)
            var open = TenantRecord(projectID: "demo-project", id: Self.open, allowPasswordSignup: true,
                                    mfa: MFASettings(state: .enabled, providers: [.phoneSMS]))
            open.smsRegions = .allowlistOnly(allowed: ["GB"])
            open.captcha = CaptchaSettings(phone: .enforce)
            try await app.store.insertTenant(open)
            try await body(app, client, verifier)
        }
    }

    /// A verified tenant user's ID token (MFA needs a verified email).
    static func user(_ app: TestApp, _ client: Client, in tenant: String, _ email: String) async throws -> String {
        let created = try await client.post(v1 + "/accounts:signUp",
                                            ["email": email, "password": "long-enough-pass", "tenantId": tenant])
        let localID = try #require(created["localId"] as? String, "\(created.text)")
        var user = try #require(try await app.store.user(projectID: "demo-project", tenantID: tenant, localID: localID))
        user.emailVerified = true
        _ = try await app.store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false)
        let signedIn = try await client.post(v1 + "/accounts:signInWithPassword",
                                             ["email": email, "password": "long-enough-pass", "tenantId": tenant])
        return try #require(signedIn["idToken"] as? String, "\(signedIn.text)")
    }

    @Test func aPasswordChangeFollowsTheTokensTenantsPolicyByEveryName() async throws {
        try await Self.seeded { app, client, _ in
            let idToken = try await Self.user(app, client, in: Self.strict, "ada@example.com")
            for path in [Self.v1 + "/accounts:update", Self.v3 + "/setAccountInfo"] {
                for named in [nil, Self.strict] as [String?] {
                    var body: [String: Any] = ["idToken": idToken, "password": "short-pass"]
                    body["tenantId"] = named
                    let refused = try await client.post(path, body)
                    #expect(refused.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true,
                            "\(path), tenantId \(named ?? "none"): \(refused.text)")
                }
                let elsewhere = try await client.post(path, ["idToken": idToken, "password": "short-pass", "tenantId": Self.open])
                #expect(elsewhere.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(path): \(elsewhere.text)")
            }
            let fine = try await client.post(Self.v1 + "/accounts:update", ["idToken": idToken, "password": "a-long-new-pass"])
            #expect(fine.status == 200, "\(fine.text)")
        }
    }

    @Test func linkingAnAnonymousTenantUserFollowsItsPolicy() async throws {
        try await Self.seeded { app, client, _ in
            for path in [Self.v1 + "/accounts:signUp", Self.v3 + "/signupNewUser"] {
                let anonymous = try await client.post(path, ["tenantId": Self.strict, "returnSecureToken": true])
                let idToken = try #require(anonymous["idToken"] as? String, "\(anonymous.text)")
                let refused = try await client.post(path, ["idToken": idToken, "email": "anon@example.com", "password": "short-pass"])
                #expect(refused.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true, "\(path): \(refused.text)")
                let viaUpdate = try await client.post(Self.v1 + "/accounts:update",
                                                      ["idToken": idToken, "email": "anon@example.com", "password": "short-pass"])
                #expect(viaUpdate.errorMessage?.hasPrefix("PASSWORD_DOES_NOT_MEET_REQUIREMENTS") == true
                        || viaUpdate.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(viaUpdate.text)")
            }
        }
    }

    @Test func enrollingASecondFactorFollowsTheTokensTenant() async throws {
        try await Self.seeded { app, client, verifier in
            let phone: [String: Any] = ["phoneNumber": "+16505550123"]
            // The strict tenant has MFA off; the project has it on.
            let strictToken = try await Self.user(app, client, in: Self.strict, "grace@example.com")
            let off = try await client.post(Self.mfaStart, ["idToken": strictToken, "phoneEnrollmentInfo": phone])
            #expect(off.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true && off.text.contains("MFA"), "\(off.text)")
            // The open tenant enforces phone CAPTCHA, which the project does not.
            let openToken = try await Self.user(app, client, in: Self.open, "lin@example.com")
            let noToken = try await client.post(Self.mfaStart, ["idToken": openToken, "phoneEnrollmentInfo": phone])
            #expect(noToken.errorMessage == "MISSING_RECAPTCHA_TOKEN", "\(noToken.text)")
            // Its allowlist is GB only: a US number is refused, a GB one is sent.
            let region = try await client.post(Self.mfaStart, ["idToken": openToken,
                                                               "phoneEnrollmentInfo": phone.merging(["recaptchaToken": "human-1"]) { $1 }])
            #expect(region.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true && region.text.contains("region"), "\(region.text)")
            #expect(verifier.received.last?["response"] == "human-1")
            let sent = try await client.post(Self.mfaStart, ["idToken": openToken, "phoneEnrollmentInfo": [
                "phoneNumber": "+447700900123", "recaptchaToken": "human-2"]])
            #expect((sent["phoneSessionInfo"] as? [String: Any])?["sessionInfo"] != nil, "\(sent.text)")
            // Its session names the tenant: finishing with no tenantId runs there, and another tenant is refused.
            let session = try #require((sent["phoneSessionInfo"] as? [String: Any])?["sessionInfo"] as? String)
            #expect(ScopedSecret.tenant(of: session) == Self.open)
            let mismatch = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": openToken, "tenantId": Self.strict,
                "phoneVerificationInfo": ["sessionInfo": session, "code": "000000"]])
            #expect(mismatch.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(mismatch.text)")
        }
    }

    /// The tenant's sign-in switches apply to a call that carries its token: linking an email and password to an
    /// anonymous user of a tenant where password sign-up is off is refused, named or not.
    @Test func theTokensTenantsSwitchesApply() async throws {
        try await Self.seeded { app, client, _ in
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "nopass-t5e6f", allowPasswordSignup: false,
                                                          enableAnonymousUser: true))
            let anonymous = try await client.post(Self.v1 + "/accounts:signUp", ["tenantId": "nopass-t5e6f", "returnSecureToken": true])
            let idToken = try #require(anonymous["idToken"] as? String, "\(anonymous.text)")
            for named in [nil, "nopass-t5e6f"] as [String?] {
                var body: [String: Any] = ["idToken": idToken, "email": "nopass@example.com", "password": "long-enough-pass"]
                body["tenantId"] = named
                let refused = try await client.post(Self.v1 + "/accounts:signUp", body)
                #expect(refused.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(named ?? "none"): \(refused.text)")
            }
        }
    }

    /// The tenant's email privacy applies to a call that carries its token: the project has it on (a new production
    /// project's default), so an email change there needs a verification email; the tenant has it off, so its user's
    /// change is made in place, named or not.
    @Test func theTokensTenantsEmailPrivacyApplies() async throws {
        try await Self.seeded { app, client, _ in
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "open-mail-t7g8h", allowPasswordSignup: true))
            let projectToken = try #require(try await client.signUp("plain@example.com")["idToken"] as? String)
            let refused = try await client.post(Self.v1 + "/accounts:update", ["idToken": projectToken, "email": "plain2@example.com"])
            #expect(refused.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "the project's privacy is on: \(refused.text)")
            for (index, named) in ([nil, "open-mail-t7g8h"] as [String?]).enumerated() {
                let idToken = try await Self.user(app, client, in: "open-mail-t7g8h", "mail\(index)@example.com")
                var body: [String: Any] = ["idToken": idToken, "email": "changed\(index)@example.com"]
                body["tenantId"] = named
                let changed = try await client.post(Self.v1 + "/accounts:update", body)
                #expect(changed.status == 200, "\(named ?? "none"): \(changed.text)")
            }
        }
    }

    /// A tenant's events carry it, into the audit log and the webhooks built from it.
    @Test func eventsNameTheirTenant() async throws {
        try await Self.seeded { app, client, _ in
            _ = try await Self.user(app, client, in: Self.strict, "eve@example.com")
            let events = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["sign-up", "sign-in"], limit: 10))
            #expect(events.count == 2 && events.allSatisfy { $0.tenantID == Self.strict }, "\(events.map { ($0.kind, $0.tenantID) })")
            let localID = try #require(try await client.signUp("project@example.com")["localId"] as? String)
            let project = try await app.store.auditEvents(projectID: "demo-project", AuditQuery(localID: localID, kinds: ["sign-up"]))
            #expect(project.count == 1 && project.first?.tenantID == nil, "the project's own: \(project)")
        }
    }

    /// The byte-level peek at a token's tenant reads what a full parse reads.
    @Test func aTokensTenantIsReadWithoutVerifyingIt() throws {
        func token(_ claims: String) -> String { "e30." + Base64URL.encode(Array(claims.utf8)) + ".sig" }
        #expect(IDTokenPeek.tenant(of: token(#"{"sub":"u","firebase":{"tenant":"acme-a1b2c"}}"#)) == .some("acme-a1b2c"))
        #expect(IDTokenPeek.tenant(of: token(#"{"sub":"u","firebase":{"sign_in_provider":"password"}}"#)) == .some(nil))
        #expect(IDTokenPeek.tenant(of: token(#"{"sub":"u","tenant":"claimed","firebase":{}}"#)) == .some(nil),
                "a custom claim named tenant is not the token's tenant")
        #expect(IDTokenPeek.tenant(of: "not-a-token") == nil)
        #expect(IDTokenPeek.tenant(of: "a.!!!.b") == nil)
        #expect(IDTokenPeek.mentionsTenant(Data(#"x"tenant""#.utf8)) && !IDTokenPeek.mentionsTenant(Data(#""tenan""#.utf8)))
    }

    /// Credentials of two tenants in one call are refused, whichever the body names.
    @Test func credentialsOfTwoTenantsAreRefused() async throws {
        try await Self.seeded { app, client, _ in
            let strictToken = try await Self.user(app, client, in: Self.strict, "mia@example.com")
            let reply = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": strictToken, "phoneVerificationInfo": ["sessionInfo": "abc.\(Self.open)", "code": "000000"]])
            #expect(reply.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(reply.text)")
        }
    }
}
