import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// The hosted action page at router level: headers, CSRF, modes, no open redirect. The browser flow is in
/// HearthEndToEndTests (headless Chromium).
@Suite struct ActionPageTests {
    static let send = Endpoints.sendOobCode.path
    static let signIn = Endpoints.signInWithPassword.path

    static func page(_ message: OutboxMessage) -> String {
        "/__/auth/action?" + message.link.split(separator: "?", maxSplits: 1)[1]
    }

    static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func resetPasswordFormIsSafeAndNeedsItsCookie() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.signUp("page@example.com", "secret123")
            _ = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "page@example.com"],
                                      headers: [HTTPField.Name("X-Firebase-Locale")!: "ja"])
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            let form = try await client.send(.get, Self.page(message), key: nil)
            #expect(form.status == 200)
            #expect(form.headers[.contentType] == "text/html; charset=utf-8")
            #expect(form.headers[.cacheControl] == "no-store")
            #expect(form.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(form.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(form.text.contains("<html lang=\"ja\">") && form.text.contains("パスワードの再設定"))
            let cookie = try #require(form.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let token = try #require(Self.field("csrf", in: form.text))
            #expect(cookie.hasPrefix("hearth_action_csrf=\(token);"))

            func post(_ fields: [String: String], cookie: String?) async throws -> Reply {
                let body = fields.map { "\($0.key)=\(ActionCodes.queryEncoded($0.value))" }.joined(separator: "&")
                var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                if let cookie { headers[.cookie] = cookie }
                return try await client.send(.post, "/__/auth/action", key: nil, raw: body, headers: headers)
            }
            let fields = ["mode": "resetPassword", "oobCode": message.code, "apiKey": "test-api-key", "lang": "ja",
                          "csrf": token, "newPassword": "new pass+word"]
            let forged = try await post(fields, cookie: nil)
            #expect(forged.status == 403, "no cookie: a cross-site form post is refused")
            let mismatched = try await post(fields, cookie: "hearth_action_csrf=someone-else")
            #expect(mismatched.status == 403)
            var weak = fields
            weak["newPassword"] = "123"
            let refused = try await post(weak, cookie: "hearth_action_csrf=\(token)")
            #expect(refused.status == 400 && refused.text.contains("6"), "weak password: the form again, code kept")
            let done = try await post(fields, cookie: "hearth_action_csrf=\(token)")
            #expect(done.status == 200 && done.text.contains("パスワードを変更しました"))
            #expect(try await client.post(Self.signIn, ["email": "page@example.com", "password": "new pass+word"]).status == 200)
            let again = try await post(fields, cookie: "hearth_action_csrf=\(token)")
            #expect(again.status == 400, "the code is used up")
        }
    }

    @Test func badLinksGetAnErrorPageNeverA500() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.signUp("page@example.com")
            _ = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "page@example.com"])
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            let code = message.code
            for path in ["/__/auth/action", "/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=test-api-key",
                         "/__/auth/action?mode=verifyEmail&oobCode=\(code)&apiKey=test-api-key",  // wrong mode
                         "/__/auth/action?mode=resetPassword&oobCode=\(code)&apiKey=wrong-key",
                         "/__/auth/action?mode=bogus&oobCode=\(code)&apiKey=test-api-key&lang=%00"] {
                let reply = try await client.send(.get, path, key: nil)
                #expect(reply.status == 400, "\(path)")
                #expect(reply.text.contains("This link is invalid"), "\(path)")
            }
            let garbage = try await client.send(.post, "/__/auth/action", key: nil, raw: "%%%&&==&mode",
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(garbage.status == 400)
            #expect(try await client.send(.get, "/emulator/action", key: nil).status == 404, "emulator path is emulator-only")
        }
    }

    @Test func verifyAppliesAndRecoverAsksFirst() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            let user = try await client.signUp("page@example.com", "secret123")
            _ = try await client.post(Self.send, ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!,
                                                  "continueUrl": "http://localhost/done"])
            let verify = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            let verified = try await client.send(.get, Self.page(verify), key: nil)
            #expect(verified.status == 200 && verified.text.contains("Your email has been verified"))
            #expect(verified.text.contains("href=\"http://localhost/done\""))

            _ = try await client.post(Endpoints.update.path,
                                      ["idToken": user["idToken"]!, "email": "moved@example.com"])
            let notice = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(notice.type == .recoverEmail)
            let prompt = try await client.send(.get, Self.page(notice), key: nil)
            #expect(prompt.text.contains("moved@example.com") && prompt.text.contains("id=\"submit\""))
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "moved@example.com") != nil,
                    "opening the link changed nothing")
            let token = try #require(Self.field("csrf", in: prompt.text))
            let body = "mode=recoverEmail&oobCode=\(notice.code)&apiKey=test-api-key&lang=en&csrf=\(token)"
            let restored = try await client.send(.post, "/__/auth/action", key: nil, raw: body, headers: [
                .contentType: "application/x-www-form-urlencoded", .cookie: "hearth_action_csrf=\(token)"])
            #expect(restored.status == 200 && restored.text.contains("page@example.com again"))
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "page@example.com") != nil)
        }
    }

    @Test func signInLinksGoToTheStoredContinueURLOnly() async throws {
        let app = TestApp(protection: false)
        try await app.run { client in
            _ = try await client.post(Self.send, ["requestType": "EMAIL_SIGNIN", "email": "link@example.com",
                                                  "continueUrl": "https://localhost/finish?step=2"])
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            let tampered = Self.page(message).replacingOccurrences(of: "localhost%2Ffinish", with: "evil.example%2F")
            let reply = try await client.send(.get, tampered + "&continueUrl=https%3A%2F%2Fevil.example%2F", key: nil)
            #expect(reply.status == 303)
            let location = try #require(reply.headers[.location])
            #expect(location.hasPrefix("https://localhost/finish?step=2&apiKey=test-api-key&oobCode=\(message.code)&mode=signIn"))
        }
    }

    @Test func emulatorActionEndpointAppliesLinksLikeFirebasesEmulator() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            _ = try await client.signUp("emu@example.com", "secret123")
            _ = try await client.post(Self.send, ["requestType": "PASSWORD_RESET", "email": "emu@example.com"])
            let message = try #require(try await app.store.outboxMessages(projectID: "demo-project").last)
            #expect(message.link.contains("/emulator/action?mode=resetPassword&oobCode=\(message.code)"))
            let path = "/emulator/action?" + message.link.split(separator: "?", maxSplits: 1)[1]
            let applied = try await client.send(.get, path + "&newPassword=emulated1", key: nil)
            #expect(applied.status == 200)
            #expect(try await client.post(Self.signIn, ["email": "emu@example.com", "password": "emulated1"]).status == 200)
            #expect(try await app.store.outboxMessages(projectID: "demo-project").count == 1,
                    "emulator mode keeps messages listed")
        }
    }
}
