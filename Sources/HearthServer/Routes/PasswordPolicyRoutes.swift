import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// What the SDKs ask before a sign-up: `GET v2/passwordPolicy` (`?tenantId=` for a tenant's), the policy their
/// `validatePassword` checks against and sign-up, password changes and resets are held to; and `GET
/// v2/recaptchaConfig`, answered so SDKs that probe it learn reCAPTCHA is off.
enum PasswordPolicyRoutes {
    static func get(_ call: Call) async throws -> Response {
        json(PasswordPolicyResponse(try await scoped(call).settings.passwordPolicy))
    }

    static func recaptchaConfig(_ call: Call) async throws -> Response {
        let project = try await scoped(call)
        let settings = project.settings.captcha ?? CaptchaSettings()
        let provider = call.configuration.captcha
        return json(RecaptchaConfigResponse(
            recaptchaKey: "projects/\(call.projectNumber(project))/keys/\(provider?.siteKey ?? "none")",
            recaptchaEnforcementState: [("EMAIL_PASSWORD_PROVIDER", settings.emailPassword), ("PHONE_PROVIDER", settings.phone)]
                .map { .init(provider: $0.0, enforcementState: $0.1.rawValue) },
            captchaProvider: provider?.provider.rawValue))
    }

    /// The call's project, in the tenant its query names (a GET has no body to name it).
    static func scoped(_ call: Call) async throws -> ProjectContext {
        let project = try call.clientProject
        guard let tenant = call.request.uri.queryParameters["tenantId"].map(String.init), !tenant.isEmpty else { return project }
        return try await call.services.project(project, inTenant: tenant)
    }
}
