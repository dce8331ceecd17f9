import Foundation
import HearthCore
import NIOCore

/// What a route line declares besides its guards: the sign-in method it needs, its CAPTCHA check, and what
/// Firebase's emulator refuses in a tenant. `Guarded.with(_:)` places them on the line as middleware
/// (``SignInSwitch``, ``CaptchaChecked``), so every name a line registers (the v1 name, the legacy v3 name) has them.
///
/// ```swift
/// client.with(.needs(.password)).post("\(v1)/accounts:signInWithPassword", "\(v3)/verifyPassword", to: …)
/// ```
struct RouteRules: Sendable, Hashable, CustomStringConvertible {
    /// The sign-in method that must be on in the project, or the tenant, the call acts in. Admin calls are exempt:
    /// switches govern what clients may do.
    var needs: SignInMethod?
    /// Firebase's emulator refuses the call in a tenant (`UNSUPPORTED_TENANT_OPERATION`), and its tests expect it;
    /// emulator mode does the same, production serves it.
    var emulatorRefusesInTenant = false
    /// Served in emulator mode only, with the reason production gives (`OPERATION_NOT_ALLOWED : …`).
    var emulatorOnly: String?
    /// The CAPTCHA check the route passes where `recaptchaConfig` enforcement is on (``CaptchaGate``).
    var captcha: CaptchaGate.Scope?

    static let none = RouteRules()
    static func needs(_ method: SignInMethod) -> RouteRules { RouteRules(needs: method) }

    /// The same rules, with a CAPTCHA check.
    func captcha(_ scope: CaptchaGate.Scope) -> RouteRules {
        var rules = self
        rules.captcha = scope
        return rules
    }

    var description: String {
        [needs.map { "needs \($0)" }, emulatorRefusesInTenant ? "emulator refuses in tenant" : nil,
         emulatorOnly == nil ? nil : "emulator only", captcha.map { "captcha \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// Refuses a client call whose method is off where it acts: checked before its fields, as Firebase does.
    func check(_ context: HearthRequestContext, isEmulator: Bool) throws {
        if let emulatorOnly, !isEmulator { throw APIError.business(.operationNotAllowed, emulatorOnly) }
        guard let project = context.project else { return }
        if isEmulator, emulatorRefusesInTenant, project.tenant != nil {
            throw APIError.business(.unsupportedTenantOperation)
        }
        guard !context.isAdmin, let needs, let refusal = needs.refusal(in: project, body: context.body) else { return }
        throw refusal
    }
}

/// A sign-in method a route needs, and the error its switch answers with when off.
enum SignInMethod: String, Sendable, Hashable {
    /// Email and password (`signIn.email.enabled`, a tenant's `allowPasswordSignup`).
    case password
    /// Email links (`signIn.email.passwordRequired: false`, a tenant's `enableEmailLinkSignin`).
    case emailLink
    /// `sendOobCode`: only its `EMAIL_SIGNIN` request sends a sign-in link.
    case emailLinkWhenRequested
    /// A phone number as the first factor (`signIn.phoneNumber.enabled`); MFA's SMS is the MFA config's.
    case phone
    /// A second factor, in a tenant (the project's MFA config is checked by the core, per factor).
    case tenantMFA

    func refusal(in project: ProjectContext, body: RequestBody) -> APIError? {
        switch self {
        case .password:
            return project.settings[.passwordSignIn] ? nil : .business(.passwordLoginDisabled)
        case .emailLink:
            return project.emailLinkSignInAllowed ? nil : .business(.operationNotAllowed)
        case .emailLinkWhenRequested:
            guard !project.emailLinkSignInAllowed, body.oobRequestType == "EMAIL_SIGNIN" else { return nil }
            return .business(.operationNotAllowed)
        case .phone:
            return project.phoneSignInAllowed ? nil
                : .business(.operationNotAllowed, "Phone sign-in is not enabled for this project (signIn.phoneNumber.enabled).")
        case .tenantMFA:
            guard let tenant = project.tenant, tenant.mfa.state == .disabled || tenant.mfa.providers.isEmpty else { return nil }
            return .business(.operationNotAllowed, "MFA is not enabled for this tenant")
        }
    }
}
