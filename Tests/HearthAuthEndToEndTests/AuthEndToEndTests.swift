import Foundation
import HearthAdmin
@testable import HearthAuth
import HearthWire
import HearthTestSupport
import Testing

/// HearthAuth against a real Hearth server (production mode, SQLite), flow by flow.
/// One test at a time: each starts a server, a mail sink and an identity provider, and the whole suite already runs
/// many such helpers at once on a small machine.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil, "needs authlib and aiosmtpd: \(LiveHearth.unavailableReason ?? "")"),
       .serialized)
struct AuthEndToEndTests {
    static func code(_ error: any Error) -> Int { (error as NSError).code }

    @Test func emailPasswordProfileVerificationResetEmailChangeAndDelete() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let created = try await auth.createUser(withEmail: "ada@example.com", password: "first-pass")
            let user = created.user
            #expect(auth.currentUser === user && created.additionalUserInfo?.isNewUser == true && !user.isAnonymous)
            let first = try await user.getIDTokenResult()
            #expect(first.signInProvider == "password" && abs(first.authTime.timeIntervalSinceNow) < 60)
            #expect(try await auth.fetchSignInMethods(forEmail: "ada@example.com") == ["password"])

            let change = user.createProfileChangeRequest()
            change.displayName = "Ada"
            change.photoURL = URL(string: "https://example.com/ada.png")
            try await change.commitChanges()
            try await user.reload()
            #expect(user.displayName == "Ada" && user.photoURL?.absoluteString == "https://example.com/ada.png")

            // Verification: the email arrives over SMTP; its code is checked, then applied.
            try await user.sendEmailVerification()
            let verify = try await live.oobCode(to: "ada@example.com", nth: 1)
            #expect(try await auth.checkActionCode(verify).operation == .verifyEmail)
            try await auth.applyActionCode(verify)
            #expect(user.isEmailVerified)

            // A refresh issues a new token but keeps the time of sign-in (claims are whole seconds).
            let nextSecond = nextWholeSecond(after: Date())
            await eventually { Date() >= nextSecond }
            let refreshed = try await user.getIDTokenResult(forcingRefresh: true)
            #expect(refreshed.authDate == first.authDate && refreshed.issuedAtDate > first.issuedAtDate)
            #expect(refreshed.token != first.token)

            // Password change, then sign-in with old and new.
            try await user.updatePassword(to: "second-pass")
            try auth.signOut()
            #expect(auth.currentUser == nil)
            await #expect { try await auth.signIn(withEmail: "ada@example.com", password: "first-pass") } throws: {
                Self.code($0) == AuthErrorCode.wrongPassword.rawValue || Self.code($0) == AuthErrorCode.invalidCredential.rawValue
            }
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "second-pass")

            // Reset by email.
            try await auth.sendPasswordReset(withEmail: "ada@example.com")
            let reset = try await live.oobCode(to: "ada@example.com", nth: 2)
            #expect(try await auth.verifyPasswordResetCode(reset) == "ada@example.com")
            try await auth.confirmPasswordReset(withCode: reset, newPassword: "third-pass")
            await #expect { try await auth.confirmPasswordReset(withCode: reset, newPassword: "again-pass") } throws: {
                Self.code($0) == AuthErrorCode.invalidActionCode.rawValue
            }
            let signedIn = try await auth.signIn(withEmail: "ada@example.com", password: "third-pass").user

            // Email: at once, then through a link to the new address.
            try await signedIn.updateEmail(to: "ada2@example.com")
            #expect(signedIn.email == "ada2@example.com")
            try await signedIn.sendEmailVerification(beforeUpdatingEmail: "ada3@example.com")
            let move = try await live.oobCode(to: "ada3@example.com", nth: 1)
            let info = try await auth.checkActionCode(move)
            #expect(info.operation == .verifyAndChangeEmail && info.email == "ada3@example.com" && info.previousEmail == "ada2@example.com")
            // Applying the change ends the sessions issued before it (one second apart, so the ID token is older):
            // the SDK notices at its next call and signs the user out, as FirebaseAuth does.
            let changeSecond = nextWholeSecond(after: Date())
            await eventually { Date() >= changeSecond }
            try await auth.applyActionCode(move)
            #expect(auth.currentUser == nil, "the revoked session was signed out")
            await #expect { try await signedIn.reload() } throws: { Self.code($0) == AuthErrorCode.userTokenExpired.rawValue }
            let moved = try await auth.signIn(withEmail: "ada3@example.com", password: "third-pass").user
            #expect(moved.uid == signedIn.uid && moved.email == "ada3@example.com")

            // Reauthentication: the same user passes, another user's credential does not.
            try await moved.reauthenticate(with: EmailAuthProvider.credential(withEmail: "ada3@example.com", password: "third-pass"))
            _ = try await live.auth().createUser(withEmail: "other@example.com", password: "other-pass")
            await #expect { try await moved.reauthenticate(with: EmailAuthProvider.credential(withEmail: "other@example.com", password: "other-pass")) } throws: {
                Self.code($0) == AuthErrorCode.userMismatch.rawValue
            }
            #expect(auth.currentUser?.uid == moved.uid)

            try await moved.delete()
            #expect(auth.currentUser == nil)
            await #expect { try await auth.signIn(withEmail: "ada3@example.com", password: "third-pass") } throws: {
                [AuthErrorCode.userNotFound.rawValue, AuthErrorCode.invalidCredential.rawValue].contains(Self.code($0))
            }
        }
    }

    /// `Auth.tenantID`, as FirebaseAuth's: one email makes one account per tenant and one in the project, each
    /// with its own password; a user's tokens carry its tenant; an `Auth` of another tenant does not find it.
    @Test func eachTenantKeepsItsOwnUsers() async throws {
        try await LiveHearth.run { live in
            let acme = live.auth()
            acme.tenantID = "tenant-acme"
            let ada = try await acme.createUser(withEmail: "ada@example.com", password: "acme-pass").user
            #expect(ada.tenantID == "tenant-acme")
            let claims = try await ada.getIDTokenResult().claims
            #expect((claims["firebase"] as? [String: Any])?["tenant"] as? String == "tenant-acme", "\(claims)")
            try await ada.reload()
            #expect(ada.tenantID == "tenant-acme", "a refresh and a reload keep the tenant")

            let globex = live.auth()
            globex.tenantID = "tenant-globex"
            await #expect(throws: (any Error).self, "acme's user is not globex's") {
                _ = try await globex.signIn(withEmail: "ada@example.com", password: "acme-pass")
            }
            let other = try await globex.createUser(withEmail: "ada@example.com", password: "globex-pass").user
            #expect(other.uid != ada.uid && other.tenantID == "tenant-globex")

            let project = live.auth()
            let own = try await project.createUser(withEmail: "ada@example.com", password: "project-pass").user
            #expect(own.tenantID == nil && own.uid != ada.uid)
            let again = try await acme.signIn(withEmail: "ada@example.com", password: "acme-pass").user
            #expect(again.uid == ada.uid)
        }
    }

    /// `validatePassword` (the JS SDK's, HearthAuth's addition) answers as the server then decides: the project's
    /// 6-character minimum, a tenant's enforced policy requirement by requirement, and a refused sign-up agrees.
    @Test func validatePasswordAgreesWithTheServer() async throws {
        try await LiveHearth.run { live in
            let project = live.auth()
            #expect(try await !project.validatePassword("abc").isValid)
            #expect(try await project.validatePassword("abcdef").isValid)

            let strict = live.auth()
            strict.tenantID = "tenant-strict"
            let weak = try await strict.validatePassword("a")
            #expect(!weak.isValid && weak.meetsMinPasswordLength == false && weak.meetsMaxPasswordLength == true)
            #expect(weak.containsLowercaseLetter == true && weak.containsUppercaseLetter == false)
            #expect(weak.containsNumericCharacter == false && weak.containsNonAlphanumericCharacter == false)
            let partly = try await strict.validatePassword("Password0123")
            #expect(!partly.isValid && partly.meetsMinPasswordLength == true && partly.containsNonAlphanumericCharacter == false)
            #expect(partly.passwordPolicy.customStrengthOptions.minPasswordLength == 8
                    && partly.passwordPolicy.customStrengthOptions.maxPasswordLength == 24)
            do {
                _ = try await strict.createUser(withEmail: "weak@example.com", password: "Password0123")
                Issue.record("the server refuses what validatePassword refuses")
            } catch let error as NSError {
                #expect(error.code == AuthErrorCode.passwordDoesNotMeetRequirements.rawValue, "\(error)")
            }
            let good = "Passw0rd!x"
            #expect(try await strict.validatePassword(good).isValid)
            let user = try await strict.createUser(withEmail: "strong@example.com", password: good).user
            #expect(user.tenantID == "tenant-strict")
        }
    }

    @Test func anAnonymousUserKeepsItsUIDWhenItLinksAPassword() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let guest = try await auth.signInAnonymously().user
            #expect(guest.isAnonymous && guest.providerData.isEmpty)
            #expect(try await guest.getIDTokenResult().signInProvider == "anonymous")
            let linked = try await guest.link(with: EmailAuthProvider.credential(withEmail: "guest@example.com", password: "guest-pass"))
            #expect(linked.user.uid == guest.uid && !guest.isAnonymous && guest.email == "guest@example.com")
            #expect(guest.providerData.map(\.providerID) == ["password"])
            await #expect { try await guest.link(with: EmailAuthProvider.credential(withEmail: "x@example.com", password: "x-pass")) } throws: {
                Self.code($0) == AuthErrorCode.providerAlreadyLinked.rawValue
            }
            try auth.signOut()
            #expect(try await auth.signIn(withEmail: "guest@example.com", password: "guest-pass").user.uid == guest.uid)
        }
    }

    @Test func linkingUnlinkingAndSigningInWithACredentialInUse() async throws {
        try await LiveHearth.run { live in
            let owner = live.auth()
            let first = try await owner.signIn(with: GoogleAuthProvider.credential(
                withIDToken: try await live.googleIDToken(sub: "g-owner", email: "owner@example.com"), accessToken: "at"))
            #expect(first.additionalUserInfo?.isNewUser == true && first.additionalUserInfo?.providerID == "google.com")
            #expect(first.user.email == "owner@example.com" && first.user.providerData.map(\.providerID) == ["google.com"])

            let app = live.auth()
            let other = try await app.createUser(withEmail: "someone@example.com", password: "some-pass").user
            let credential = GoogleAuthProvider.credential(
                withIDToken: try await live.googleIDToken(sub: "g-owner", email: "owner@example.com"), accessToken: "at")
            do {
                _ = try await other.link(with: credential)
                Issue.record("linking another account's identity succeeded")
            } catch let error as NSError {
                #expect(error.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
                #expect(error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] is OAuthCredential)
            }
            #expect(other.providerData.map(\.providerID) == ["password"], "nothing was half-linked")
            // The guides' merge path: sign in with the same credential (its ID token was used; the pending token is not).
            let merged = try await app.signIn(with: credential)
            #expect(merged.user.uid == first.user.uid && app.currentUser?.uid == first.user.uid)

            // Facebook: link, then unlink.
            try await live.idp.register(accessToken: "fb-token-1", profile: ["id": "fb-1", "name": "Owner", "email": "owner@example.com"])
            let withFacebook = try await merged.user.link(with: FacebookAuthProvider.credential(withAccessToken: "fb-token-1"))
            #expect(Set(withFacebook.user.providerData.map(\.providerID)) == ["google.com", "facebook.com"])
            #expect(withFacebook.additionalUserInfo?.profile?["id"] as? String == "fb-1")
            try await merged.user.unlink(fromProvider: "facebook.com")
            #expect(merged.user.providerData.map(\.providerID) == ["google.com"])
            await #expect { try await merged.user.unlink(fromProvider: "facebook.com") } throws: {
                Self.code($0) == AuthErrorCode.noSuchProvider.rawValue
            }
        }
    }

    @Test func secondFactorsWithAnAuthenticatorAppAndSMS() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            func google() async throws -> AuthCredential {
                GoogleAuthProvider.credential(withIDToken: try await live.googleIDToken(sub: "g-mfa", email: "mfa@example.com"),
                                              accessToken: "at")
            }
            let user = try await auth.signIn(with: try await google()).user
            #expect(user.isEmailVerified)

            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            #expect(secret.generateQRCodeURL(withAccountName: "mfa@example.com", issuer: "SDK").hasPrefix("otpauth://totp/"))
            try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: try LiveHearth.totp(secret.sharedSecretKey())), displayName: "Authenticator")
            let phone = PhoneAuthProvider.provider(auth: auth)
            let enrollmentID = try await phone.verifyPhoneNumber("+15555550142", uiDelegate: nil,
                                                                 multiFactorSession: try await user.multiFactor.session())
            let smsCode = try #require(live.sms.lastCode(to: "+15555550142"))
            try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(
                with: phone.credential(withVerificationID: enrollmentID, verificationCode: smsCode)), displayName: "Phone")
            #expect(user.multiFactor.enrolledFactors.map(\.factorID).sorted() == ["phone", "totp"])

            func challenge() async throws -> MultiFactorResolver {
                try auth.signOut()
                do {
                    _ = try await auth.signIn(with: try await google())
                } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
                    return try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                }
                throw TestFailure("no second-factor challenge")
            }
            let byApp = try await challenge()
            #expect(auth.currentUser == nil)
            let totpHint = try #require(byApp.hints.first { $0 is TOTPMultiFactorInfo })
            _ = try await byApp.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: totpHint.uid, oneTimePassword: try LiveHearth.totp(secret.sharedSecretKey(), offset: 30)))
            #expect(auth.currentUser?.uid == user.uid)
            #expect(try await auth.currentUser?.getIDTokenResult().signInSecondFactor == "totp")

            let bySMS = try await challenge()
            let phoneHint = try #require(bySMS.hints.first { $0 is PhoneMultiFactorInfo } as? PhoneMultiFactorInfo)
            #expect(phoneHint.phoneNumber.hasSuffix("0142") && phoneHint.phoneNumber.contains("*"))
            let signInID = try await phone.verifyPhoneNumber(with: phoneHint, multiFactorSession: bySMS.session)
            let wrong = PhoneMultiFactorGenerator.assertion(with: phone.credential(withVerificationID: signInID, verificationCode: "000000"))
            await #expect { try await bySMS.resolveSignIn(with: wrong) } throws: {
                Self.code($0) == AuthErrorCode.invalidVerificationCode.rawValue
            }
            let right = PhoneMultiFactorGenerator.assertion(with: phone.credential(
                withVerificationID: signInID, verificationCode: try #require(live.sms.lastCode(to: "+15555550142"))))
            _ = try await bySMS.resolveSignIn(with: right)
            #expect(try await auth.currentUser?.getIDTokenResult().signInSecondFactor == "phone")

            let current = try #require(auth.currentUser)
            try await current.multiFactor.unenroll(with: try #require(current.multiFactor.enrolledFactors.first { $0.factorID == "totp" }))
            #expect(current.multiFactor.enrolledFactors.map(\.factorID) == ["phone"])
        }
    }

    @Test func customTokensFromTheServersAdminSDKAndEmailLinks() async throws {
        try await LiveHearth.run { live in
            let admin = HearthAdmin(baseURL: live.base, credentials: try ServiceAccountCredentials(keyFile: live.keyFile))
            let custom = try await admin.createCustomToken(uid: "backend-user-1", claims: ["plan": .string("pro")])
            let auth = live.auth()
            let result = try await auth.signIn(withCustomToken: custom)
            #expect(result.user.uid == "backend-user-1" && !result.user.isAnonymous)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "custom" && token.claims["plan"] as? String == "pro")
            let verified = try await admin.verifyIDToken(try await result.user.getIDToken())
            #expect(verified.uid == "backend-user-1", "the server side verifies what the client holds")
            await #expect { try await auth.signIn(withCustomToken: "not-a-token") } throws: {
                Self.code($0) == AuthErrorCode.invalidCustomToken.rawValue
            }

            // Email-link sign-in: the link arrives over SMTP and signs in (creating the account).
            let settings = ActionCodeSettings()
            settings.url = URL(string: live.base + "/finish")
            settings.handleCodeInApp = true
            try await auth.sendSignInLink(toEmail: "link@example.com", actionCodeSettings: settings)
            let code = try await live.oobCode(to: "link@example.com", nth: 1)
            let link = live.base + "/__/auth/action?mode=signIn&oobCode=" + code + "&apiKey=" + LiveHearth.apiKey
            #expect(auth.isSignIn(withEmailLink: link))
            let linked = try await auth.signIn(withEmail: "link@example.com", link: link)
            #expect(linked.user.email == "link@example.com" && linked.user.isEmailVerified)
            #expect(linked.additionalUserInfo?.isNewUser == true)
            await #expect { try await auth.signIn(withEmail: "link@example.com", link: link) } throws: {
                Self.code($0) == AuthErrorCode.invalidActionCode.rawValue
            }
        }
    }

    @Test func phoneNumberSignInAndPersistenceAcrossLaunches() async throws {
        try await LiveHearth.run { live in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-\(UUID().uuidString)/user.json")
            var options = live.options
            options.persistence = .file(file)
            let auth = Auth.auth(options: options)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let verificationID = try await provider.verifyPhoneNumber("+15555550177", uiDelegate: nil)
            let code = try #require(live.sms.lastCode(to: "+15555550177"))
            let result = try await auth.signIn(with: provider.credential(withVerificationID: verificationID, verificationCode: code))
            #expect(result.user.phoneNumber == "+15555550177" && result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.providerData.map(\.providerID) == ["phone"])

            // The next launch: a new core on the same file finds the user and refreshes its token with the server.
            let relaunched = Auth(core: AuthCore(options: options))
            let restored = try #require(relaunched.currentUser)
            #expect(restored.uid == result.user.uid && restored !== result.user)
            let fresh = try await restored.getIDToken(forcingRefresh: true)
            #expect(try AuthTokenResult(token: fresh).claims["user_id"] as? String == result.user.uid)
            try relaunched.signOut()
            #expect(Auth(core: AuthCore(options: options)).currentUser == nil)
        }
    }
}

/// `OAuthProvider.getCredentialWith`: the browser (headless Chromium) goes to Hearth's handler, the provider, and
/// back to the SDK's loopback listener.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil && Browser.unavailableReason() == nil,
                "needs authlib, aiosmtpd and chromium: \(LiveHearth.unavailableReason ?? Browser.unavailableReason() ?? "")"))
struct LoopbackOAuthTests {
    @Test func anOIDCProviderThroughTheLoopbackRedirect() async throws {
        try await LiveHearth.run { live in
            let browser = try await Browser.start()
            defer { browser.stop() }
            let auth = live.auth()
            let opener = ChromiumOpener(browser: browser)
            let provider = OAuthProvider(providerID: "oidc.acme", auth: auth)
            provider.customParameters = ["login_hint": "loopback-user"]
            provider.scopes = ["profile"]
            let credential = try await provider.getCredentialWith(opener)
            let opened = try #require(opener.opened.first)
            #expect(opened.absoluteString.hasPrefix(live.base + "/__/auth/handler?"))
            let session = try #require(URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "sessionId" }?.value)
            #expect(session.count == 64, "only the session id's SHA-256 goes through the browser")
            let result = try await auth.signIn(with: credential)
            #expect(result.user.email == "loopback-user@idp.example" && result.additionalUserInfo?.providerID == "oidc.acme")
            #expect(result.credential?.idToken != nil)
            await #expect(throws: NSError.self, "the credential's code was used") {
                _ = try await live.auth().signIn(with: credential)
            }
        }
    }

    /// Sign in with Apple from a Linux app: the page posts Apple's answer (with the name) back to the hosted
    /// handler, the app signs in; before deleting the account it revokes Apple's token, as Apple requires.
    @Test func signInWithAppleOnTheWebThenRevokeBeforeDeleting() async throws {
        try await LiveHearth.run { live in
            let browser = try await Browser.start()
            defer { browser.stop() }
            let auth = live.auth()
            let provider = OAuthProvider(providerID: "apple.com", auth: auth)
            provider.scopes = ["name", "email"]
            provider.customParameters = ["login_hint": "apple-sdk"]
            let credential = try await provider.getCredentialWith(ChromiumOpener(browser: browser))
            let result = try await auth.signIn(with: credential)
            #expect(result.additionalUserInfo?.providerID == "apple.com" && result.user.displayName == "Form Poster")
            #expect(result.user.email == "apple-sdk@idp.example")

            try await auth.revokeToken(withAuthorizationCode: "apple-code-sdk")
            #expect(try await live.idp.appleRevoked().contains { $0["token"] == "rt-apple-code-sdk" })
            try await result.user.delete()
            #expect(auth.currentUser == nil)
        }
    }
}

extension LoopbackOAuthTests {
    /// FirebaseAuth 12's one-call form: `signIn(with: provider, uiDelegate:)`, the provider named by
    /// `AuthProviderID.custom`; then `link` and `reauthenticate` the same way.
    @Test func federatedSignInInOneCall() async throws {
        try await LiveHearth.run { live in
            let browser = try await Browser.start()
            defer { browser.stop() }
            let auth = live.auth()
            let opener = ChromiumOpener(browser: browser)
            let provider = OAuthProvider(providerID: .custom("oidc.acme"), auth: auth)
            provider.customParameters = ["login_hint": "one-call"]
            let result = try await auth.signIn(with: provider, uiDelegate: opener)
            #expect(result.user.email == "one-call@idp.example" && result.additionalUserInfo?.providerID == "oidc.acme")
            let again = try await result.user.reauthenticate(with: provider, uiDelegate: opener)
            #expect(again.user.uid == result.user.uid && opener.opened.count == 2)
        }
    }
}
