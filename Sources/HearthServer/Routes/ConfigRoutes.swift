import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `v2/projects/{project}/config` (admin): read and change the project's sign-in settings.
enum ConfigRoutes {
    /// Emulator mode answers in the emulator's shape (``ProjectConfigResource/emulatorView``) unless asked for
    /// Hearth's whole view (`?view=full`, what the console asks for: it sets every switch).
    static func get(_ call: Call) async throws -> Response {
        shown(try await call.adminProject(nil), to: call)
    }

    /// The config with the declared settings the project has set.
    static func shown(_ project: ProjectContext, to call: Call) -> Response {
        var config = ProjectConfigResource(project, authorizedDomains: call.configuration.authorizedDomains(for: project.record))
        config.notification = NotificationConfigWire(stored: project.record.settings.emailTemplates ?? [:],
                                                     email: call.configuration.emailConfiguration(for: project.id))
        let full = call.request.uri.queryParameters["view"] == "full"
        let view = call.configuration.isEmulator && !full ? config.emulatorView : config
        return json(presented(view, declaring: project.record.settings.declared, in: .project))
    }

    /// Applies the fields named by `updateMask`; a parent (`emailPrivacyConfig`) names every field under it. In
    /// production a path that is read-only or unknown is refused, so a typo never passes silently, and no mask means
    /// the fields present; emulator mode ignores unknown paths and reads no mask as a full update, as Firebase's
    /// emulator does.
    static func patch(_ call: Call, _ patch: ProjectConfigPatch) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        let emulator = call.configuration.isEmulator
        if !emulator, let named = patch.readOnlyPresent.first {
            throw APIError.business(.invalidArgument, "\(named) cannot be changed here: it is fixed when the project is created")
        }
        let declared = try DeclaredSettingsPatch(call, scope: .project, typed: patch.values)
        let mask = try UpdateMask(call).resolved(
            expand: { ProjectConfigPatch.expand($0) + DeclaredSettingsPatch.expand($0, in: .project) },
            writable: ProjectConfigPatch.writablePaths.union(DeclaredSettingsPatch.paths(in: .project)), lenient: emulator)
            ?? (emulator ? patch.presentPaths.union(ProjectConfigPatch.emulatorPaths) : patch.presentPaths).union(declared.presentPaths)
        // A setting the server's configuration fixes is applied again at every start: a change here would not last.
        if !emulator, let (path, source) = mask.lazy.compactMap({ call.configuration.pinning($0) }).first {
            throw APIError.business(.invalidArgument, "\(path) is set by \(source) and applied at every start: "
                + "change it there, or remove it there to manage it here")
        }
        let domains = try patch.authorizedDomains.map(AuthorizedDomains.validated)
        let templates = try EmailTemplateRoutes.configTemplates(patch.notification, named: mask, project: project, call: call)
        let now = call.services.accounts.clock.now()
        let updated = try await call.services.projects.modify(project.id) { record in
            let own = try patch.apply(mask, to: &record.settings, now: now,
                                      captchaProviderConfigured: call.services.captcha != nil)
            for path in own {
                switch path {
                case "blockingFunctions.triggers":
                    var blocking = record.settings.blockingFunctions ?? BlockingFunctions()
                    var triggers: [String: BlockingFunctions.Trigger] = [:]
                    for (event, uri) in patch.triggers ?? [:] {
                        try BlockingFunctions.validate(event: event, functionURI: uri)
                        triggers[event] = blocking.triggers[event].flatMap { $0.functionURI == uri ? $0 : nil }
                            ?? BlockingFunctions.Trigger(functionURI: uri, updatedAt: now)
                    }
                    blocking.triggers = triggers
                    record.settings.blockingFunctions = blocking
                case let forwarded where forwarded.hasPrefix("blockingFunctions.forwardInboundCredentials."):
                    var blocking = record.settings.blockingFunctions ?? BlockingFunctions()
                    let value = patch.values[path] ?? false  // in the mask but absent from the body: the zero, as Google does
                    switch forwarded.split(separator: ".").last {
                    case "idToken": blocking.forwardIDToken = value
                    case "accessToken": blocking.forwardAccessToken = value
                    default: blocking.forwardRefreshToken = value
                    }
                    record.settings.blockingFunctions = blocking
                case "authorizedDomains":
                    record.settings.authorizedDomains = domains  // in the mask but absent: back to the defaults
                default: break
                }
            }
            if !templates.isEmpty { try EmailTemplateRoutes.store(templates, in: &record, call: call) }
            declared.apply(mask, to: &record.settings.declared)
            if record.settings.blockingFunctions == BlockingFunctions() { record.settings.blockingFunctions = nil }
        }
        return shown(updated, to: call)
    }
}
