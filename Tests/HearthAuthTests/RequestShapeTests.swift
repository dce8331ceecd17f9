import Foundation
@testable import HearthAuth
import HearthTestSupport
import HearthWire
import Testing

/// Every call the SDK makes, checked against the Identity Toolkit / Secure Token shapes (path, key, body fields).
@Suite struct RequestShapeTests {
    @Test func emailPasswordCallsAndTheirBodies() async throws {
        let transport = standardServer()
        let auth = makeAuth(transport)
        let created = try await auth.createUser(withEmail: "ada@example.com", password: "s3cret!")
        #expect(created.additionalUserInfo?.isNewUser == true && created.additionalUserInfo?.providerID == "password")
        let signUp = try #require(transport.requests(to: Endpoints.signUp.path).first)
        #expect(signUp.request.url.query == "key=test-key")
        #expect(signUp.body["email"] as? String == "ada@example.com" && signUp.body["password"] as? String == "s3cret!")
        #expect(signUp.body["returnSecureToken"] as? Bool == true)
        #expect(signUp.request.headers["Content-Type"] == "application/json")

        _ = try await auth.signIn(withEmail: "ada@example.com", password: "s3cret!")
        let signIn = try #require(transport.requests(to: "accounts:signInWithPassword").first)
        #expect(signIn.body["email"] as? String == "ada@example.com" && signIn.body["returnSecureToken"] as? Bool == true)
        let lookup = try #require(transport.requests(to: "accounts:lookup").last)
        #expect(lookup.body["idToken"] as? String != nil, "a sign-in reads the account with its new ID token")
        #expect(auth.currentUser?.uid == "uid-1" && auth.currentUser?.email == "ada@example.com")
        #expect(auth.currentUser?.providerData.map(\.providerID) == ["password"])
        #expect(auth.currentUser?.metadata.creationDate == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func anonymousCustomTokenAndEmailLink() async throws {
        let transport = standardServer(email: nil, provider: "anonymous")
        let auth = makeAuth(transport)
        let guest = try await auth.signInAnonymously()
        #expect(transport.requests(to: "accounts:signUp").first?.body.keys.sorted() == ["returnSecureToken"])
        #expect(guest.additionalUserInfo?.isNewUser == true && guest.user.isAnonymous)
        // Already anonymous: the same user, no call.
        let count = transport.requests.count
        _ = try await auth.signInAnonymously()
        #expect(transport.requests.count == count)

        _ = try await auth.signIn(withCustomToken: "custom.jwt.token")
        #expect(transport.requests(to: "accounts:signInWithCustomToken").first?.body["token"] as? String == "custom.jwt.token")

        let link = "http://127.0.0.1:9099/emulator/action?mode=signIn&oobCode=CODE123&apiKey=test-key"
        #expect(auth.isSignIn(withEmailLink: link))
        #expect(!auth.isSignIn(withEmailLink: "http://x/?mode=resetPassword&oobCode=A"))
        _ = try await auth.signIn(withEmail: "ada@example.com", link: link)
        let body = try #require(transport.requests(to: "accounts:signInWithEmailLink").first?.body)
        #expect(body["oobCode"] as? String == "CODE123" && body["email"] as? String == "ada@example.com")
    }

    @Test func oobCodeCalls() async throws {
        let transport = standardServer { path, body in
            guard path.hasSuffix("accounts:resetPassword") else { return nil }
            return (200, ["kind": "x", "requestType": "PASSWORD_RESET", "email": "ada@example.com"])
        }
        let auth = makeAuth(transport)
        auth.languageCode = "fr"
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://app.example.com/finish")
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.app")
        try await auth.sendSignInLink(toEmail: "ada@example.com", actionCodeSettings: settings)
        try await auth.sendPasswordReset(withEmail: "ada@example.com")
        let sent = transport.requests(to: "accounts:sendOobCode")
        #expect(sent.map { $0.body["requestType"] as? String } == ["EMAIL_SIGNIN", "PASSWORD_RESET"])
        #expect(sent[0].body["continueUrl"] as? String == "https://app.example.com/finish")
        #expect(sent[0].body["canHandleCodeInApp"] as? Bool == true && sent[0].body["iOSBundleId"] as? String == "com.example.app")
        #expect(sent.allSatisfy { $0.request.headers["X-Firebase-Locale"] == "fr" }, "languageCode travels as X-Firebase-Locale")

        let notInApp = ActionCodeSettings()
        await #expect(throws: NSError.self) { try await auth.sendSignInLink(toEmail: "a@b.c", actionCodeSettings: notInApp) }

        #expect(try await auth.verifyPasswordResetCode("RESET1") == "ada@example.com")
        let info = try await auth.checkActionCode("RESET1")
        #expect(info.operation == .passwordReset && info.email == "ada@example.com")
        try await auth.confirmPasswordReset(withCode: "RESET1", newPassword: "n3w-pass")
        let resets = transport.requests(to: "accounts:resetPassword")
        #expect(resets.last?.body["oobCode"] as? String == "RESET1" && resets.last?.body["newPassword"] as? String == "n3w-pass")
        #expect(resets.first?.body["newPassword"] == nil, "checking a code does not use it up")
        try await auth.applyActionCode("VERIFY1")
        #expect(transport.requests(to: "accounts:update").first?.body["oobCode"] as? String == "VERIFY1")
    }

    @Test func userCalls() async throws {
        let transport = standardServer()
        let auth = makeAuth(transport)
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "s3cret!").user
        let change = user.createProfileChangeRequest()
        change.displayName = "Ada"
        change.photoURL = URL(string: "https://example.com/ada.png")
        try await change.commitChanges()
        try await user.updatePassword(to: "n3w-pass")
        try await user.updateEmail(to: "new@example.com")
        try await user.sendEmailVerification()
        try await user.sendEmailVerification(beforeUpdatingEmail: "newer@example.com")
        try await user.unlink(fromProvider: "password")
        let updates = transport.requests(to: "accounts:update").map(\.body)
        #expect(updates[0]["displayName"] as? String == "Ada" && updates[0]["photoUrl"] as? String == "https://example.com/ada.png")
        #expect(updates[1]["password"] as? String == "n3w-pass")
        #expect(updates[2]["email"] as? String == "new@example.com")
        #expect(updates[3]["deleteProvider"] as? [String] == ["password"])
        #expect(updates.allSatisfy { $0["idToken"] is String })
        let oob = transport.requests(to: "accounts:sendOobCode").map(\.body)
        #expect(oob[0]["requestType"] as? String == "VERIFY_EMAIL")
        #expect(oob[1]["requestType"] as? String == "VERIFY_AND_CHANGE_EMAIL" && oob[1]["newEmail"] as? String == "newer@example.com")

        let remove = user.createProfileChangeRequest()
        remove.displayName = nil
        try await remove.commitChanges()
        #expect(transport.requests(to: "accounts:update").last?.body["deleteAttribute"] as? [String] == ["DISPLAY_NAME"])

        await #expect(throws: NSError.self) { try await user.unlink(fromProvider: "github.com") }
        // Before deleting an account that signed in with Apple: revoke its Apple token (v2, tokenType CODE: the enum
        // by name, which Google's JSON mapping takes as it takes the iOS SDK's number 3).
        try await auth.revokeToken(withAuthorizationCode: "c0de")
        let revoke = try #require(transport.requests(to: "/identitytoolkit.googleapis.com/v2/accounts:revokeToken").first?.body)
        #expect(revoke["providerId"] as? String == "apple.com" && revoke["tokenType"] as? String == "CODE"
                && revoke["token"] as? String == "c0de" && revoke["idToken"] is String)
        try await user.delete()
        #expect(transport.requests(to: "accounts:delete").first?.body["idToken"] is String)
        #expect(auth.currentUser == nil)
        try await auth.revokeToken(withAuthorizationCode: "c0de")
        #expect(transport.requests(to: "accounts:revokeToken").count == 1, "signed out: nothing to revoke, as in FirebaseAuth")
    }

    @Test func idpCredentialsBecomePostBodies() async throws {
        let transport = standardServer { path, body in
            guard path.hasSuffix("accounts:signInWithIdp") else { return nil }
            return (200, ["providerId": "google.com", "federatedId": "g-1", "oauthIdToken": "idt", "oauthAccessToken": "at",
                          "rawUserInfo": #"{"name":"Ada"}"#, "isNewUser": true, "idToken": fakeIDToken(uid: "uid-1"),
                          "refreshToken": "r", "expiresIn": "3600", "localId": "uid-1"])
        }
        let auth = makeAuth(transport)
        let result = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "g.id.token", accessToken: "g-access"))
        #expect(result.additionalUserInfo?.profile?["name"] as? String == "Ada" && result.additionalUserInfo?.isNewUser == true)
        #expect(result.credential?.idToken == "idt" && result.credential?.accessToken == "at")
        _ = try await auth.signIn(with: TwitterAuthProvider.credential(withToken: "tw-token", secret: "tw secret&"))
        _ = try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "apple.jwt", rawNonce: "n0nce",
                                                                      fullName: PersonNameComponents(givenName: "Ada", familyName: "L")))
        let bodies = transport.requests(to: "accounts:signInWithIdp").map(\.body)
        #expect(bodies[0]["postBody"] as? String == "providerId=google.com&id_token=g.id.token&access_token=g-access")
        #expect(bodies[0]["requestUri"] as? String == "http://localhost")
        #expect(bodies[0]["returnIdpCredential"] as? Bool == true && bodies[0]["returnSecureToken"] as? Bool == true)
        #expect(bodies[1]["postBody"] as? String == "providerId=twitter.com&access_token=tw-token&oauth_token_secret=tw%20secret%26")
        let apple = try #require(bodies[2]["postBody"] as? String)
        #expect(apple.hasPrefix("providerId=apple.com&id_token=apple.jwt&nonce=n0nce&user="))
    }

    @Test func phoneAndSecondFactorCalls() async throws {
        let transport = standardServer { path, body in
            switch path {
            case _ where path.hasSuffix("accounts:sendVerificationCode"): return (200, ["sessionInfo": "S1"])
            case _ where path.hasSuffix("mfaEnrollment:start") && body["totpEnrollmentInfo"] != nil:
                return (200, ["totpSessionInfo": ["sharedSecretKey": "JBSWY3DPEHPK3PXP", "verificationCodeLength": 6,
                                                  "hashingAlgorithm": "SHA1", "periodSec": 30, "sessionInfo": "T1",
                                                  "finalizeEnrollmentTime": "2030-01-01T00:00:00Z"]])
            case _ where path.hasSuffix("mfaEnrollment:start"): return (200, ["phoneSessionInfo": ["sessionInfo": "P1"]])
            default: return nil
            }
        }
        let auth = makeAuth(transport)
        // Firebase test setups turn app verification off; Hearth needs none, and the app's handles share the flag.
        #expect(auth.settings?.isAppVerificationDisabledForTesting == false)
        auth.settings?.isAppVerificationDisabledForTesting = true
        #expect(Auth.auth(options: auth.options).settings?.isAppVerificationDisabledForTesting == true)
        let phone = PhoneAuthProvider.provider(auth: auth)
        #expect(try await phone.verifyPhoneNumber("+15555550100", uiDelegate: nil) == "S1")
        _ = try await auth.signIn(with: phone.credential(withVerificationID: "S1", verificationCode: "123456"))
        let signIn = try #require(transport.requests(to: "accounts:signInWithPhoneNumber").first?.body)
        #expect(signIn["sessionInfo"] as? String == "S1" && signIn["code"] as? String == "123456")

        let user = try #require(auth.currentUser)
        let session = try await user.multiFactor.session()
        #expect(try await phone.verifyPhoneNumber("+15555550101", uiDelegate: nil, multiFactorSession: session) == "P1")
        let start = try #require(transport.requests(to: "/v2/accounts/mfaEnrollment:start").first?.body)
        #expect((start["phoneEnrollmentInfo"] as? [String: Any])?["phoneNumber"] as? String == "+15555550101")
        try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(
            with: phone.credential(withVerificationID: "P1", verificationCode: "654321")), displayName: "Work phone")
        let finalize = try #require(transport.requests(to: "mfaEnrollment:finalize").first?.body)
        #expect(finalize["displayName"] as? String == "Work phone")
        #expect((finalize["phoneVerificationInfo"] as? [String: String]) == ["sessionInfo": "P1", "code": "654321"])

        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        #expect(secret.sharedSecretKey() == "JBSWY3DPEHPK3PXP")
        #expect(secret.generateQRCodeURL(withAccountName: "ada@example.com", issuer: "Hearth")
            == "otpauth://totp/Hearth:ada%40example%2Ecom?secret=JBSWY3DPEHPK3PXP&issuer=Hearth&algorithm=SHA1&digits=6&period=30")
        // The authenticator app is opened through the app's UI delegate; anything but an otpauth URL is ignored.
        let opener = RecordingOpener()
        auth.defaultUIDelegate = opener
        secret.openInOTPApp(withQRCodeURL: "https://elsewhere.example/")
        secret.openInOTPApp(withQRCodeURL: "otpauth://totp/Hearth:ada?secret=JBSWY3DPEHPK3PXP")
        #expect(try await opener.first() == "otpauth://totp/Hearth:ada?secret=JBSWY3DPEHPK3PXP")
        #expect(opener.urls.count == 1)
        try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "111111"),
                                          displayName: "App")
        let totp = try #require(transport.requests(to: "mfaEnrollment:finalize").last?.body)
        #expect((totp["totpVerificationInfo"] as? [String: String]) == ["sessionInfo": "T1", "verificationCode": "111111"])
        try await user.multiFactor.unenroll(withFactorUID: "enrollment-1")
        #expect(transport.requests(to: "mfaEnrollment:withdraw").first?.body["mfaEnrollmentId"] as? String == "enrollment-1")
    }

    @Test func aSecondFactorChallengeIsResolvedWithTheResolver() async throws {
        let transport = standardServer { path, body in
            switch path {
            case _ where path.hasSuffix("accounts:signInWithPassword"):
                return (200, ["localId": "uid-1", "mfaPendingCredential": "PENDING",
                              "mfaInfo": [["mfaEnrollmentId": "E-phone", "displayName": "Phone", "phoneInfo": "+*******0100"],
                                          ["mfaEnrollmentId": "E-totp", "displayName": "App", "totpInfo": [:]]]])
            case _ where path.hasSuffix("mfaSignIn:start"): return (200, ["phoneResponseInfo": ["sessionInfo": "M1"]])
            default: return nil
            }
        }
        let auth = makeAuth(transport)
        var resolver: MultiFactorResolver?
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "s3cret!")
        } catch let error as NSError {
            #expect(error.domain == AuthErrorDomain && error.code == AuthErrorCode.secondFactorRequired.rawValue)
            resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        }
        let challenge = try #require(resolver)
        #expect(auth.currentUser == nil, "no tokens before the second factor")
        #expect(challenge.hints.map(\.factorID) == ["phone", "totp"])
        let phoneHint = try #require(challenge.hints[0] as? PhoneMultiFactorInfo)
        #expect(phoneHint.phoneNumber == "+*******0100" && challenge.hints[1] is TOTPMultiFactorInfo)
        let verificationID = try await PhoneAuthProvider.provider(auth: auth)
            .verifyPhoneNumber(with: phoneHint, multiFactorSession: challenge.session)
        #expect(verificationID == "M1")
        let start = try #require(transport.requests(to: "mfaSignIn:start").first?.body)
        #expect(start["mfaPendingCredential"] as? String == "PENDING" && start["mfaEnrollmentId"] as? String == "E-phone")
        _ = try await challenge.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "E-totp",
                                                                                                 oneTimePassword: "222222"))
        let finalize = try #require(transport.requests(to: "mfaSignIn:finalize").first?.body)
        #expect(finalize["mfaEnrollmentId"] as? String == "E-totp")
        #expect((finalize["totpVerificationInfo"] as? [String: String]) == ["verificationCode": "222222"])
        #expect(auth.currentUser?.uid == "uid-1", "the resolver finishes the sign-in")
    }

    @Test func reauthenticatingAMultiFactorUserIsChallengedAndTheResolverFinishesIt() async throws {
        let transport = standardServer { path, body in
            if path.hasSuffix("accounts:signInWithPassword"), body["password"] as? String == "again" {
                return (200, ["localId": "uid-1", "mfaPendingCredential": "PENDING-R",
                              "mfaInfo": [["mfaEnrollmentId": "E-totp", "displayName": "App", "totpInfo": [:]]]])
            }
            if path.hasSuffix("mfaSignIn:finalize") {
                return (200, ["idToken": fakeIDToken(uid: "uid-1"), "refreshToken": "refresh-after-mfa"])
            }
            return nil
        }
        let auth = makeAuth(transport)
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "first").user
        var resolver: MultiFactorResolver?
        do {
            try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "ada@example.com", password: "again"))
            Issue.record("reauthentication skipped the second factor")
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        }
        let result = try await #require(resolver).resolveSignIn(
            with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "E-totp", oneTimePassword: "123456"))
        #expect(result.user === user && auth.currentUser === user, "the same user object, reauthenticated")
        #expect(transport.requests(to: "mfaSignIn:finalize").first?.body["mfaPendingCredential"] as? String == "PENDING-R")
        #expect(user.refreshToken == "refresh-after-mfa", "the user holds the tokens of the second-factor sign-in")
    }
}

/// An ``AuthUIDelegate`` that only remembers what it was asked to open.
final class RecordingOpener: AuthUIDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var opened: [String] = []
    var urls: [String] { lock.withLock { opened } }

    func open(_ url: URL) async throws { lock.withLock { opened.append(url.absoluteString) } }

    /// The first URL opened, once there is one.
    func first() async throws -> String? {
        await eventually { !urls.isEmpty }
        return urls.first
    }
}
