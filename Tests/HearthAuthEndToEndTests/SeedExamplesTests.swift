import Foundation
import HearthAuth
import HearthTestSupport
import SeedExamples
import Testing

/// The Firebase guides' Swift snippets (`SeedExamples`, from ../shared/seeds) run against a live Hearth, doing
/// what each guide says: the default app is configured for the server, prompts are answered as a user would (the
/// SMS code read from the carrier), Google and Facebook tokens come from the test IdP and Twitter's sign-in runs in
/// headless Chromium as the system browser.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil && Browser.unavailableReason() == nil && TestIdentityProvider.hasOAuth1,
                "needs authlib, oauthlib, aiosmtpd and chromium: \(LiveHearth.unavailableReason ?? Browser.unavailableReason() ?? "oauthlib missing")"),
       .serialized)
struct SeedExamplesTests {
    @Test func theGuidesSnippetsDoWhatTheGuidesSay() async throws {
        try await LiveHearth.run { live in
            Auth.configure(AuthOptions(apiKey: LiveHearth.apiKey, projectID: LiveHearth.projectID,
                                       endpoints: .hearth(URL(string: live.base)!), persistence: .memory))
            try await Self.manageUsers(live)
            try await Self.linkProviders(live)
            try await Self.linkProvidersPortuguese(live)
            try await Self.twitter(live)
        }
    }

    /// Seed 003: the current user, profile, email, verification, password, reset, reauthentication, deletion.
    @MainActor static func manageUsers(_ live: LiveHearth) async throws {
        let guide = ManageUsersGuide()
        guide.listen()
        guide.checkCurrentUser()
        #expect(guide.signedIn == false)
        let uid = try await Auth.auth().createUser(withEmail: "guide@example.com", password: "guide-pass-1").user.uid
        guide.checkCurrentUser()
        guide.readProfile()
        #expect(guide.signedIn == true && guide.profile?.uid == uid && guide.profile?.email == "guide@example.com")
        guide.showProvider()
        #expect(guide.cell?.textLabel?.text == "password" && guide.cell?.detailTextLabel?.text == "guide@example.com")

        guide.displayName = "Guide Reader"
        #expect(await guide.run { guide.updateProfile() } == nil)
        #expect(Auth.auth().currentUser?.displayName == "Guide Reader")

        guide.setLanguage()
        #expect(Auth.auth().languageCode == "fr")
        #expect(await guide.run { guide.sendEmailVerification() } == nil)
        _ = try await live.oobCode(to: "guide@example.com", nth: 1)

        guide.email = "guide2@example.com"
        #expect(await guide.run { guide.updateEmail() } == nil)
        #expect(Auth.auth().currentUser?.email == "guide2@example.com")

        guide.password = "guide-pass-2"
        #expect(await guide.run { guide.updatePassword() } == nil)
        #expect(await guide.run { guide.sendPasswordReset() } == nil)
        _ = try await live.oobCode(to: "guide2@example.com", nth: 1)

        let wrong = EmailAuthProvider.credential(withEmail: "guide2@example.com", password: "guide-pass-1")
        #expect((await guide.run { guide.reauthenticate(with: wrong) } as NSError?)?.code != nil, "the old password no longer works")
        let right = EmailAuthProvider.credential(withEmail: "guide2@example.com", password: "guide-pass-2")
        #expect(await guide.run { guide.reauthenticate(with: right) } == nil)

        #expect(await guide.run { guide.deleteUser() } == nil)
        guide.checkCurrentUser()
        #expect(guide.signedIn == false)
        await eventually { guide.listenerCalls.count >= 3 }  // listeners are told on the main actor, after the call
        #expect(guide.listenerCalls == [nil, uid, nil], "the listener saw sign-in and the deletion's sign-out")
        Auth.auth().languageCode = nil
    }

    /// Seeds 000 (zh-TW) and 004 (ja): credentials, linking, the merge path with a second-factor challenge, unlinking.
    @MainActor static func linkProviders(_ live: LiveHearth) async throws {
        // The other account: signed in with Google, an SMS second factor enrolled.
        let elsewhere = live.auth()
        let owner = try await elsewhere.signIn(with: GoogleAuthProvider.credential(
            withIDToken: try await live.googleIDToken(sub: "g-merge", email: "merge@example.com"), accessToken: "at")).user
        let phone = PhoneAuthProvider.provider(auth: elsewhere)
        let enrollment = try await phone.verifyPhoneNumber("+15555550188", uiDelegate: nil,
                                                           multiFactorSession: try await owner.multiFactor.session())
        try await owner.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: phone.credential(
            withVerificationID: enrollment, verificationCode: try #require(live.sms.lastCode(to: "+15555550188")))),
            displayName: "Merge phone")

        // This app: an anonymous user links the Google account that belongs to the other user.
        let guest = try await Auth.auth().signInAnonymously().user
        let guide = LinkProvidersGuide()
        guide.user = GIDGoogleUser(idToken: try await live.googleIDToken(sub: "g-merge", email: "merge@example.com"),
                                   accessToken: "at")
        guide.makeGoogleCredential()
        let linkError = await guide.run { guide.link(user: guest) } as NSError?
        #expect(linkError?.code == AuthErrorCode.credentialAlreadyInUse.rawValue)

        guide.answer = { message in
            if message.hasPrefix("Select factor") { return "Merge phone" }
            if message.hasPrefix("Verification code") { return live.sms.lastCode(to: "+15555550188") }
            return nil
        }
        #expect(await guide.run { guide.signInAndMerge() } == nil)
        #expect(guide.prompts.count == 2 && guide.prompts[0].contains("Merge phone"))
        #expect(guide.prevUser?.uid == guest.uid && Auth.auth().currentUser?.uid == owner.uid,
                "signed in to the other account after its second factor")
        #expect(try await Auth.auth().currentUser?.getIDTokenResult().signInSecondFactor == "phone")

        // Facebook and email/password credentials link to the now-current user; then unlink Facebook.
        try await live.idp.register(accessToken: "fb-guide", profile: ["id": "fb-guide", "name": "Merge", "email": "merge@example.com"])
        AccessToken.current = AccessToken(tokenString: "fb-guide")
        guide.makeFacebookCredential()
        #expect(await guide.run { guide.link(user: Auth.auth().currentUser) } == nil)
        guide.email = "merge@example.com"
        guide.password = "merge-pass"
        guide.makeEmailCredential()
        #expect(await guide.run { guide.link(user: Auth.auth().currentUser) } == nil)
        #expect(Set(Auth.auth().currentUser.providerData.map(\.providerID)) == ["google.com", "facebook.com", "password"])
        guide.providerID = "facebook.com"
        #expect(await guide.run { guide.unlink() } == nil)
        #expect(Set(Auth.auth().currentUser.providerData.map(\.providerID)) == ["google.com", "password"])
        try Auth.auth().signOut()
    }

    /// Seed 002 (pt-BR): the shorter snippets.
    @MainActor static func linkProvidersPortuguese(_ live: LiveHearth) async throws {
        let user = try await Auth.auth().createUser(withEmail: "pt@example.com", password: "senha-123").user
        let guide = LinkProvidersGuidePT()
        guide.user = GIDGoogleUser(idToken: try await live.googleIDToken(sub: "g-pt", email: "pt@example.com"), accessToken: "at")
        guide.makeGoogleCredential()
        #expect(await guide.run { guide.link(user: user) } == nil)
        #expect(Set(user.providerData.map(\.providerID)) == ["password", "google.com"])
        // Signing in with a fresh Google credential lands on the same account.
        try Auth.auth().signOut()
        guide.user = GIDGoogleUser(idToken: try await live.googleIDToken(sub: "g-pt", email: "pt@example.com"), accessToken: "at")
        guide.makeGoogleCredential()
        #expect(await guide.run { guide.signInAndMerge() } == nil)
        #expect(Auth.auth().currentUser?.uid == user.uid)
        #expect(await guide.run { guide.unlink(providerID: "google.com") } == nil)
        #expect(Auth.auth().currentUser?.providerData.map(\.providerID) == ["password"])
        try Auth.auth().signOut()
    }

    /// Seed 001: Twitter through `getCredentialWith(nil)` (the browser is the app's default UI delegate), sign-in,
    /// linking, reauthentication and sign-out.
    @MainActor static func twitter(_ live: LiveHearth) async throws {
        let browser = try await Browser.start()
        defer { browser.stop() }
        Auth.auth().defaultUIDelegate = ChromiumOpener(browser: browser)
        let guide = TwitterGuide()

        let guest = try await Auth.auth().signInAnonymously().user
        #expect(await guide.run { guide.getCredential() } == nil)
        #expect(await guide.run { guide.link() } == nil)
        #expect(guide.lastResult?.user.uid == guest.uid && !guest.isAnonymous)
        #expect(guide.lastResult?.credential?.accessToken != nil && guide.lastResult?.credential?.secret != nil)
        guide.signOut()
        #expect(Auth.auth().currentUser == nil)

        #expect(await guide.run { guide.signIn() } == nil)
        #expect(Auth.auth().currentUser?.uid == guest.uid, "Twitter signs in to the account it was linked to")
        #expect(guide.lastResult?.additionalUserInfo?.providerID == "twitter.com")
        #expect(guide.lastResult?.additionalUserInfo?.username == "redirectbird")

        #expect(await guide.run { guide.getCredential() } == nil)
        #expect(await guide.run { guide.reauthenticate() } == nil)
        #expect(guide.lastResult?.user.uid == guest.uid)
        guide.signOut()
        #expect(Auth.auth().currentUser == nil)
        Auth.auth().defaultUIDelegate = nil
    }
}
