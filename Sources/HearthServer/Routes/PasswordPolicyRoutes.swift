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
        return json(RecaptchaConfigResponse(
            recaptchaKey: "projects/\(call.projectNumber(project))/keys/none",
            recaptchaEnforcementState: ["EMAIL_PASSWORD_PROVIDER", "PHONE_PROVIDER"].map { .init(provider: $0, enforcementState: "OFF") }))
    }

    /// The call's project, in the tenant its query names (a GET has no body to name it).
    static func scoped(_ call: Call) async throws -> ProjectContext {
        let project = try call.clientProject
        guard let tenant = call.request.uri.queryParameters["tenantId"].map(String.init), !tenant.isEmpty else { return project }
        return try await call.services.project(project, inTenant: tenant)
    }
}
