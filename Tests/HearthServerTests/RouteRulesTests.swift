import Foundation
import HearthCore
@testable import HearthServer
import HTTPTypes
import Logging
import HearthWire
import Testing

/// Every name of a route carries the rules of its line: the legacy v3 names get exactly the v1 names' guards,
/// limits and switches, answer bad input alike, and a switch that is off refuses on every name, in a tenant and in
/// the project.
@Suite struct RouteRulesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

    /// Each legacy v3 name and the route it is another name of (method, path).
    static let twins: [String: (HTTPRequest.Method, String)] = [
        "signupNewUser": (.post, Endpoints.signUp.path),
        "verifyPassword": (.post, Endpoints.signInWithPassword.path),
        "verifyCustomToken": (.post, Endpoints.signInWithCustomToken.path),
        "getAccountInfo": (.post, Endpoints.lookup.path),
        "setAccountInfo": (.post, Endpoints.update.path),
        "deleteAccount": (.post, Endpoints.delete.path),
        "getOobConfirmationCode": (.post, Endpoints.sendOobCode.path),
        "resetPassword": (.post, Endpoints.resetPassword.path),
        "emailLinkSignin": (.post, Endpoints.signInWithEmailLink.path),
        "verifyAssertion": (.post, Endpoints.signInWithIdp.path),
        "createAuthUri": (.post, Endpoints.createAuthUri.path),
        "getProjectConfig": (.get, "\(v1)/projects"),
        "sendVerificationCode": (.post, Endpoints.sendVerificationCode.path),
        "verifyPhoneNumber": (.post, Endpoints.signInWithPhoneNumber.path),
        "getRecaptchaParam": (.get, "\(v1)/recaptchaParams"),
        "publicKeys": (.get, "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"),
        "uploadAccount": (.post, "\(v1)/projects/{project}/accounts:batchCreate"),
        "downloadAccount": (.get, "\(v1)/projects/{project}/accounts:batchGet"),
    ]

    static func table(_ mode: ServerConfiguration.Mode) -> RouteTable {
        let configuration = ServerConfiguration(mode: mode, port: 0, projectID: "demo-project")
        let services = HearthServices(configuration: configuration, store: InMemoryStore(), clock: ManualClock(Date()),
                                      hashing: InlineWorkRunner(), logger: Logger(label: "test"))
        return HearthRoutes.table(services: services)
    }

    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func everyV3NameCarriesItsTwinsGuardsLimitsAndRules(_ mode: ServerConfiguration.Mode) {
        let entries = Self.table(mode).entries
        let v3 = entries.filter { $0.path.hasPrefix(Self.v3) }
        #expect(v3.count >= 16, "the v3 names are registered")
        for entry in v3 {
            let name = String(entry.path.dropFirst(Self.v3.count + 1))
            guard let (method, path) = Self.twins[name] else {
                Issue.record("\(name) has no known twin: add it to RouteRulesTests.twins")
                continue
            }
            guard let twin = entries.first(where: { $0.method == method && $0.path == path }) else {
                Issue.record("\(name)'s twin \(path) is not registered")
                continue
            }
            #expect(entry.guards == twin.guards, "\(name): \(entry.guards) vs \(path): \(twin.guards)")
            #expect(entry.rules == twin.rules, "\(name): \(entry.rules) vs \(path): \(twin.rules)")
        }
    }

    @Test func theSwitchedRoutesDeclareTheirSwitch() {
        let entries = Self.table(.production).entries
        func rules(_ path: String) -> RouteRules? { entries.first { $0.path == path }?.rules }
        #expect(rules("\(Self.v3)/verifyPassword")?.needs == .password)
        #expect(rules("\(Self.v3)/resetPassword")?.needs == .password)
        #expect(rules("\(Self.v3)/emailLinkSignin")?.needs == .emailLink)
        #expect(rules("\(Self.v3)/getOobConfirmationCode")?.needs == .emailLinkWhenRequested)
        #expect(rules("\(Self.v3)/sendVerificationCode")?.needs == .phone)
        #expect(rules("\(Self.v3)/verifyPhoneNumber")?.needs == .phone)
        // Admin calls that only read are not audited as changes; the others are.
        func guards(_ path: String) -> [String] { entries.first { $0.path == path }?.guards ?? [] }
        #expect(!guards("\(Self.v3)/getAccountInfo").contains("AdminAudited") && guards(Endpoints.update.path).contains("AdminAudited"))
        #expect(guards("\(Self.v3)/verifyPassword").suffix(2) == ["SignInSwitch", "CaptchaChecked"], "in the order the line shows")
    }

    /// Today's bypass: a tenant with every sign-in method off, reached by the v3 names.
    @Test func aTenantWithEveryMethodOffRefusesOnEveryName() async throws {
        let app = TestApp(protection: false)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "t-off"))
        try await app.run { client in
            for (v1, v3) in [("accounts:sendOobCode", "getOobConfirmationCode"), ("accounts:signInWithEmailLink", "emailLinkSignin"),
                             ("accounts:signInWithPassword", "verifyPassword"), ("accounts:resetPassword", "resetPassword")] {
                let body: [String: Any] = ["tenantId": "t-off", "requestType": "EMAIL_SIGNIN", "email": "eve@example.com",
                                           "oobCode": "whatever", "password": "secret1", "newPassword": "secret2"]
                var strict = body  // production refuses unknown fields: each call gets only its own
                switch v1 {
                case "accounts:sendOobCode": strict = body.filter { ["tenantId", "requestType", "email"].contains($0.key) }
                case "accounts:signInWithEmailLink": strict = body.filter { ["tenantId", "email", "oobCode"].contains($0.key) }
                case "accounts:signInWithPassword": strict = body.filter { ["tenantId", "email", "password"].contains($0.key) }
                default: strict = body.filter { ["tenantId", "oobCode", "newPassword"].contains($0.key) }
                }
                let expected = v1.hasSuffix("Password") || v1.hasSuffix("resetPassword") ? "PASSWORD_LOGIN_DISABLED" : "OPERATION_NOT_ALLOWED"
                for path in ["\(Self.v1)/\(v1)", "\(Self.v3)/\(v3)"] {
                    let reply = try await client.post(path, strict)
                    #expect(reply.status == 400 && reply.errorMessage?.hasPrefix(expected) == true, "\(path): \(reply.text)")
                }
            }
            #expect(try await app.store.outboxMessages(projectID: "demo-project").isEmpty, "no link was sent")
        }
    }

    /// The project's own switches hold on every name: email off stops links too; passwordRequired stops links
    /// alone; phone off stops phone sign-in.
    @Test func theProjectsSwitchesHoldOnEveryName() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.signUp("ada@example.com")
            func set(_ change: (inout ProjectSettings) -> Void) async throws {
                var record = try #require(try await app.store.project(id: "demo-project"))
                change(&record.settings)
                _ = try await app.store.updateProject(record)
                app.clock.advance(by: 10)  // past the project cache
            }
            func refusals(_ v1: String, _ v3: String, _ body: [String: Any]) async throws -> [String] {
                var messages: [String] = []
                for path in ["\(Self.v1)/\(v1)", "\(Self.v3)/\(v3)"] {
                    messages.append(try await client.post(path, body).errorMessage ?? "OK")
                }
                return messages
            }
            let link: [String: Any] = ["requestType": "EMAIL_SIGNIN", "email": "ada@example.com",
                                       "continueUrl": "http://localhost/done"]
            let password: [String: Any] = ["email": "ada@example.com", "password": "secret1"]
            let phone: [String: Any] = ["phoneNumber": "+15555550100"]

            try await set { $0[.emailLinkSignIn] = false }
            #expect(try await refusals("accounts:sendOobCode", "getOobConfirmationCode", link).allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") })
            // EMAIL_SIGNIN by its proto number, as Android sends it: the switch reads the decoded type, not the text.
            for number in [6, "6"] as [Any] {
                var byNumber = link
                byNumber["requestType"] = number
                #expect(try await refusals("accounts:sendOobCode", "getOobConfirmationCode", byNumber).allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") },
                        "requestType \(number)")
            }
            #expect(try await refusals("accounts:signInWithEmailLink", "emailLinkSignin", ["email": "ada@example.com", "oobCode": "x"])
                .allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") })
            #expect(try await refusals("accounts:signInWithPassword", "verifyPassword", password) == ["OK", "OK"],
                    "passwords still work")
            let reset: [String: Any] = ["requestType": "PASSWORD_RESET", "email": "ada@example.com"]
            #expect(try await refusals("accounts:sendOobCode", "getOobConfirmationCode", reset) == ["OK", "OK"])

            try await set { $0.declared.reset(.emailLinkSignIn); $0[.passwordSignIn] = false }
            #expect(try await refusals("accounts:sendOobCode", "getOobConfirmationCode", link).allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") },
                    "email off stops links too")
            #expect(try await refusals("accounts:signInWithPassword", "verifyPassword", password)
                .allSatisfy { $0.hasPrefix("PASSWORD_LOGIN_DISABLED") })

            try await set { $0[.passwordSignIn] = true; $0[.phoneSignIn] = false }
            #expect(try await refusals("accounts:sendVerificationCode", "sendVerificationCode", phone)
                .allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") })
            #expect(try await refusals("accounts:signInWithPhoneNumber", "verifyPhoneNumber", ["sessionInfo": "x", "code": "123456"])
                .allSatisfy { $0.hasPrefix("OPERATION_NOT_ALLOWED") })
            #expect(app.sms.messages.isEmpty, "no SMS was sent")
            try await set { $0[.phoneSignIn] = true }
            #expect(try await client.post("\(Self.v3)/sendVerificationCode", phone).status == 200)
        }
    }

    /// Bad input is answered alike by both names: malformed JSON is a 400 with the same message, never a 500.
    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func badInputIsAnsweredAlikeOnEveryName(_ mode: ServerConfiguration.Mode) async throws {
        let app = TestApp(mode: mode)
        try await app.run { client in
            for (name, twin) in Self.twins where twin.0 == .post && !twin.1.contains("{project}") {
                var answers: [String] = []
                for path in ["\(Self.v3)/\(name)", twin.1] {
                    let reply = try await client.post(path, raw: "{\"email\": ")
                    #expect(reply.status == 400, "\(path): \(reply.status) \(reply.text)")
                    answers.append("\(reply.status) \(reply.errorMessage ?? reply.text)")
                }
                #expect(answers[0] == answers[1], "\(name): \(answers)")
            }
        }
        var emulator = TestApp(mode: .emulator)
        emulator.configuration.projectID = "demo-project"
        try await emulator.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            for path in ["\(Self.v3)/downloadAccount", "\(Self.v3)/uploadAccount",
                         "\(Self.v1)/projects/demo-project/accounts:batchCreate"] {
                let reply = try await client.post(path, raw: "{\"targetProjectId\": ", headers: owner)
                #expect(reply.status == 400 && reply.text.contains("INVALID_ARGUMENT"), "\(path): \(reply.status) \(reply.text)")
            }
        }
    }
}
