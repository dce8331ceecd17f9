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
        let config = ProjectConfigResource(project, authorizedDomains: call.configuration.authorizedDomains)
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
            throw APIError.business(.invalidArgument, "\(named) cannot be changed here: "
                + (named == "authorizedDomains" ? "set authorizedDomains in the server configuration (hearth.json)" : "it is fixed when the project is created"))
        }
        let declared = try DeclaredSettingsPatch(call, scope: .project, typed: patch.values)
        let mask = try UpdateMask(call).resolved(
            expand: { ProjectConfigPatch.expand($0) + DeclaredSettingsPatch.expand($0, in: .project) },
            writable: ProjectConfigPatch.writablePaths.union(DeclaredSettingsPatch.paths(in: .project)), lenient: emulator)
            ?? (emulator ? patch.presentPaths.union(ProjectConfigPatch.emulatorPaths) : patch.presentPaths).union(declared.presentPaths)
        let now = call.services.accounts.clock.now()
        let updated = try await call.services.projects.modify(project.id) { record in
            let policyPaths = mask.filter { $0.hasPrefix("passwordPolicyConfig.") }.map { String($0.dropFirst("passwordPolicyConfig.".count)) }
            if !policyPaths.isEmpty {
                record.settings.passwordPolicy = try PasswordPolicyConfig.patched(
                    record.settings.passwordPolicy, paths: policyPaths.sorted(), with: patch.passwordPolicyConfig, now: now)
            }
            for path in mask {
                switch path {
                case "smsRegionConfig": record.settings.smsRegions = try patch.smsRegionConfig?.policy
                case let field where field.hasPrefix("recaptchaConfig."):
                    record.settings.captcha = try CaptchaSettings.patched(
                        record.settings.captcha, String(field.dropFirst("recaptchaConfig.".count)), with: patch.recaptchaConfig,
                        providerConfigured: call.services.captcha != nil)
                case "signIn.phoneNumber.testPhoneNumbers":
                    let numbers = try testPhoneNumbers(patch.testPhoneNumbers)
                    record.settings.testPhoneNumbers = numbers.isEmpty ? nil : numbers
                case "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs":
                    var mfa = record.settings.mfa ?? MFASettings()
                    try mfa.apply(String(path.dropFirst("mfa.".count)), patch.mfa)
                    record.settings.mfa = mfa
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
                default: break
                }
            }
            declared.apply(mask, to: &record.settings.declared)
            if record.settings.blockingFunctions == BlockingFunctions() { record.settings.blockingFunctions = nil }
        }
        return shown(updated, to: call)
    }
}

/// Test phone numbers as a patch gives them, checked: E.164 numbers, 6-digit codes.
func testPhoneNumbers(_ given: [String: String]?) throws -> [String: String] {
    let numbers = given ?? [:]
    if let bad = numbers.first(where: { !PhoneNumber.isValid($0.key) || $0.value.count != 6 || !$0.value.allSatisfy(\.isNumber) }) {
        throw APIError.business(.invalidArgument, "test phone number \(bad.key) needs an E.164 number and a 6-digit code")
    }
    return numbers
}

extension MFASettings {
    /// Applies one field of Firebase's `mfa`/`mfaConfig` patch (`state`, `enabledProviders` or `providerConfigs`):
    /// shared by the project's config and each tenant's.
    mutating func apply(_ field: String, _ patch: MFAConfigPatch?) throws {
        let (state, enabledProviders, totp) = (patch?.state, patch?.enabledProviders, patch?.totp)
        switch field {
        case "state":
            guard let parsed = MFASettings.State(rawValue: state ?? "DISABLED") else {
                throw APIError.business(.invalidArgument, "mfa state must be DISABLED, ENABLED or MANDATORY")
            }
            self.state = parsed
        case "enabledProviders":
            // PROVIDER_UNSPECIFIED is the enum's zero value: Firebase's clients send it, and it names nothing.
            let names = (enabledProviders ?? []).filter { $0 != "PROVIDER_UNSPECIFIED" }
            guard names.allSatisfy({ $0 == "PHONE_SMS" }) else {
                throw APIError.business(.invalidArgument, "enabledProviders takes PHONE_SMS (TOTP is in providerConfigs)")
            }
            if names.isEmpty { providers.remove(.phoneSMS) } else { providers.insert(.phoneSMS) }
        default:
            if totp?.enabled == true { providers.insert(.totp) } else { providers.remove(.totp) }
            if let intervals = totp?.adjacentIntervals {
                guard (0...10).contains(intervals) else {
                    throw APIError.business(.invalidArgument, "adjacentIntervals must be between 0 and 10")
                }
                totpAdjacentIntervals = intervals
            }
        }
    }
}
