import Foundation
import HearthCore
@testable import HearthServer
import HTTPTypes
import HearthWire
import Testing

/// Abuse limits (`RateLimited`): failed sign-ins per email and per address, sign-ups per address, emails, redirect
/// sessions and passkey challenges; and the ways past them tried before: IPv4 clients of a dual-stack listener, racing
/// guesses, an empty `tenantId`, a decoy `email` beside an ID token.
@Suite struct RateLimitedTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let signIn = Endpoints.signInWithPassword.path
    static let signUp = Endpoints.signUp.path

    static func app(_ limits: ServerConfiguration.RateLimits) -> TestApp {
        var app = TestApp()
        app.configuration.rateLimits = limits
        return app
    }

    @Test func failedSignInsLockTheEmailForTheWindow() async throws {
        let app = Self.app(.init(enabled: true, failedSignInsPerEmail: .init(limit: 3, window: 600)))
        try await app.run { client in
            _ = try await client.signUp("ada@example.com", "secret123")
            for _ in 0..<3 {
                let wrong = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "guess!!"])
                #expect(wrong.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            }
            let locked = try await client.post(Self.signIn, ["email": "ADA@example.com", "password": "secret123"])
            #expect(locked.status == 400)
            #expect(locked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "even the right password waits")
            _ = try await client.signUp("bob@example.com", "secret123")
            let other = try await client.post(Self.signIn, ["email": "bob@example.com", "password": "secret123"])
            #expect(other.status == 200, "other accounts are not affected")
            app.clock.advance(by: 601)
            let later = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "secret123"])
            #expect(later.status == 200, "the window passes")
        }
    }

    /// A guesser locking out ada@ in one tenant does not lock out the ada@ of another tenant, or of the project.
    @Test func aLockoutStaysInItsTenant() async throws {
        let app = Self.app(.init(enabled: true, failedSignInsPerEmail: .init(limit: 3, window: 600)))
        for id in ["t-a", "t-b"] {
            try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: id, allowPasswordSignup: true))
        }
        try await app.run { client in
            for tenant in ["t-a", "t-b"] {
                let made = try await client.post(Self.signUp, ["email": "ada@example.com", "password": "secret123", "tenantId": tenant])
                #expect(made.status == 200, "\(made.text)")
            }
            _ = try await client.signUp("ada@example.com", "secret123")
            for _ in 0..<3 {
                _ = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "guess!!", "tenantId": "t-a"])
            }
            let locked = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "secret123", "tenantId": "t-a"])
            #expect(locked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(locked.text)")
            let otherTenant = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "secret123", "tenantId": "t-b"])
            #expect(otherTenant.status == 200, "\(otherTenant.text)")
            let project = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "secret123"])
            #expect(project.status == 200, "\(project.text)")
        }
    }

    @Test func successfulSignInsAreNotCounted() async throws {
        let app = Self.app(.init(enabled: true, failedSignInsPerEmail: .init(limit: 2, window: 600),
                                 failedSignInsPerAddress: .init(limit: 2, window: 600)))
        try await app.run { client in
            _ = try await client.signUp("ada@example.com", "secret123")
            for _ in 0..<5 {
                let reply = try await client.post(Self.signIn, ["email": "ada@example.com", "password": "secret123"])
                #expect(reply.status == 200)
            }
        }
    }

    @Test func failedSignInsPerAddressUseTheForwardedAddressWhenTrusted() async throws {
        var app = Self.app(.init(enabled: true, failedSignInsPerAddress: .init(limit: 2, window: 60)))
        app.configuration.trustForwardedFor = true
        try await app.run { client in
            let header = HTTPField.Name("X-Forwarded-For")!
            // The proxy appends the address it saw to whatever the client sent: a forged first entry must not
            // give each attempt a fresh address.
            for (email, forged) in [("a@example.com", "6.6.6.1"), ("b@example.com", "6.6.6.2")] {
                _ = try await client.post(Self.signIn, ["email": email, "password": "guess!!"],
                                          headers: [header: "\(forged), 203.0.113.7"])
            }
            let blocked = try await client.post(Self.signIn, ["email": "c@example.com", "password": "guess!!"],
                                                headers: [header: "6.6.6.3, 203.0.113.7"])
            #expect(blocked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
            let elsewhere = try await client.post(Self.signIn, ["email": "c@example.com", "password": "guess!!"],
                                                  headers: [header: "198.51.100.9"])
            #expect(elsewhere.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func ipv6ClientsAreCountedPerSlash64() async throws {
        var app = Self.app(.init(enabled: true, failedSignInsPerAddress: .init(limit: 2, window: 60)))
        app.configuration.trustForwardedFor = true
        try await app.run { client in
            let header = HTTPField.Name("X-Forwarded-For")!
            // Two addresses of one /64 (one subscriber rotating through its prefix) share one count...
            for (email, address) in [("a@example.com", "2001:db8:1:2::1"), ("b@example.com", "2001:db8:1:2:ffff:0:0:9")] {
                _ = try await client.post(Self.signIn, ["email": email, "password": "guess!!"], headers: [header: address])
            }
            let blocked = try await client.post(Self.signIn, ["email": "c@example.com", "password": "guess!!"],
                                                headers: [header: "2001:0db8:0001:0002:abcd::42"])
            #expect(blocked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(blocked.text)")
            // ...and the next /64 has its own.
            let neighbour = try await client.post(Self.signIn, ["email": "c@example.com", "password": "guess!!"],
                                                  headers: [header: "2001:db8:1:3::1"])
            #expect(neighbour.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func signUpsPerAddress() async throws {
        let app = Self.app(.init(enabled: true, signUpsPerAddress: .init(limit: 2, window: 3600)))
        try await app.run { client in
            _ = try await client.signUp("one@example.com")
            _ = try await client.post(Self.signUp, ["returnSecureToken": true])
            let third = try await client.post(Self.signUp, ["email": "three@example.com", "password": "secret123"])
            #expect(third.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    @Test func emulatorModeHasNoLimitsByDefault() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.rateLimits.failedSignInsPerEmail = .init(limit: 1, window: 600)
        #expect(!app.configuration.rateLimits.enabled)
        try await app.run { client in
            for _ in 0..<3 {
                let reply = try await client.post(Self.signIn, ["email": "x@example.com", "password": "guess!!"])
                #expect(reply.errorMessage == "EMAIL_NOT_FOUND")
            }
        }
    }

    @Test func ipv4ClientsOfADualStackListenerAreEachTheirOwnKey() {
        #expect(RateLimitKey.address("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(RateLimitKey.address("::ffff:cb00:7108") == "203.0.113.8")
        #expect(RateLimitKey.address("64:ff9b::198.51.100.9") == "198.51.100.9", "NAT64's well-known prefix")
        #expect(RateLimitKey.address("::ffff:203.0.113.7") != RateLimitKey.address("::ffff:203.0.113.99"))
        #expect(RateLimitKey.address("2001:db8:1:2::1") == RateLimitKey.address("2001:db8:1:2:ffff::9"), "IPv6 stays per /64")
        #expect(RateLimitKey.address("203.0.113.7") == "203.0.113.7")
    }

    /// Sixty guesses at once against a limit of five: only five are checked, the rest refused before hashing.
    @Test func racingGuessesGetNoMoreThanTheLimit() async throws {
        var app = TestApp()
        app.configuration.rateLimits = .init(enabled: true, failedSignInsPerEmail: .init(limit: 5, window: 600))
        let store = app.store
        try await app.run { client in
            _ = try await client.signUp("ada@example.com", "secret123")
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                              ["email": "ada@example.com", "password": "guess-\(index)"]).errorMessage ?? "OK"
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let checked = answers.filter { $0 == "INVALID_LOGIN_CREDENTIALS" }.count
            #expect(checked <= 5, "\(checked) guesses were checked")
            #expect(answers.filter { $0.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") }.count == 60 - checked, "\(answers)")
            let audited = try await store.auditEvents(projectID: "demo-project", AuditQuery(kinds: ["rate-limited"], limit: 100))
            #expect(audited.count <= 2, "one refusal event per key and window, not \(audited.count)")
        }
    }

    /// `"tenantId": ""` is the project, for the limit as for everything else: it opens no fresh bucket.
    @Test func anEmptyTenantIDCountsAsTheProject() async throws {
        var app = TestApp()
        app.configuration.rateLimits = .init(enabled: true, failedSignInsPerEmail: .init(limit: 3, window: 600))
        try await app.run { client in
            _ = try await client.signUp("ada@example.com", "secret123")
            for index in 0..<3 {
                var body: [String: Any] = ["email": "ada@example.com", "password": "guess!!"]
                if index > 0 { body["tenantId"] = "" }
                #expect(try await client.post(Self.v1 + "/accounts:signInWithPassword", body).errorMessage == "INVALID_LOGIN_CREDENTIALS")
            }
            let locked = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                               ["email": "ada@example.com", "password": "guess!!", "tenantId": ""])
            #expect(locked.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(locked.text)")
        }
    }

    /// VERIFY_EMAIL goes to the ID token's address whatever `email` says: a decoy there does not reset the count.
    @Test func theEmailLimitCountsTheAddressActuallyMailed() async throws {
        var app = TestApp()
        app.configuration.rateLimits = .init(enabled: true, emailsPerRecipient: .init(limit: 3, window: 3600))
        let store = app.store
        try await app.run { client in
            let idToken = try #require(try await client.signUp("ada@example.com")["idToken"] as? String)
            var answers: [String] = []
            for index in 0..<5 {
                let reply = try await client.post(Self.v1 + "/accounts:sendOobCode", [
                    "requestType": "VERIFY_EMAIL", "idToken": idToken, "email": "decoy-\(index)@example.com"])
                answers.append(reply.errorMessage ?? "OK")
            }
            #expect(answers.prefix(3).allSatisfy { $0 == "OK" } && answers.suffix(2).allSatisfy { $0.hasPrefix("TOO_MANY_ATTEMPTS") },
                    "\(answers)")
            let mailed = try await store.outboxMessages(projectID: "demo-project").map(\.recipient)
            #expect(mailed == Array(repeating: "ada@example.com", count: 3))
        }
    }

    /// Unauthenticated `createAuthUri` with a `providerId` stores a session per call: bounded per address (and each
    /// expires in ten minutes); the calls that store none are not counted.
    @Test func redirectSessionsAreBoundedPerAddress() async throws {
        var app = TestApp()
        app.configuration.identityProviders = ["google.com": IdentityProviderConfig(clientId: "client.apps.example")]
        app.configuration.rateLimits = .init(enabled: true)
        app.configuration.rateLimits.redirectSessionsPerAddress = .init(limit: 5, window: 600)
        try await app.run { client in
            var answers: [Int] = []
            for _ in 0..<8 {
                answers.append(try await client.post(Self.v1 + "/accounts:createAuthUri",
                                                     ["providerId": "google.com", "continueUri": "http://localhost/done"]).status)
            }
            #expect(answers == [200, 200, 200, 200, 200, 400, 400, 400], "\(answers)")
            let lookup = try await client.post(Self.v1 + "/accounts:createAuthUri",
                                               ["identifier": "a@example.com", "continueUri": "http://localhost/done"])
            #expect(lookup.status == 200, "a sign-in-methods lookup stores no session: \(lookup.text)")
        }
    }

    /// Unauthenticated `passkeySignIn:start` stores a challenge per call: bounded per address.
    @Test func passkeyChallengesAreBoundedPerAddress() async throws {
        var app = TestApp()
        app.configuration.rateLimits = .init(enabled: true)
        app.configuration.rateLimits.passkeyChallengesPerAddress = .init(limit: 3, window: 600)
        _ = try await CredentialGuardsTests.register(app)  // the project as a first start makes it, with a relying party
        var project = try #require(try await app.store.project(id: "demo-project"))
        project.settings.passkeys = PasskeyConfig(rpID: "example.com", expectedOrigins: ["https://example.com"])
        _ = try await app.store.updateProject(project)
        try await app.run { client in
            var answers: [Int] = []
            for _ in 0..<5 {
                answers.append(try await client.post(Endpoints.startPasskeySignIn.path, [String: Any]()).status)
            }
            #expect(answers == [200, 200, 200, 400, 400], "\(answers)")
        }
    }
}
