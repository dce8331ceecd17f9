import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// Multi-factor (SMS and TOTP) through the router, against the emulator's captures.
@Suite struct MFARoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v2 = "/identitytoolkit.googleapis.com/v2"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// A password user with a verified email, signed in: (localId, idToken).
    static func verifiedUser(_ client: Client, _ email: String = "mfa@example.com") async throws -> (String, String) {
        let user = try await client.signUp(email, "secret123")
        let id = user["localId"] as! String
        try await client.post("\(v1)/projects/demo-project/accounts:update", ["localId": id, "emailVerified": true],
                              key: nil, headers: owner)
        let signedIn = try await client.post(Endpoints.signInWithPassword.path, ["email": email, "password": "secret123"])
        return (id, signedIn["idToken"] as! String)
    }

    static func lastCode(_ client: Client) async throws -> (code: String, sessionInfo: String) {
        let list = try await client.send(.get, "/emulator/v1/projects/demo-project/verificationCodes", key: nil)
        let last = try #require((list["verificationCodes"] as? [[String: Any]])?.last)
        return (last["code"] as! String, last["sessionInfo"] as! String)
    }

    static func secondFactor(_ token: String) throws -> (String?, String?) {
        let firebase = try decodeJWT(token)["firebase"] as? [String: Any]
        return (firebase?["sign_in_second_factor"] as? String, firebase?["second_factor_identifier"] as? String)
    }

    /// Guessing SMS codes through fresh pending credentials: the fifth wrong code in a row locks the factor, and
    /// then even the right code is refused.
    @Test func wrongSMSCodesAcrossPendingCredentialsLockThePhoneFactor() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let (_, idToken) = try await Self.verifiedUser(client)
            _ = try await client.post(Endpoints.startMFAEnrollment.path,
                                      ["idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": "+15555550177"]])
            let sms = try await Self.lastCode(client)
            let enrolled = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": idToken, "phoneVerificationInfo": ["sessionInfo": sms.sessionInfo, "code": sms.code]])
            let enrollmentID = try #require(try Self.secondFactor(enrolled["idToken"] as! String).1)
            func challenge() async throws -> (pending: String, code: String, sessionInfo: String) {
                let first = try await client.post(Endpoints.signInWithPassword.path,
                                                  ["email": "mfa@example.com", "password": "secret123"])
                let pending = try #require(first["mfaPendingCredential"] as? String)
                _ = try await client.post(Endpoints.startMFASignIn.path, [
                    "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentID, "phoneSignInInfo": [:]])
                let sent = try await Self.lastCode(client)
                return (pending, sent.code, sent.sessionInfo)
            }
            var answers: [String] = []
            for _ in 0..<MFAEnrollment.maximumFailures {
                let next = try await challenge()
                let wrong = try await client.post(Endpoints.finalizeMFASignIn.path, [
                    "mfaPendingCredential": next.pending,
                    "phoneVerificationInfo": ["sessionInfo": next.sessionInfo, "code": next.code == "000000" ? "111111" : "000000"]])
                answers.append(wrong.errorMessage ?? "")
            }
            #expect(answers.dropLast().allSatisfy { $0 == "INVALID_CODE" } && answers.last?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true,
                    "\(answers)")
            let locked = try await challenge()
            let right = try await client.post(Endpoints.finalizeMFASignIn.path, [
                "mfaPendingCredential": locked.pending,
                "phoneVerificationInfo": ["sessionInfo": locked.sessionInfo, "code": locked.code]])
            #expect(right.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "locked: \(right.text)")
        }
    }

    @Test func phoneEnrollmentAndSecondFactorSignInFollowTheEmulatorsShapes() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let (_, idToken) = try await Self.verifiedUser(client)
            let start = try await client.post(Endpoints.startMFAEnrollment.path,
                                              ["idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": "+15555550123"]])
            expectSameShape(try start.object(), try Fixture("mfaEnrollment-start-phone").body)
            let sms = try await Self.lastCode(client)
            #expect(sms.code.count == 6)
            let listed = try await client.send(.get, "/emulator/v1/projects/demo-project/verificationCodes", key: nil)
            expectSameShape(try listed.object(), try Fixture("emulator-verificationCodes-list").body)

            let finalized = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": idToken, "displayName": "Work phone",
                "phoneVerificationInfo": ["sessionInfo": sms.sessionInfo, "code": sms.code]])
            #expect(finalized.status == 200, "\(finalized.text)")
            expectSameShape(try finalized.object(), try Fixture("mfaEnrollment-finalize-phone").body)
            let enrolledToken = try #require(finalized["idToken"] as? String)
            let (factor, enrollmentID) = try Self.secondFactor(enrolledToken)
            #expect(factor == "phone" && enrollmentID != nil)

            let lookup = try await client.post(Endpoints.lookup.path, ["idToken": enrolledToken])
            expectSameShape(try lookup.object(), try Fixture("lookup-user-with-mfa").body,
                            ignoring: ["salt", "passwordHash", "lastRefreshAt"])

            // A password sign-in now stops at the first factor.
            let first = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "mfa@example.com", "password": "secret123"])
            #expect(first.status == 200 && first["idToken"] == nil)
            let pending = try #require(first["mfaPendingCredential"] as? String)
            let info = try #require((first["mfaInfo"] as? [[String: Any]])?.first)
            #expect(info["phoneInfo"] as? String == "+*******0123" && info["mfaEnrollmentId"] as? String == enrollmentID)

            let signInStart = try await client.post(Endpoints.startMFASignIn.path, [
                "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentID!,
                "phoneSignInInfo": ["recaptchaToken": "fake-recaptcha-token"]])
            expectSameShape(try signInStart.object(), try Fixture("mfaSignIn-start-phone").body)
            let challenge = try await Self.lastCode(client)
            let wrong = try await client.post(Endpoints.finalizeMFASignIn.path, [
                "mfaPendingCredential": pending,
                "phoneVerificationInfo": ["sessionInfo": challenge.sessionInfo, "code": challenge.code == "000000" ? "111111" : "000000"]])
            #expect(wrong.errorMessage == "INVALID_CODE")
            let done = try await client.post(Endpoints.finalizeMFASignIn.path, [
                "mfaPendingCredential": pending,
                "phoneVerificationInfo": ["sessionInfo": challenge.sessionInfo, "code": challenge.code]])
            #expect(done.status == 200, "\(done.text)")
            expectSameShape(try done.object(), try Fixture("mfaSignIn-finalize-phone").body)
            #expect(try Self.secondFactor(done["idToken"] as! String).0 == "phone")
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": done["refreshToken"]!])
            #expect(try Self.secondFactor(refreshed["id_token"] as! String).0 == "phone", "refresh keeps the claims")
            let reused = try await client.post(Endpoints.finalizeMFASignIn.path, [
                "mfaPendingCredential": pending,
                "phoneVerificationInfo": ["sessionInfo": challenge.sessionInfo, "code": challenge.code]])
            #expect(reused.errorMessage == "INVALID_MFA_PENDING_CREDENTIAL", "a pending credential is single use")

            let withdrawn = try await client.post(Endpoints.withdrawMFA.path,
                                                  ["idToken": done["idToken"]!, "mfaEnrollmentId": enrollmentID!])
            expectSameShape(try withdrawn.object(), try Fixture("mfaEnrollment-withdraw").body)
            #expect(try Self.secondFactor(withdrawn["idToken"] as! String).0 == nil)
            // Firebase's emulator shows the emptied list, and its tests read it; the session that withdrew goes on.
            let after = try await client.post(Endpoints.lookup.path, ["idToken": done["idToken"]!])
            #expect(((after["users"] as? [[String: Any]])?.first?["mfaInfo"] as? [Any])?.isEmpty == true, "\(after.text)")
            let plain = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "mfa@example.com", "password": "secret123"])
            #expect(plain["idToken"] is String, "no second factor left")
        }
    }

    @Test func totpEnrollmentAndSignInWithReplayAndAttemptLimits() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let (localID, idToken) = try await Self.verifiedUser(client, "totp@example.com")
            let start = try await client.post(Endpoints.startMFAEnrollment.path, ["idToken": idToken, "totpEnrollmentInfo": [:]])
            let session = try #require(start["totpSessionInfo"] as? [String: Any], "\(start.text)")
            #expect(session["hashingAlgorithm"] as? String == "SHA1" && session["periodSec"] as? Int == 30
                    && session["verificationCodeLength"] as? Int == 6)
            let secret = try #require(Base32.decode(session["sharedSecretKey"] as! String))
            #expect(secret.count == 20)
            let now = app.clock.now()
            let finalized = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": idToken, "displayName": "Authenticator",
                "totpVerificationInfo": ["sessionInfo": session["sessionInfo"]!, "verificationCode": TOTP.code(secret: secret, at: now)]])
            #expect(finalized.status == 200, "\(finalized.text)")
            let (factor, enrollmentID) = try Self.secondFactor(finalized["idToken"] as! String)
            #expect(factor == "totp")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: localID))
            #expect(stored.enrollments.first?.totpSecret == session["sharedSecretKey"] as? String)

            func pending() async throws -> String {
                let reply = try await client.post(Endpoints.signInWithPassword.path,
                                                  ["email": "totp@example.com", "password": "secret123"])
                return try #require(reply["mfaPendingCredential"] as? String, "\(reply.text)")
            }
            func finalize(_ credential: String, _ code: String) async throws -> Reply {
                try await client.post(Endpoints.finalizeMFASignIn.path, [
                    "mfaPendingCredential": credential, "mfaEnrollmentId": enrollmentID!,
                    "totpVerificationInfo": ["verificationCode": code]])
            }
            // The code used to enroll cannot be used again; the next period's can.
            let credential = try await pending()
            #expect(try await finalize(credential, TOTP.code(secret: secret, at: now)).errorMessage == "INVALID_CODE")
            app.clock.advance(by: 30)
            let ok = try await finalize(credential, TOTP.code(secret: secret, at: app.clock.now()))
            #expect(ok.status == 200, "\(ok.text)")
            let okFactor = try Self.secondFactor(try #require(ok["idToken"] as? String)).0
            #expect(okFactor == "totp")

            let guessed = try await pending()
            for _ in 1..<5 { #expect(try await finalize(guessed, "000000").errorMessage == "INVALID_CODE") }
            #expect(try await finalize(guessed, "000000").errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
            app.clock.advance(by: 30)
            #expect(try await finalize(guessed, TOTP.code(secret: secret, at: app.clock.now())).errorMessage
                    == "INVALID_MFA_PENDING_CREDENTIAL", "five wrong codes destroy the pending credential")

            app.clock.advance(by: 601)
            let expired = try await pending()
            app.clock.advance(by: 601)
            #expect(try await finalize(expired, TOTP.code(secret: secret, at: app.clock.now())).errorMessage
                    == "INVALID_MFA_PENDING_CREDENTIAL", "pending credentials expire")
        }
    }

    @Test func enrollmentRules() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let unverified = try await client.signUp("unverified@example.com")
            let fixture = try Fixture("mfaEnrollment-start-unverified-email")
            let refused = try await client.post(fixture.path, ["idToken": unverified["idToken"]!,
                                                               "phoneEnrollmentInfo": ["phoneNumber": "+15555550123"]])
            #expect(refused.errorMessage == ((fixture.body as! [String: Any])["error"] as! [String: Any])["message"] as? String)
            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            #expect(try await client.post(Endpoints.startMFAEnrollment.path, [
                "idToken": anonymous["idToken"]!, "totpEnrollmentInfo": [:]]).errorMessage?.hasPrefix("UNSUPPORTED_FIRST_FACTOR") == true)

            var (localID, idToken) = try await Self.verifiedUser(client)
            for index in 0..<5 {
                _ = try await client.post(Endpoints.startMFAEnrollment.path, [
                    "idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": "+1555555010\(index)"]])
                let sms = try await Self.lastCode(client)
                let done = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                    "idToken": idToken, "phoneVerificationInfo": ["sessionInfo": sms.sessionInfo, "code": sms.code]])
                #expect(done.status == 200, "\(done.text)")
                idToken = try #require(done["idToken"] as? String, "each enrollment ends older sessions: go on with its own")
            }
            let duplicate = try await client.post(Endpoints.startMFAEnrollment.path, [
                "idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": "+15555550100"]])
            #expect(duplicate.errorMessage?.hasPrefix("SECOND_FACTOR_LIMIT_EXCEEDED") == true, "\(duplicate.text)")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: localID))
            #expect(stored.enrollments.count == 5)

            let (_, other) = try await Self.verifiedUser(client, "other@example.com")
            let notTheirs = try await client.post(Endpoints.withdrawMFA.path,
                                                  ["idToken": other, "mfaEnrollmentId": stored.enrollments[0].id])
            #expect(notTheirs.errorMessage == "MFA_ENROLLMENT_NOT_FOUND")
            let badSession = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": other, "phoneVerificationInfo": ["sessionInfo": "forged", "code": "123456"]])
            #expect(badSession.errorMessage == "INVALID_SESSION_INFO")
        }
    }

    @Test func productionNeedsMFAEnabledAndLimitsSMS() async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.run { client in
            let user = try await client.signUp("prod-mfa@example.com")
            let disabled = try await client.post(Endpoints.startMFAEnrollment.path,
                                                 ["idToken": user["idToken"]!, "totpEnrollmentInfo": [:]])
            #expect(disabled.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true)
            let patch = try await client.send(.patch, "\(Self.v2)/projects/demo-project/config?updateMask=mfa.state,mfa.enabledProviders,signIn.phoneNumber.testPhoneNumbers",
                                              ["mfa": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]],
                                               "signIn": ["phoneNumber": ["testPhoneNumbers": ["+15555550999": "123456"]]]],
                                              key: nil, headers: CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: app.clock.now())))
            #expect(patch.status == 200, "\(patch.text)")
            #expect((patch["mfa"] as? [String: Any])?["state"] as? String == "ENABLED")

            // Test numbers get their fixed code and no SMS.
            let test = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": "+15555550999"])
            let signedIn = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                                 ["sessionInfo": test["sessionInfo"]!, "code": "123456"])
            #expect(signedIn["isNewUser"] as? Bool == true && signedIn["phoneNumber"] as? String == "+15555550999")
            #expect(app.sms.messages.isEmpty)

            for _ in 0..<5 {
                let sent = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": "+15555550100"])
                #expect(sent.status == 200)
            }
            #expect(app.sms.messages.count == 5 && app.sms.messages.allSatisfy { $0.code.count == 6 })
            let pumped = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": "+15555550100"])
            #expect(pumped.errorMessage == "QUOTA_EXCEEDED", "a sixth SMS to one number within the hour")
            app.sms.fail(true)
            let down = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": "+15555550101"])
            #expect(down.status == 503 && down.text.contains("UNAVAILABLE"), "a provider failure is a 503, not a 500")
            app.sms.fail(false)
            let stored = try await app.store.pending(projectID: "demo-project",
                                                     digest: storageDigest(test["sessionInfo"] as! String), now: .distantPast)
            #expect(stored == nil, "a used session is gone")
        }
    }

    @Test func totpMatchesRFC6238() {
        // RFC 6238 appendix B, SHA-1 seed "12345678901234567890": the last 6 digits of its 8-digit vectors.
        let secret = Data("12345678901234567890".utf8)
        let vectors: [(TimeInterval, String)] = [(59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"),
                                                 (1_234_567_890, "005924"), (2_000_000_000, "279037")]
        for (time, code) in vectors {
            #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: time)) == code)
        }
        #expect(Base32.encode(secret) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == secret)
    }
}

/// Second factors given by administrators: import (`mfaInfo`), create, and `mfa.enrollments` updates.
@Suite struct AdminMFATests {
    static let base = "/identitytoolkit.googleapis.com/v1/projects/demo-project"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    @Test func importedAndAdminSetFactorsAreChallengedAtSignIn() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let imported = try await client.post("\(Self.base)/accounts:batchCreate", ["users": [
                ["localId": "imp-mfa", "email": "imp@example.com", "emailVerified": true,
                 "mfaInfo": [["mfaEnrollmentId": "f1", "displayName": "Phone", "phoneInfo": "+15555550111",
                              "enrolledAt": "2025-01-02T03:04:05Z"]]],
                ["localId": "imp-bad", "mfaInfo": [["phoneInfo": "not-a-number"]]],
            ]], key: nil, headers: Self.owner)
            #expect((imported["error"] as? [[String: Any]])?.map { $0["index"] as! Int } == [1], "\(imported.text)")
            let stored = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "imp-mfa"))
            #expect(stored.enrollments.map(\.id) == ["f1"] && stored.enrollments[0].phoneNumber == "+15555550111")
            #expect(stored.enrollments[0].enrolledAt == Date(timeIntervalSince1970: 1_735_787_045))

            let lookup = try await client.post("\(Self.base)/accounts:lookup", ["localId": ["imp-mfa"]], key: nil, headers: Self.owner)
            let info = try #require(((lookup["users"] as? [[String: Any]])?.first?["mfaInfo"] as? [[String: Any]])?.first)
            #expect(info["phoneInfo"] as? String == "+15555550111" && info["mfaEnrollmentId"] as? String == "f1")

            try await client.post("\(Self.base)/accounts", ["localId": "made", "email": "made@example.com", "password": "secret123",
                                                           "mfaInfo": [["phoneInfo": "+15555550112"]]], key: nil, headers: Self.owner)
            let challenged = try await client.post(Endpoints.signInWithPassword.path,
                                                   ["email": "made@example.com", "password": "secret123"])
            #expect(challenged["mfaPendingCredential"] is String && challenged["idToken"] == nil)

            let replaced = try await client.post("\(Self.base)/accounts:update", [
                "localId": "made", "mfa": ["enrollments": [["phoneInfo": "+15555550113", "displayName": "New", "mfaEnrollmentId": "n1"],
                                                           ["phoneInfo": "+15555550114", "mfaEnrollmentId": "n2"],
                                                           ["phoneInfo": "+15555550114", "mfaEnrollmentId": "n3"]]]],
                key: nil, headers: Self.owner)
            #expect(replaced.status == 200, "\(replaced.text)")
            let made = try #require(try await app.store.user(projectID: "demo-project", tenantID: nil, localID: "made"))
            #expect(made.enrollments.compactMap(\.phoneNumber) == ["+15555550113", "+15555550114"], "a number twice counts once")
            #expect(made.enrollments.map(\.id) == ["n1", "n2"])
            let sameID = try await client.post("\(Self.base)/accounts:update", [
                "localId": "made", "mfa": ["enrollments": [["phoneInfo": "+15555550113", "mfaEnrollmentId": "x"],
                                                           ["phoneInfo": "+15555550115", "mfaEnrollmentId": "x"]]]],
                                               key: nil, headers: Self.owner)
            #expect(sameID.errorMessage == "DUPLICATE_MFA_ENROLLMENT_ID", "\(sameID.text)")
            let noID = try await client.post("\(Self.base)/accounts:update", [
                "localId": "made", "mfa": ["enrollments": [["phoneInfo": "+15555550113"]]]], key: nil, headers: Self.owner)
            #expect(noID.errorMessage == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.", "emulator mode, as the emulator")
            try await client.post("\(Self.base)/accounts:update", ["localId": "made", "mfa": ["enrollments": []]],
                                  key: nil, headers: Self.owner)
            let plain = try await client.post(Endpoints.signInWithPassword.path,
                                              ["email": "made@example.com", "password": "secret123"])
            #expect(plain["idToken"] is String, "an empty list removes every factor")
        }
    }
}
