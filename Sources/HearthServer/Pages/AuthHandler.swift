import Foundation
import HearthCore
import Hummingbird

/// The hosted OAuth redirect helper, `/__/auth/handler` (and `/emulator/auth/handler` in emulator mode): what
/// `OAuthProvider.getCredentialWith` and `signInWithRedirect` open so that the app never talks to the IdP itself.
///
/// 1. The SDK opens it with `apiKey`, `providerId`, `sessionId` (SHA-256 hex of a secret it keeps), `eventId`,
///    `authType`, optional `scopes`, `customParameters` (JSON) and `tid` (the tenant), and where to come back:
///    `redirectUrl` (web, an authorized domain) or `appId` (`app-<appId>://firebaseauth/link`, as the iOS SDK
///    expects). With `tid`, the tenant's providers are used and only a sign-in in that tenant finishes the session.
/// 2. The handler starts the authorization-code flow (state, PKCE, nonce) with itself as the redirect URI and sends
///    the browser to the provider.
/// 3. The provider sends the browser back here with `code` and `state`; the handler forwards that URL as `link` to the
///    app, which calls `signInWithIdp` with it as `requestUri` and its raw session id as `sessionId`.
///
/// Nothing secret crosses the page: the code is useless without the session id the app never sent.
enum AuthHandler {
    static func show(_ call: Call) async throws -> Response {
        let query = Dictionary(call.request.uri.queryParameters.map { (String($0.key), String($0.value)) },
                               uniquingKeysWith: { first, _ in first })
        do {
            if let state = query["state"], query["code"] != nil || query["error"] != nil || query["oauth_verifier"] != nil {
                return try await finish(call, state: state, link: call.services.publicBaseURL + call.request.uri.description)
            }
            // Emulator mode, a provider the project (or tenant) has not configured: the emulator's fake-account page.
            if call.configuration.isEmulator, call.request.uri.path.hasPrefix("/emulator/"),
               try await project(call, tenantID: query["tid"]).settings.identityProviders?[query["providerId"] ?? ""]?.enabled != true {
                return EmulatorIdPWidget.show(query)
            }
            return try await start(call, query: query)
        } catch let failure as AuthFailure {
            return page("Sign-in could not continue", detail: failure.apiError.envelope.error.message, status: .badRequest)
        } catch let error as APIError {
            return page("Sign-in could not continue", detail: error.envelope.error.message, status: error.status)
        }
    }

    /// The served project, acting in the tenant the SDK names (`tid`, from `Auth.tenantID`): its providers, and
    /// a session only a sign-in in that tenant can finish.
    static func project(_ call: Call, tenantID: String?) async throws -> ProjectContext {
        let project = try await call.services.defaultProject()
        guard let tenantID, !tenantID.isEmpty else { return project }
        return try await call.services.project(project, inTenant: tenantID)
    }

    static func start(_ call: Call, query: [String: String]) async throws -> Response {
        let project = try await project(call, tenantID: query["tid"])
        if !call.configuration.isEmulator {
            guard let key = query["apiKey"],
                  project.record.apiKeys.contains(where: { constantTimeEquals(Array($0.utf8), Array(key.utf8)) })
            else { throw APIError.invalidAPIKey }
        }
        guard let providerID = query["providerId"], !providerID.isEmpty else { throw AuthFailure.invalidArgument("providerId is missing") }
        guard let sessionDigest = query["sessionId"] else { throw AuthFailure.missingSessionInfo }
        let target = try returnTarget(query, call: call, project: project)
        guard let redirects = call.services.redirects else { throw AuthFailure.providerNotEnabled(providerID) }
        let handlerURL = call.services.publicBaseURL + call.request.uri.path
        let redirect = FederatedRedirect(providerID: providerID, redirectURI: handlerURL)
        let custom = query["customParameters"].flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
        } ?? [:]
        var parameters = custom
        if let language = query["hl"], parameters["hl"] == nil, parameters["lang"] == nil { parameters["hl"] = language }
        let scopes = (query["scopes"] ?? "").split(separator: ",").map(String.init)
        let (url, kept) = try await redirects.authorize(redirect, scopes: scopes, customParameters: parameters,
                                                        project: project)
        try await call.services.accounts.federated.startRedirect(kept, sessionDigest: sessionDigest, in: project)
        try await call.services.accounts.federated.rememberReturn(target, state: redirect.state, in: project)
        return found(url)
    }

    /// Apple answers with a form POST (`response_mode=form_post`, which it requires when the name or email is asked
    /// for): the same fields as a query, plus `user` (the name, the first time). The link given to the app carries
    /// them as a query, so `signInWithIdp` reads them as from any other provider.
    static func submit(_ call: Call) async throws -> Response {
        let form = ActionPage.formFields(String(buffer: call.body))
        do {
            guard let state = form["state"], form["code"] != nil || form["error"] != nil else {
                throw AuthFailure.invalidArgument("the provider's answer has no state and code")
            }
            let kept = ["code", "state", "user", "error"].compactMap { name in form[name].map { (name, $0) } }
            let link = call.services.publicBaseURL + call.request.uri.path + "?"
                + kept.map { "\($0.0)=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
            return try await finish(call, state: state, link: link)
        } catch let failure as AuthFailure {
            return page("Sign-in could not continue", detail: failure.apiError.envelope.error.message, status: .badRequest)
        } catch let error as APIError {
            return page("Sign-in could not continue", detail: error.envelope.error.message, status: error.status)
        }
    }

    static func finish(_ call: Call, state: String, link: String) async throws -> Response {
        let project = try await call.services.defaultProject()
        guard let target = try await call.services.accounts.federated.takeReturn(state: state, in: project) else {
            throw AuthFailure.invalidIDPResponse("this sign-in has expired or was already completed; start again")
        }
        let encoded = link.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        if target.hasPrefix("web:") {
            let base = String(target.dropFirst(4))
            return found(base + (base.contains("?") ? "&" : "?") + "link=" + encoded)
        }
        // The iOS SDK's callback: app-<appId>://firebaseauth/link?deep_link_id=<…/__/auth/callback?…&link=…>.
        let parts = target.dropFirst(4).split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        let scheme = String(parts[0])
        let eventID = parts.count > 1 ? String(parts[1]) : ""
        let authType = parts.count > 2 ? String(parts[2]) : "signInWithRedirect"
        let callback = call.services.publicBaseURL + "/__/auth/callback?authType=" + authType + "&eventId=" + eventID
            + "&link=" + encoded
        return found(scheme + "://firebaseauth/link?deep_link_id="
                     + (callback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    /// Where the browser goes at the end: `web:<redirectUrl>` (authorized domains only) or
    /// `app:<scheme>|<eventId>|<authType>` for an app's custom scheme.
    static func returnTarget(_ query: [String: String], call: Call, project: ProjectContext) throws -> String {
        if let redirect = query["redirectUrl"] {
            // The normalized URL (as a browser reads it) is what is kept and followed, never the raw input.
            guard let checked = try? AuthorizedDomains.check(redirect, in: call.configuration.continueURLDomains(for: project.record)) else {
                throw AuthFailure.unauthorizedDomain
            }
            return "web:" + checked
        }
        guard let appID = query["appId"], !appID.isEmpty,
              appID.allSatisfy({ $0.isLetter || $0.isNumber || $0 == ":" || $0 == "-" || $0 == "." })
        else { throw AuthFailure.invalidArgument("redirectUrl or appId is required") }
        let eventID = (query["eventId"] ?? "").filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let authType = (query["authType"] ?? "signInWithRedirect").filter(\.isLetter)
        return "app:app-" + appID.replacingOccurrences(of: ":", with: "-") + "|" + eventID + "|" + authType
    }

    static func found(_ location: String) -> Response {
        var headers: HTTPFields = [.location: location]
        Page.secure(&headers)
        return Response(status: .found, headers: headers)
    }

    static func page(_ title: String, detail: String, status: HTTPResponse.Status) -> Response {
        let escape = EmulatorIdPWidget.escape
        let html = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body><h1>\(escape(title))</h1><p>\(escape(detail))</p></body></html>
            """
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
        Page.secure(&headers)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
