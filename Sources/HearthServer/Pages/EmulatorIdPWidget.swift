import Foundation
import HearthCore
import Hummingbird

/// Emulator mode's `/emulator/auth/handler` for providers the project has not configured: Firebase's emulator's fake
/// IdP page. The developer types an email (and optionally a name, screen name and photo); the page makes the
/// emulator's fake `id_token` (plain JSON claims, `email_verified: true`) and sends the browser back to the app exactly
/// as the emulator's widget does — `app-<appId>://firebaseauth/link` or the reversed client id for iOS, or
/// `redirectUrl?link=…` — with `link` = this URL plus `providerId` and `id_token`, which `signInWithIdp` accepts as
/// `requestUri` in emulator mode. Plain HTML, no script; never served in production.
enum EmulatorIdPWidget {
    static let parameterNames = ["apiKey", "appName", "authType", "providerId", "redirectUrl", "scopes", "eventId",
                                 "clientId", "appId", "ibi", "sessionId", "customParameters", "hl", "v"]

    static func show(_ query: [String: String], error: String? = nil) -> Response {
        let provider = escape(query["providerId"] ?? "")
        let hidden = parameterNames.compactMap { name in
            query[name].map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(escape($0))\">" }
        }.joined(separator: "\n")
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in with \(provider) (Hearth emulator)</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}
            label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=email]{width:100%;padding:.4rem}
            .note{color:#555;font-size:.9rem}.error{color:#b00020}button{margin-top:1rem;padding:.5rem 1rem}</style>
            </head><body>
            <h1>Sign in with \(provider)</h1>
            <p class="note">Emulator mode: no real \(provider) account is involved. Enter the account to sign in as.</p>
            \(error.map { "<p class=\"error\">\(escape($0))</p>" } ?? "")
            <form method="post" action="">
            \(hidden)
            <label for="email">Email</label><input id="email" type="email" name="email" required>
            <label for="displayName">Display name (optional)</label><input id="displayName" type="text" name="displayName">
            <label for="screenName">Screen name (optional)</label><input id="screenName" type="text" name="screenName">
            <label for="photoUrl">Photo URL (optional)</label><input id="photoUrl" type="text" name="photoUrl">
            <button id="sign-in" type="submit">Sign in with \(provider)</button>
            </form></body></html>
            """
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
        Page.secure(&headers)
        return Response(status: error == nil ? .ok : .badRequest, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The form's answer: the fake account's claims, and the browser sent back to the app.
    static func submit(_ call: Call) async throws -> Response {
        let form = ActionPage.formFields(String(buffer: call.body))
        guard let providerID = form["providerId"], !providerID.isEmpty else {
            return show(form, error: "providerId is missing")
        }
        guard let email = form["email"], EmailAddress.isValid(email) else {
            return show(form, error: "Enter a valid email address.")
        }
        var claims: [String: Any] = ["sub": SecureRandom.string(length: 40, alphabet: Array("0123456789")),
                                     "iss": "", "aud": "", "exp": 0, "iat": 0, "email": email, "email_verified": true]
        if let name = form["displayName"], !name.isEmpty { claims["name"] = name }
        if let screen = form["screenName"], !screen.isEmpty { claims["screen_name"] = screen }
        if let photo = form["photoUrl"], !photo.isEmpty { claims["picture"] = photo }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]), as: UTF8.self)
        let link = call.services.publicBaseURL + call.request.uri.path + "?providerId="
            + FormEncoding.escape(providerID) + "&id_token=" + FormEncoding.escape(json)
        let encodedLink = FormEncoding.escape(link)
        let eventID = (form["eventId"] ?? "").filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let authType = (form["authType"] ?? "signInWithRedirect").filter(\.isLetter)

        if let given = form["redirectUrl"], !given.isEmpty {
            let project = try await call.services.defaultProject()
            guard let redirect = try? AuthorizedDomains.check(given, in: call.configuration.continueURLDomains(for: project.record)) else {
                return show(form, error: "redirectUrl is not on an authorized domain.")
            }
            return AuthHandler.found(redirect + (redirect.contains("?") ? "&" : "?") + "link=" + encodedLink)
        }
        // iOS: the reversed client id, the app-<appId> scheme, or the bundle id — as the emulator's widget chooses.
        let scheme: String
        let host: String
        if let clientID = form["clientId"], !clientID.isEmpty {
            scheme = clientID.split(separator: ".").reversed().joined(separator: ".")
            host = "firebaseauth"
        } else if let appID = form["appId"], !appID.isEmpty {
            scheme = "app-" + appID.replacingOccurrences(of: ":", with: "-")
            host = "firebaseauth"
        } else if let bundle = form["ibi"], !bundle.isEmpty {
            scheme = bundle
            host = "google"
        } else {
            return show(form, error: "Missing one of redirectUrl / clientId / appId / ibi.")
        }
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }) else {
            return show(form, error: "The app's scheme is not valid.")
        }
        let callback = call.services.publicBaseURL + "/__/auth/callback?authType=" + authType + "&link=" + encodedLink
            + (eventID.isEmpty ? "" : "&eventId=" + eventID)
        return AuthHandler.found(scheme + "://" + host + "/link?deep_link_id=" + FormEncoding.escape(callback))
    }

    /// Text safe inside HTML elements and double-quoted attributes (this page's and the handler's error page).
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
