import HearthCore
import HearthWire
import Hummingbird

/// Firebase-emulator control endpoints (emulator mode only).
enum EmulatorRoutes {
    static func root(_ call: Call) async throws -> Response {
        json(EmulatorRootInfo(), contentType: "application/json; charset=utf-8")
    }

    /// Fake reCAPTCHA parameters, as Firebase's emulator serves them (SDKs must not use reCAPTCHA with an emulator).
    static func recaptchaParams(_ call: Call) async throws -> Response {
        json(["kind": "identitytoolkit#GetRecaptchaParamResponse",
              "recaptchaStoken": "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Hearth-emulator-mode-does-not-support-Recaptcha",
              "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_"])
    }

    static func resetAccounts(_ call: Call) async throws -> Response {
        let project = try await call.services.emulatorProject(try projectID(call))
        try await call.services.accounts.administration.deleteAllUsers(in: project, tenantID: call.parameter("tenant"))
        return json([String: String]())
    }

    static func config(_ call: Call) async throws -> Response {
        let project = try await call.services.emulatorProject(try projectID(call))
        return json(EmulatorConfig(project.settings))
    }

    static func patchConfig(_ call: Call) async throws -> Response {
        // Types are checked, unknown names ignored, as Firebase's emulator checks this body against its schema.
        let patch = try WireRequestDecoder.decode(EmulatorConfigPatch.self, context: call.context, strict: false, allowForm: false)
        let id = try await call.services.emulatorProject(try projectID(call)).id
        let updated = try await call.services.projects.modify(id) { record in
            if let value = patch.allowDuplicateEmails { record.settings[.allowDuplicateEmails] = value }
            if let value = patch.enableImprovedEmailPrivacy { record.settings[.enableImprovedEmailPrivacy] = value }
        }
        return json(EmulatorConfig(updated.settings))
    }

    private static func projectID(_ call: Call) throws -> String {
        guard let id = call.parameter("project"), ProjectID.isValid(id) else { throw APIError.notFound }
        return id
    }
}
