import Foundation
import HearthCore
import HearthWire
import HTTPTypes
import Hummingbird

/// The console's session: `POST /console/session` signs an operator in (password and TOTP code), `GET` says who is
/// signed in (and the CSRF token the console repeats in `X-Hearth-CSRF`), `DELETE` signs out. The session is an
/// `HttpOnly`, `SameSite=Strict` cookie (`Secure` behind https); with it and the token, the console calls the admin
/// API like any administrator (``AdminGuard``), audited under `console:<email>`. Emulator mode needs no sign-in, as
/// Firebase's Emulator UI, and the console says so in its banner.
///
/// Signing in and out are protected against cross-site requests too: both take a JSON body type (which no form can
/// send), sign-in repeats in `X-Hearth-CSRF` the sign-in token a signed-out `GET` hands out with its own cookie, and
/// sign-out repeats the session's token.
enum ConsoleRoutes {
    static let cookie = "hearth_console"
    /// The signed-out page's token for its sign-in (double-submitted: cookie and header must agree).
    static let signInCookie = "hearth_console_signin"
    static let csrfHeader = HTTPField.Name("X-Hearth-CSRF")!

    /// Refuses a body that is not declared JSON, and an `X-Hearth-CSRF` other than `expected`.
    static func requireSameSite(_ call: Call, token expected: String?) throws {
        let type = call.request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            throw APIError.business(.invalidArgument, "the console's session calls take Content-Type: application/json")
        }
        guard let expected, !expected.isEmpty, let given = call.request.headers[csrfHeader],
              constantTimeEquals(Array(given.utf8), Array(expected.utf8))
        else { throw APIError.permissionDenied }
    }

    struct SignIn: Decodable {
        var email: String?
        var password: String?
        var code: String?
    }

    /// Who is signed in, with what the console's header shows: the project, its API key, the server's version, and
    /// whether email can leave (without SMTP, emails wait in the outbox).
    struct SessionInfo: Encodable {
        var email: String
        var csrf: String
        var projectId: String
        var emulator: Bool
        var apiKey: String
        var version: String
        var smtpConfigured: Bool
        /// How email and SMS leave: what the console's delivery page shows, and its warnings check.
        var delivery: Delivery
        /// Settings the server's configuration fixes, by admin API path, with where each comes from: shown
        /// read-only, since a change through the API would come undone at the next start.
        var pinned: [String: String]

        struct Delivery: Encodable {
            /// The SMTP server (`host:port`), its security, the sender and the user it signs in as; nil without one.
            var smtp: SMTP?
            /// The SMS provider in words (a webhook's host, Twilio's sender); nil without one.
            var sms: String?
            struct SMTP: Encodable {
                var server: String
                var security: String
                var from: String
                var username: String?
            }
        }

        init(email: String, csrf: String, project: ProjectContext, call: Call) {
            self.email = email
            self.csrf = csrf
            projectId = project.id
            emulator = call.configuration.isEmulator
            apiKey = project.record.apiKeys.first ?? ""
            version = call.configuration.version
            let email = call.configuration.emailConfiguration(for: project.id)
            smtpConfigured = email.smtp != nil
            delivery = Delivery(
                smtp: email.smtp.map { .init(server: "\($0.host):\($0.port)", security: $0.security.rawValue,
                                             from: (email.fromName.map { $0 + " " } ?? "") + "<\(email.from)>", username: $0.username) },
                sms: Self.smsProvider(call))
            pinned = call.configuration.pinned
        }

        /// Where codes go, in words, without a secret.
        static func smsProvider(_ call: Call) -> String? {
            if call.configuration.isEmulator { return "emulator mode: codes are listed, not sent" }
            switch call.configuration.sms {
            case .webhook(let url, _)?: return "webhook to " + (URLComponents(string: url)?.host ?? "?")
            case .twilio(_, _, let from, _)?: return "Twilio, from " + from
            case nil: return call.services.sms is UnconfiguredSMSSender ? nil : "a sender given in code"
            }
        }
    }

    static func signIn(_ call: Call) async throws -> Response {
        try requireSameSite(call, token: ActionPage.cookie(named: signInCookie, in: call.request))
        guard let body = call.jsonBody(SignIn.self) else {
            throw AuthFailure.invalidArgument("the body must be JSON: {\"email\", \"password\", \"code\"}")
        }
        let project = try await call.services.defaultProject()
        guard let email = body.email, !email.isEmpty, let password = body.password, !password.isEmpty else {
            throw AuthFailure.invalidLoginCredentials
        }
        do {
            let (token, session) = try await call.services.accounts.console.consoleSignIn(in: project, email: email,
                                                                                    password: password, code: body.code)
            await record(call, project: project, email: session.email, outcome: .success)
            var response = json(SessionInfo(email: session.email, csrf: session.csrf, project: project, call: call))
            response.headers[.setCookie] = cookieHeader(token, call: call, maxAge: Int(ConsoleOperators.consoleSessionLifetime))
            response.headers.append(HTTPField(name: .setCookie, value: cookieHeader("", call: call, maxAge: 0, name: signInCookie)))
            response.headers[.cacheControl] = "no-store"
            return response
        } catch let failure as AuthFailure {
            await record(call, project: project, email: email, outcome: .failure)
            throw failure
        }
    }

    static func show(_ call: Call) async throws -> Response {
        let project = try await call.services.defaultProject()
        if call.configuration.isEmulator {
            return json(SessionInfo(email: "emulator", csrf: "", project: project, call: call))
        }
        guard let token = ActionPage.cookie(named: cookie, in: call.request),
              let session = try await call.services.accounts.console.consoleSession(in: project, token: token)
        else {
            // Signed out: the sign-in form's token, in a header the page reads and a cookie only this site gets.
            let signInToken = SecureRandom.token(byteCount: 24)
            var response = try APIError.unauthenticated.response(from: call.request, context: call.context)
            response.headers[csrfHeader] = signInToken
            response.headers[.setCookie] = cookieHeader(signInToken, call: call, maxAge: 3600, name: signInCookie)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        var response = json(SessionInfo(email: session.email, csrf: session.csrf, project: project, call: call))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func signOut(_ call: Call) async throws -> Response {
        let project = try await call.services.defaultProject()
        if let token = ActionPage.cookie(named: cookie, in: call.request) {
            // A live session's sign-out repeats its token; a dead one's cookie is just cleared.
            if let session = try await call.services.accounts.console.consoleSession(in: project, token: token) {
                try requireSameSite(call, token: session.csrf)
            }
            try await call.services.accounts.console.consoleSignOut(in: project, token: token)
        }
        var response = json([String: String]())
        response.headers[.setCookie] = cookieHeader("", call: call, maxAge: 0)
        return response
    }

    /// The operator of a request carrying the console's cookie and CSRF token, or nil (then the request is not a
    /// console call). A cookie without the matching token is refused: another site can make the browser send the
    /// cookie, never read the token.
    static func operatorEmail(_ request: Request, services: HearthServices) async throws -> String? {
        guard let token = ActionPage.cookie(named: cookie, in: request) else { return nil }
        let project = try await services.defaultProject()
        guard let session = try await services.accounts.console.consoleSession(in: project, token: token) else {
            throw APIError.unauthenticated
        }
        guard let given = request.headers[csrfHeader], constantTimeEquals(Array(given.utf8), Array(session.csrf.utf8)) else {
            throw APIError.permissionDenied
        }
        return session.email
    }

    static func cookieHeader(_ value: String, call: Call, maxAge: Int, name: String = cookie) -> String {
        let secure = call.configuration.publicURL?.lowercased().hasPrefix("https:") ?? false
        return "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    private static func record(_ call: Call, project: ProjectContext, email: String, outcome: AuditEvent.Outcome) async {
        var scope = AuditScope.current ?? AuditScope(clientAddress: call.clientAddress)
        scope.actor = "console:" + email
        await AuditScope.$current.withValue(scope) {
            await call.services.audit.record(kind: "console-sign-in", projectID: project.id, localID: nil, outcome: outcome)
        }
    }
}
