import Foundation
import HearthCore
import Testing

/// Every path that creates an account passes through `create`, and every path that issues a sign-in's first tokens
/// through `completeSignIn`: a hook installed there sees each one, and can refuse each one before anything is stored.
@Suite struct AccountPipelineTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
    let store = InMemoryStore()
    let sms = CapturedSMS()
    static let links = ActionLinkBase(url: "https://auth.example.com/__/auth/action", apiKey: "k")

    /// Records what the pipeline steps see; refuses what `refuse` names.
    final class Steps: AccountHook, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String] = []
        var refuse: Set<String> = []
        var all: [String] { lock.withLock { seen } }
        func reset() { lock.withLock { seen = [] } }

        func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, event: AccountEvent,
                          in project: ProjectContext) async throws {
            let step = "create:\(origin.rawValue)"
            lock.withLock { seen.append(step) }
            if refuse.contains("create") { throw AuthFailure.adminOnlyOperation }
        }
        func beforeSignIn(_ user: inout UserRecord, event: AccountEvent, in project: ProjectContext) async throws -> String? {
            let step = "signIn:\(event.signInMethod ?? "?"):\(event.isNewUser ? "new" : "existing")"
            lock.withLock { seen.append(step) }
            if refuse.contains("signIn") { throw AuthFailure.adminOnlyOperation }
            return nil
        }
    }

    final class CapturedSMS: SMSSender, @unchecked Sendable {
        private let lock = NSLock()
        private var last: SMSMessage?
        func send(_ message: SMSMessage) async throws { lock.withLock { last = message } }
        var code: String { lock.withLock { last?.code ?? "" } }
    }

    func setUp(_ steps: Steps) async throws -> (AccountContext, ProjectContext) {
        var accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
        accounts.hooks = [steps]
        let directory = ProjectDirectory(
            store: store, clock: clock,
            defaults: { _ in
                var settings = ProjectSettings(enableImprovedEmailPrivacy: false)
                settings[.phoneSignIn] = true
                return settings
            },
            hashParameters: { .generate(memoryCost: 10) })
        return (accounts, try await directory.contextCreatingIfNeeded(for: "demo-pipeline"))
    }

    /// One sign-in by each path; run twice, the first creates the account and the second signs in to it.
    typealias Path = @Sendable (AccountContext, ProjectContext, CapturedSMS) async throws -> Void

    static let paths: [(name: String, path: Path, first: [String], again: [String])] = [
        ("email and password", { accounts, project, _ in
            do {
                _ = try await accounts.passwords.signUp(in: project, email: "pw@example.com", password: "secret1")
            } catch AuthFailure.emailExists {
                _ = try await accounts.passwords.signInWithPassword(in: project, email: "pw@example.com", password: "secret1").signedIn()
            }
        }, ["create:password", "signIn:password:new"], ["signIn:password:existing"]),
        ("anonymous", { accounts, project, _ in _ = try await accounts.passwords.signUp(in: project) },
         ["create:anonymous", "signIn:anonymous:new"], ["create:anonymous", "signIn:anonymous:new"]),
        ("identity provider", { accounts, project, _ in
            _ = try await accounts.federated.signInWithIdp(
                in: project, FederatedAssertion(providerID: "google.com", rawID: "g-1", email: "g@gmail.com", emailVerified: true),
                idToken: nil, returnIdpCredential: false)
        }, ["create:federated", "signIn:google.com:new"], ["signIn:google.com:existing"]),
        ("Game Center", { accounts, project, _ in
            _ = try await accounts.federated.signInWithIdp(in: project, FederatedAssertion(providerID: "gc.apple.com", rawID: "G:1"),
                                                 idToken: nil, returnIdpCredential: false)
        }, ["create:gameCenter", "signIn:gc.apple.com:new"], ["signIn:gc.apple.com:existing"]),
        ("phone", { accounts, project, sms in
            let session = try await accounts.phone.sendPhoneCode(to: "+15555550100", purpose: .signIn, in: project,
                                                           locale: nil, sender: sms)
            _ = try await accounts.phone.signInWithPhoneNumber(in: project, sessionInfo: session, code: sms.code,
                                                         temporaryProof: nil, phoneNumber: nil, idToken: nil, operation: nil)
        }, ["create:phone", "signIn:phone:new"], ["signIn:phone:existing"]),
        ("email link", { accounts, project, _ in
            let link = try #require(try await accounts.actionCodes.sendActionCode(
                in: project, ActionCodeRequest(type: .emailSignIn, email: "link@example.com"), links: Self.links,
                authorizedDomains: []))
            _ = try await accounts.actionCodes.signInWithEmailLink(in: project, email: "link@example.com", code: link.message.code).signedIn()
        }, ["create:emailLink", "signIn:emailLink:new"], ["signIn:emailLink:existing"]),
        ("custom token", { accounts, project, _ in
            _ = try await accounts.customTokens.signInWithCustomToken(in: project, token: #"{"uid":"ct-1"}"#, allowUnsigned: true).signedIn()
        }, ["create:customToken", "signIn:custom:new"], ["signIn:custom:existing"]),
        ("admin create", { accounts, project, _ in
            _ = try await accounts.administration.adminCreate(in: project, AdminNewUser(email: "admin-made@example.com"))
        }, ["create:admin"], ["create:admin"]),
        ("import", { accounts, project, _ in
            _ = try await accounts.importer.importUsers(in: project, [ImportUser(localID: "imp-1", email: "imp@example.com")],
                                               hashing: nil, allowOverwrite: true)
        }, ["create:import"], ["create:import"]),
    ]

    @Test(arguments: paths.indices)
    func everyPathPassesThroughThePipeline(_ index: Int) async throws {
        let (name, path, first, again) = Self.paths[index]
        let steps = Steps()
        let (accounts, project) = try await setUp(steps)
        try await path(accounts, project, sms)
        #expect(steps.all == first, "\(name), first time")
        steps.reset()
        do { try await path(accounts, project, sms) } catch AuthFailure.emailExists where name == "admin create" {}
        #expect(steps.all == again, "\(name), again")
    }

    @Test(arguments: paths.indices)
    func aHookThatRefusesLeavesNothingStored(_ index: Int) async throws {
        let (name, path, first, _) = Self.paths[index]
        let steps = Steps()
        steps.refuse = ["create", "signIn"]
        let (accounts, project) = try await setUp(steps)
        await #expect(throws: AuthFailure.adminOnlyOperation, "\(name)") { try await path(accounts, project, sms) }
        #expect(steps.all == [first[0]], "\(name): refused at the first step")
        let users = try await store.users(projectID: project.id, after: nil, limit: 10)
        #expect(users.isEmpty, "\(name): no account stored")
    }

    /// A hook that changes the account at sign-in: the change is stored, the session's claims ride in its tokens
    /// (refreshes included), and an account the hook disables is stored so and refused. Tokens reissued after the
    /// user's own change are no sign-in: no hook runs.
    @Test func aSignInHookChangesTheAccountAndTheSession() async throws {
        struct Shaper: AccountHook {
            let calls = Counter()
            func beforeSignIn(_ user: inout UserRecord, event: AccountEvent, in project: ProjectContext) async throws -> String? {
                calls.add()
                user.displayName = "Shaped"
                user.customAttributes = #"{"tier":"gold"}"#
                if user.email == "off@example.com" { user.disabled = true }
                return #"{"session":"\#(event.signInMethod ?? "")"}"#
            }
        }
        final class Counter: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0
            func add() { lock.withLock { count += 1 } }
            var value: Int { lock.withLock { count } }
        }
        var (accounts, project) = try await setUp(Steps())
        let shaper = Shaper()
        accounts.hooks = [shaper]
        let signedUp = try await accounts.passwords.signUp(in: project, email: "s@example.com", password: "secret1")
        let signedIn = try await accounts.passwords.signInWithPassword(in: project, email: "s@example.com", password: "secret1").signedIn()
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, email: "s@example.com"))
        #expect(stored.displayName == "Shaped" && stored.customAttributes == #"{"tier":"gold"}"#)
        func payload(_ token: String) throws -> [String: Any] {
            var text = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            let data = try #require(Data(base64Encoded: text))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let claims = try payload(signedIn.tokens.idToken)
        #expect(claims["session"] as? String == "password" && claims["tier"] as? String == "gold" && claims["name"] as? String == "Shaped")
        let refreshed = try await accounts.sessions.refresh(in: project, refreshToken: signedIn.tokens.refreshToken)
        #expect(try payload(refreshed.tokens.idToken)["session"] as? String == "password", "the session keeps its claims")
        #expect(shaper.calls.value == 2)
        _ = try await accounts.updates.updateAccount(in: project, idToken: signedUp.tokens.idToken,
                                                     changes: AccountChanges(password: "secret2"))
        #expect(shaper.calls.value == 2, "tokens reissued after a change are no sign-in")

        _ = try? await accounts.passwords.signUp(in: project, email: "off@example.com", password: "secret1")
        await #expect(throws: AuthFailure.userDisabled) {
            try await accounts.passwords.signInWithPassword(in: project, email: "off@example.com", password: "secret1").signedIn()
        }
        #expect(try await store.user(projectID: project.id, tenantID: nil, email: "off@example.com")?.disabled == true,
                "stored disabled, then refused, as Firebase does")
    }

    /// Every action email and every SMS code passes the hooks' `beforeSend` first, with Firebase's `email_type` or
    /// `sms_type`; a refusal stores no code and sends nothing. A test number's code sends no SMS, so asks nothing.
    @Test func everyEmailAndCodePassesBeforeSend() async throws {
        final class Sends: AccountHook, @unchecked Sendable {
            private let lock = NSLock()
            private var seen: [String] = []
            var refuse = false
            var all: [String] { lock.withLock { seen } }
            func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws {
                let step = switch message.channel {
                case .email(let type, let address): "email:\(type):\(address):\(message.localID != nil)"
                case .sms(let type, let number): "sms:\(type):\(number)"
                }
                lock.withLock { seen.append(step) }
                if refuse { throw AuthFailure.blockingFunctionError("no") }
            }
        }
        let sends = Sends()
        var (accounts, project) = try await setUp(Steps())
        accounts.hooks = [sends]
        let user = try await accounts.passwords.signUp(in: project, email: "s@example.com", password: "secret1")
        _ = try await accounts.actionCodes.sendActionCode(in: project, ActionCodeRequest(type: .passwordReset, email: "s@example.com"),
                                                          links: Self.links, authorizedDomains: [])
        _ = try await accounts.actionCodes.sendActionCode(in: project, ActionCodeRequest(type: .verifyEmail, idToken: user.tokens.idToken),
                                                          links: Self.links, authorizedDomains: [])
        _ = try await accounts.actionCodes.sendActionCode(in: project, ActionCodeRequest(type: .emailSignIn, email: "new@example.com"),
                                                          links: Self.links, authorizedDomains: [])
        _ = try await accounts.phone.sendPhoneCode(to: "+15555550100", purpose: .signIn, in: project, locale: nil, sender: sms)
        #expect(sends.all == ["email:PASSWORD_RESET:s@example.com:true", "email:VERIFY_EMAIL:s@example.com:true",
                              "email:EMAIL_SIGN_IN:new@example.com:false", "sms:SIGN_IN_OR_SIGN_UP:+15555550100"])
        let queued = try await store.outboxMessages(projectID: project.id).count

        sends.refuse = true
        await #expect(throws: AuthFailure.blockingFunctionError("no")) {
            try await accounts.actionCodes.sendActionCode(in: project, ActionCodeRequest(type: .passwordReset, email: "s@example.com"),
                                                          links: Self.links, authorizedDomains: [])
        }
        await #expect(throws: AuthFailure.blockingFunctionError("no")) {
            try await accounts.phone.sendPhoneCode(to: "+15555550199", purpose: .signIn, in: project, locale: nil, sender: sms)
        }
        #expect(try await store.outboxMessages(projectID: project.id).count == queued, "nothing queued")
        #expect(sends.all.count == 6)
        project = project.scoped(to: nil)
        var numbers = project.record
        numbers.settings.testPhoneNumbers = ["+15555550123": "123456"]
        try await store.updateProject(numbers)
        let withTestNumber = try await ProjectDirectory(store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                                        hashParameters: { .generate(memoryCost: 10) }).contextCreatingIfNeeded(for: project.id)
        _ = try await accounts.phone.sendPhoneCode(to: "+15555550123", purpose: .signIn, in: withTestNumber, locale: nil, sender: sms)
        #expect(sends.all.count == 6, "a test number's code is sent to nobody: no hook")
    }

    /// Under enumeration protection an unknown address costs what a known one does: the hooks are asked for it too
    /// (a function's round trip would otherwise tell the two apart), without an account.
    @Test func aDecoyEmailAsksTheHooksToo() async throws {
        final class Sends: AccountHook, @unchecked Sendable {
            private let lock = NSLock()
            private var seen: [OutgoingMessage] = []
            var all: [OutgoingMessage] { lock.withLock { seen } }
            func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws { lock.withLock { seen.append(message) } }
        }
        let sends = Sends()
        var (accounts, project) = try await setUp(Steps())
        accounts.hooks = [sends]
        var record = project.record
        record.settings[.enableImprovedEmailPrivacy] = true
        try await store.updateProject(record)
        let protected = try await ProjectDirectory(store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                                   hashParameters: { .generate(memoryCost: 10) }).contextCreatingIfNeeded(for: project.id)
        _ = try await accounts.actionCodes.sendActionCode(in: protected, ActionCodeRequest(type: .passwordReset, email: "nobody@example.com"),
                                                          links: Self.links, authorizedDomains: [])
        #expect(sends.all.map(\.channel) == [.email(type: "PASSWORD_RESET", address: "nobody@example.com")])
        #expect(sends.all.first?.localID == nil)
        #expect(try await store.outboxMessages(projectID: project.id).isEmpty, "a decoy queues nothing")
    }

    @Test func aRefusedSignInStoresNoSession() async throws {
        let steps = Steps()
        let (accounts, project) = try await setUp(steps)
        _ = try await accounts.passwords.signUp(in: project, email: "s@example.com", password: "secret1")
        steps.refuse = ["signIn"]
        await #expect(throws: AuthFailure.adminOnlyOperation) {
            try await accounts.passwords.signInWithPassword(in: project, email: "s@example.com", password: "secret1").signedIn()
        }
        let stored = try #require(try await store.user(projectID: project.id, tenantID: nil, email: "s@example.com"))
        #expect(stored.lastLoginAt == clock.now(), "not stamped after the sign-up's")
    }
}
