import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `v2/projects/{project}/config` (admin): read and change the project's sign-in settings.
enum ConfigRoutes {
    static func get(_ call: Call) async throws -> Response {
        json(resource(try await call.adminProject(nil), call: call))
    }

    /// Applies the fields named by `updateMask` (all present fields without one); a path that is read-only or
    /// unknown is refused, so a typo never passes silently.
    static func patch(_ call: Call) async throws -> Response {
        let patch = try call.decode(ProjectConfigPatch.self)
        let project = try await call.adminProject(nil)
        let mask = call.request.uri.queryParameters["updateMask"].map {
            Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        } ?? Set(patch.values.keys)
        if let bad = mask.sorted().first(where: { !ProjectConfigPatch.writablePaths.contains($0) }) {
            throw APIError.business(.invalidArgument, "updateMask names \(bad), which Hearth cannot change (writable: \(ProjectConfigPatch.writablePaths.sorted().joined(separator: ", ")))")
        }
        var record = project.record
        for path in mask {
            let value = patch.values[path] ?? false  // in the mask but absent from the body: the default, as Google does
            switch path {
            case "signIn.email.enabled": record.settings.passwordSignInEnabled = value
            case "signIn.anonymous.enabled": record.settings.anonymousSignInEnabled = value
            case "signIn.allowDuplicateEmails": record.settings.allowDuplicateEmails = value
            case "emailPrivacyConfig.enableImprovedEmailPrivacy": record.settings.enableImprovedEmailPrivacy = value
            default: break
            }
        }
        let updated = try await call.services.projects.update(record)
        return json(resource(updated, call: call))
    }

    private static func resource(_ project: ProjectContext, call: Call) -> ProjectConfigResource {
        let settings = project.settings
        let hash = project.record.hashConfig
        return ProjectConfigResource(
            name: "projects/\(project.id)/config",
            signIn: .init(email: .init(enabled: settings.passwordSignInEnabled, passwordRequired: true),
                          anonymous: .init(enabled: settings.anonymousSignInEnabled),
                          allowDuplicateEmails: settings.allowDuplicateEmails,
                          hashConfig: .init(signerKey: hash.signerKey.base64EncodedString(),
                                            saltSeparator: hash.saltSeparator.base64EncodedString(),
                                            rounds: hash.rounds, memoryCost: hash.memoryCost)),
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: settings.enableImprovedEmailPrivacy),
            authorizedDomains: call.configuration.authorizedDomains,
            mfa: .init(state: "DISABLED"))
    }
}
