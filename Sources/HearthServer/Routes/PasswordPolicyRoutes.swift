import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `GET v2/passwordPolicy` (`?tenantId=` for a tenant's): the policy the SDKs' `validatePassword` checks against, the
/// one sign-up, password changes and resets are held to.
enum PasswordPolicyRoutes {
    static func get(_ call: Call) async throws -> Response {
        var project = try call.clientProject
        if let tenant = call.request.uri.queryParameters["tenantId"].map(String.init), !tenant.isEmpty {
            project = try await call.services.project(project, inTenant: tenant)
        }
        return json(PasswordPolicyResponse(project.settings.passwordPolicy))
    }
}
