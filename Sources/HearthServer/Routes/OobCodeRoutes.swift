import HearthCore
import HearthWire
import HTTPTypes
import Hummingbird

/// `accounts:sendOobCode`, `resetPassword` and `signInWithEmailLink`; applying codes in `accounts:update` is in
/// AccountRoutes.
enum OobCodeRoutes {
    static func sendOobCode(_ call: Call) async throws -> Response {
        let request = try call.decode(SendOobCodeRequest.self)
        guard let type = request.requestType else { throw AuthFailure.missingRequestType }
        if request.returnOobLink == true {
            throw APIError.business(.insufficientPermission, "returnOobLink requires admin credentials")
        }
        let project = try call.clientProject
        let limits = call.emailKeys(recipient: request.newEmail ?? request.email ?? request.idToken ?? "")
        try call.enforce(limits)
        defer { call.count(limits) }
        let email = try await call.services.accounts.sendActionCode(
            in: project,
            ActionCodeRequest(type: ActionCodeType(rawValue: type.rawValue)!, email: request.email,
                              idToken: request.idToken, newEmail: request.newEmail, continueURL: request.continueUrl,
                              locale: call.request.headers[HTTPField.Name("X-Firebase-Locale")!]),
            links: ActionLinkBase(url: call.configuration.actionURL, apiKey: project.record.apiKeys.first ?? ""),
            authorizedDomains: call.configuration.authorizedDomains)
        if email != nil, !call.configuration.isEmulator {
            // Delivery comes with the SMTP sender; until then say so without logging the link or code.
            call.services.logger.warning("email queued in the outbox; no mail delivery is configured yet",
                                         metadata: ["type": .string(type.rawValue)])
        }
        return json(SendOobCodeResponse(email: email ?? request.email))
    }

    static func signInWithEmailLink(_ call: Call) async throws -> Response {
        let request = try call.decode(SignInWithEmailLinkRequest.self)
        let result = try await call.services.accounts.signInWithEmailLink(
            in: try call.clientProject, email: request.email, code: request.oobCode, idToken: request.idToken)
        return json(SignInWithEmailLinkResponse(
            email: result.user.email, localId: result.user.localID, isNewUser: result.isNewUser,
            idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
            expiresIn: String(result.tokens.expiresIn)))
    }

    static func resetPassword(_ call: Call) async throws -> Response {
        let request = try call.decode(ResetPasswordRequest.self)
        if request.oldPassword != nil {
            throw APIError.business(.operationNotAllowed, "email + oldPassword resets are not supported; use an oobCode")
        }
        let project = try call.clientProject
        let accounts = call.services.accounts
        let record = if let newPassword = request.newPassword {
            try await accounts.resetPassword(in: project, code: request.oobCode, newPassword: newPassword)
        } else {
            try await accounts.inspectActionCode(in: project, code: request.oobCode)
        }
        return json(ResetPasswordResponse(
            requestType: record.type.rawValue, email: record.type == .emailSignIn ? nil : record.email,
            newEmail: record.newEmail))
    }
}

/// The emulator's outbox listing.
extension EmulatorRoutes {
    static func oobCodes(_ call: Call) async throws -> Response {
        guard let id = call.parameters["project"], ProjectID.isValid(id) else { throw APIError.notFound }
        let project = try await call.services.emulatorProject(id)
        let messages = try await call.services.store.outboxMessages(projectID: project.id)
        return json(EmulatorOobCodes(oobCodes: messages.map {
            EmulatorOobCodes.Entry(email: $0.recipient, newEmail: $0.newEmail, requestType: $0.type.rawValue,
                                   oobCode: $0.code, oobLink: $0.link)
        }))
    }
}
