import Foundation
import HearthCore
import HTTPTypes
import Hummingbird
import Mustache

/// The hosted email action page, `/__/auth/action` (and emulator mode's `/emulator/action`): what the links in
/// Hearth's emails open. It resets a password (a form), verifies an email, reverts an email change (after a
/// confirmation, so a mail scanner that follows links cannot undo anything), or hands an email-link sign-in to the
/// app, then offers the continue link.
///
/// Safety: forms carry a token that must match a `SameSite=Strict` cookie set with the page (CSRF); the continue
/// link is the one stored with the code when it was sent (checked against the authorized domains then), never the
/// `continueUrl` of the address bar (no open redirect); pages are `no-store`, `no-referrer` (the code in the URL
/// leaks nowhere), framed by nobody, and under a CSP with no script at all. Codes are never logged.
enum ActionPage {
    /// `GET`: show the page for the link.
    static func show(_ call: Call) async throws -> Response {
        let query = call.request.uri.queryParameters
        let input = Input(mode: query["mode"].map(String.init), code: query["oobCode"].map(String.init),
                          apiKey: query["apiKey"].map(String.init), lang: query["lang"].map(String.init),
                          tenantID: query["tenantId"].map(String.init),
                          newPassword: query["newPassword"].map(String.init), csrf: nil)
        return await respond(to: input, posted: false, call)
    }

    /// `POST`: the reset form or the recovery confirmation.
    static func submit(_ call: Call) async throws -> Response {
        let form = formFields(String(buffer: call.body))
        let input = Input(mode: form["mode"], code: form["oobCode"], apiKey: form["apiKey"], lang: form["lang"],
                          tenantID: form["tenantId"], newPassword: form["newPassword"], csrf: form["csrf"])
        return await respond(to: input, posted: true, call)
    }

    struct Input {
        var mode, code, apiKey, lang, tenantID, newPassword, csrf: String?
    }

    private static func respond(to input: Input, posted: Bool, _ call: Call) async -> Response {
        let (locale, text) = ActionPageText.best(for: input.lang ?? call.request.headers[.acceptLanguage])
        var page = Page(locale: locale, action: call.request.uri.path, text: text,
                        secureCookie: call.configuration.publicURL?.lowercased().hasPrefix("https:") ?? false)
        page.hidden = ["mode": input.mode ?? "", "oobCode": input.code ?? "", "apiKey": input.apiKey ?? "",
                       "lang": input.lang ?? locale]
        if let tenantID = input.tenantID { page.hidden["tenantId"] = tenantID }
        do {
            guard let project = try await project(for: input, call) else { return page.invalid() }
            let accounts = call.services.accounts
            let record = try await accounts.actionCodes.inspectActionCode(in: project, code: input.code)
            guard record.type.mode == input.mode else { return page.invalid() }
            if posted {
                guard let token = input.csrf, let cookie = cookie(named: csrfCookie, in: call.request),
                      constantTimeEquals(Array(token.utf8), Array(cookie.utf8))
                else { return page.render(title: text.invalidTitle, error: text.formExpired, status: .forbidden) }
            }
            switch record.type {
            case .passwordReset:
                let emulatorShortcut = call.configuration.isEmulator && input.newPassword != nil
                guard posted || emulatorShortcut, let newPassword = input.newPassword else {
                    return page.form(title: text.resetTitle, submit: text.save, password: true)
                }
                do {
                    let used = try await accounts.actionCodes.resetPassword(in: project, code: input.code, newPassword: newPassword)
                    return page.render(title: text.resetTitle, message: text.passwordChanged, continueURL: used.continueURL)
                } catch AuthFailure.weakPassword {
                    return page.form(title: text.resetTitle, submit: text.save, password: true, error: text.weakPassword,
                                     status: .badRequest)
                }
            case .verifyEmail, .verifyAndChangeEmail:
                let (user, used, notice) = try await accounts.actionCodes.applyActionCode(
                    in: project, code: input.code, links: call.actionLinks(project), locale: locale)
                if let notice { call.services.emailQueued(notice) }
                let values = ["email": user.email ?? ""]
                return used.type == .verifyEmail
                    ? page.render(title: text.verifiedTitle, message: fill(text.verified, values), continueURL: used.continueURL)
                    : page.render(title: text.changedTitle, message: fill(text.changed, values), continueURL: used.continueURL)
            case .recoverEmail:
                let values = ["email": record.email, "newEmail": record.newEmail ?? ""]
                guard posted else {
                    return page.form(title: text.recoverTitle, submit: text.restore, message: fill(text.recoverPrompt, values))
                }
                _ = try await accounts.actionCodes.applyActionCode(in: project, code: input.code)
                return page.render(title: text.recoverTitle, message: fill(text.recovered, values))
            case .emailSignIn:
                // The app finishes the sign-in (`signInWithEmailLink`) at its own address, with the link's fields.
                guard let continueURL = record.continueURL, let code = input.code else {
                    return page.render(title: text.signInTitle, message: text.signInElsewhere)
                }
                let fields = [("apiKey", input.apiKey ?? ""), ("oobCode", code), ("mode", "signIn"), ("lang", locale)]
                    + (project.tenantID.map { [("tenantId", $0)] } ?? [])
                let query = fields.map { "\($0.0)=\(ActionCodes.queryEncoded($0.1))" }.joined(separator: "&")
                var response = Response(status: .seeOther)
                response.headers[.location] = continueURL + (continueURL.contains("?") ? "&" : "?") + query
                Page.secure(&response.headers)
                return response
            }
        } catch {
            if !(error is AuthFailure) {
                call.services.logger.error("action page failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            return page.invalid()
        }
    }

    /// The link's project: the one its API key belongs to (emulator mode: the served project, any key), acting in
    /// the link's `tenantId` if it names one (a code works only there); `nil` for a wrong key, or a tenant that is
    /// unknown or has sign-in turned off.
    private static func project(for input: Input, _ call: Call) async throws -> ProjectContext? {
        let project = try await call.services.defaultProject()
        if !call.configuration.isEmulator {
            guard let apiKey = input.apiKey,
                  project.record.apiKeys.contains(where: { constantTimeEquals(Array($0.utf8), Array(apiKey.utf8)) })
            else { return nil }
        }
        guard let id = input.tenantID, !id.isEmpty else { return project }
        do {
            return try await call.services.project(project, inTenant: id)
        } catch let error as APIError where error.status == .badRequest {
            return nil  // TENANT_NOT_FOUND, INVALID_TENANT_ID, PROJECT_DISABLED
        }
    }

    static let csrfCookie = "hearth_action_csrf"

    static func cookie(named name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// `application/x-www-form-urlencoded`: `+` is a space, then percent-decoding.
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let name = parts.first.map(decode), !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    /// Fills `{{email}}`-style placeholders of a page string (the page template escapes the result).
    static func fill(_ text: String, _ values: [String: String]) -> String {
        values.reduce(text) { $0.replacingOccurrences(of: "{{\($1.key)}}", with: $1.value) }
    }
}

/// One rendering of the page.
struct Page {
    var locale: String
    var action: String
    var text: ActionPageText
    /// Mark the CSRF cookie `Secure` (when the server is reached over HTTPS).
    var secureCookie: Bool
    var hidden: [String: String] = [:]

    func invalid() -> Response {
        render(title: text.invalidTitle, error: text.invalidLink, status: .badRequest)
    }

    /// A page with a form (a password field, or just a confirmation button) protected by a fresh CSRF token.
    func form(title: String, submit: String, password: Bool = false, message: String? = nil, error: String? = nil,
              status: HTTPResponse.Status = .ok) -> Response {
        let token = SecureRandom.token()
        var fields = hidden
        fields["csrf"] = token
        var response = render(title: title, message: message, error: error, status: status, form: [
            "submit": submit, "password": password, "newPasswordLabel": text.newPassword, "action": action,
            "fields": fields.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
        ])
        let secure = secureCookie ? "; Secure" : ""
        response.headers[.setCookie] = "\(ActionPage.csrfCookie)=\(token); Path=/; HttpOnly; SameSite=Strict\(secure)"
        return response
    }

    func render(title: String, message: String? = nil, error: String? = nil, continueURL: String? = nil,
                status: HTTPResponse.Status = .ok, form: [String: Any]? = nil) -> Response {
        var context: [String: Any] = ["lang": locale, "title": title, "continueLabel": text.continueLabel]
        if let message { context["message"] = message }
        if let error { context["error"] = error }
        if let continueURL { context["continueURL"] = continueURL }
        if let form { context["form"] = form }
        let html = Self.template?.render(context) ?? title
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
        Self.secure(&headers)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func secure(_ headers: inout HTTPFields) {
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    static let template = try? MustacheTemplate(string: """
        <!DOCTYPE html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>{{title}}</title>
        <style>
        body { font-family: -apple-system, "Segoe UI", Roboto, "Noto Sans", Helvetica, Arial, sans-serif; margin: 0;
               background: #f5f5f7; color: #1d1d1f; line-height: 1.5; }
        main { max-width: 26rem; margin: 12vh auto; background: #fff; padding: 2rem; border-radius: 12px;
               box-shadow: 0 1px 4px rgba(0,0,0,.12); }
        h1 { font-size: 1.4rem; margin-top: 0; }
        label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
        input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem;
               border: 1px solid #8e8e93; border-radius: 6px; }
        button, .button { display: inline-block; margin-top: 1.2rem; padding: .6rem 1.2rem; font-size: 1rem;
               border: 0; border-radius: 6px; background: #0b57d0; color: #fff; text-decoration: none; cursor: pointer; }
        button:focus, .button:focus, input:focus { outline: 3px solid #fbbc04; outline-offset: 2px; }
        .error { color: #b3261e; font-weight: 600; }
        </style>
        </head>
        <body>
        <main>
        <h1>{{title}}</h1>
        {{#message}}<p id="message" role="status">{{message}}</p>{{/message}}
        {{#error}}<p id="error" class="error" role="alert">{{error}}</p>{{/error}}
        {{#form}}
        <form method="post" action="{{action}}">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
        {{/fields}}
        {{#password}}<label for="newPassword">{{newPasswordLabel}}</label>
        <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" minlength="6" required autofocus>
        {{/password}}
        <button id="submit" type="submit">{{submit}}</button>
        </form>
        {{/form}}
        {{#continueURL}}<p><a id="continue" class="button" href="{{continueURL}}">{{continueLabel}}</a></p>{{/continueURL}}
        </main>
        </body>
        </html>

        """)
}
