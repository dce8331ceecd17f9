import HearthCore
import HearthWire
import HTTPTypes
import Hummingbird

/// `accounts:sendOobCode`, `resetPassword` and `signInWithEmailLink`; applying codes in `accounts:update` is in
/// AccountRoutes.
enum OobCodeRoutes {
    static func sendOobCode(_ call: Call, _ request: SendOobCodeRequest) async throws -> any ResponseGenerator {
        guard let type = request.requestType else { throw AuthFailure.missingRequestType }
        if request.returnOobLink == true {
            throw APIError.business(.insufficientPermission)  // bare, as both of Firebase's servers answer it
        }
        let project = try call.clientProject
        let sent = try await call.services.accounts.actionCodes.sendActionCode(
            in: project,
            ActionCodeRequest(type: ActionCodeType(rawValue: type.rawValue)!, email: request.email,
                              idToken: request.idToken, newEmail: request.newEmail, continueURL: request.continueUrl,
                              locale: call.locale, linkDomain: request.linkDomain),
            links: call.actionLinks(project), authorizedDomains: call.configuration.continueURLDomains(for: project.record))
        if let sent { call.services.emailQueued(sent.message) }
        return SendOobCodeResponse(email: sent?.email ?? request.email)
    }

    static func signInWithEmailLink(_ call: Call, _ request: SignInWithEmailLinkRequest) async throws -> any ResponseGenerator {
        let outcome = try await call.services.accounts.actionCodes.signInWithEmailLink(
            in: try call.clientProject, email: request.email, code: request.oobCode, idToken: request.idToken)
        return outcome.response { result in
            json(SignInWithEmailLinkResponse(
                email: result.user.email, localId: result.user.localID, isNewUser: result.isNewUser,
                idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                expiresIn: String(result.tokens.expiresIn)))
        }
    }

    static func resetPassword(_ call: Call, _ request: ResetPasswordRequest) async throws -> any ResponseGenerator {
        if request.oldPassword != nil {
            throw APIError.business(.operationNotAllowed, "email + oldPassword resets are not supported; use an oobCode")
        }
        let project = try call.clientProject
        let accounts = call.services.accounts
        let record = if let newPassword = request.newPassword {
            try await accounts.actionCodes.resetPassword(in: project, code: request.oobCode, newPassword: newPassword)
        } else {
            try await accounts.actionCodes.inspectActionCode(in: project, code: request.oobCode)
        }
        return ResetPasswordResponse(
            requestType: record.type.rawValue, email: record.type == .emailSignIn ? nil : record.email,
            newEmail: record.newEmail)
    }
}

extension Call {
    /// The project number clients are told: the project's own, or in emulator mode `12345` for every project, as
    /// Firebase's emulator answers.
    func projectNumber(_ project: ProjectContext) -> String {
        configuration.isEmulator ? "12345" : project.record.number
    }

    /// `X-Firebase-Locale`: the language the client's `Auth.languageCode` asks emails to be written in.
    var locale: String? { request.headers[.xFirebaseLocale] }

    /// Where action links sent for `project` point.
    func actionLinks(_ project: ProjectContext) -> ActionLinkBase {
        ActionLinkBase(url: services.actionURL, apiKey: project.record.apiKeys.first ?? "")
    }
}

/// The emulator's outbox listing.
extension EmulatorRoutes {
    static func oobCodes(_ call: Call) async throws -> Response {
        guard let id = call.parameter("project"), ProjectID.isValid(id) else { throw APIError.notFound }
        let project = try await call.services.emulatorProject(id)
        // A code that was used (or replaced) leaves the list, as in Firebase's emulator: only unused ones are shown;
        // a tenant's list shows its codes, the project's its own.
        let messages = try await call.services.accounts.actionCodes.unusedCodes(in: project, tenantID: call.parameter("tenant"))
        return json(EmulatorOobCodes(oobCodes: messages.map {
            // A VERIFY_AND_CHANGE_EMAIL code goes to the new address but is listed under the current one.
            EmulatorOobCodes.Entry(email: $0.type == .verifyAndChangeEmail ? $0.accountEmail ?? $0.recipient : $0.recipient,
                                   newEmail: $0.newEmail, requestType: $0.type.rawValue,
                                   oobCode: $0.code, oobLink: $0.link)
        }))
    }
}
