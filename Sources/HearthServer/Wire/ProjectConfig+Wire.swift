import Foundation
import HearthCore
import HearthWire

// A project's and a tenant's settings on the wire (`v2/projects/{id}/config`, `…/tenants/{id}`, the emulator's
// config).

extension ProjectConfigResource {
    /// The project's config as `GET v2/projects/{id}/config` shows it.
    init(_ project: ProjectContext, authorizedDomains: [String]) {
        let settings = project.settings
        let hash = project.record.hashConfig
        self.init(
            name: "projects/\(project.id)/config",
            signIn: .init(email: .init(enabled: settings[.passwordSignIn],
                                       passwordRequired: !settings[.emailLinkSignIn]),
                          anonymous: .init(enabled: settings[.anonymousSignIn]),
                          allowDuplicateEmails: settings[.allowDuplicateEmails],
                          hashConfig: .init(signerKey: hash.signerKey.base64EncodedString(),
                                            saltSeparator: hash.saltSeparator.base64EncodedString(),
                                            rounds: hash.rounds, memoryCost: hash.memoryCost),
                          phoneNumber: .init(enabled: project.phoneSignInAllowed, testPhoneNumbers: settings.testPhoneNumbers ?? [:])),
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: settings[.enableImprovedEmailPrivacy]),
            authorizedDomains: authorizedDomains,
            mfa: MFA(settings.mfa ?? MFASettings()),
            blockingFunctions: BlockingFunctionsWire(settings.blockingFunctions ?? BlockingFunctions()))
        passwordPolicyConfig = project.record.settings.passwordPolicy.map(PasswordPolicyConfigWire.init)
        autodeleteAnonymousUsers = project.record.settings[.autodeleteAnonymousUsers] ? true : nil
        smsRegionConfig = project.record.settings.smsRegions.map(SMSRegionConfigWire.init)
        recaptchaConfig = project.record.settings.captcha.map(RecaptchaConfigWire.init)
        passkeyConfig = project.record.settings.passkeys.map { PasskeyConfigResource($0, name: nil) }
    }
}

extension ProjectConfigResource {
    /// The config as Firebase's emulator shows it: `signIn` holds `allowDuplicateEmails` alone (its tests compare
    /// the object whole); the other fields are unchanged.
    var emulatorView: ProjectConfigResource {
        var view = self
        view.signIn = .init(email: nil, anonymous: nil, allowDuplicateEmails: signIn.allowDuplicateEmails,
                            hashConfig: nil, phoneNumber: nil)
        return view
    }
}

extension EmulatorConfig {
    init(_ settings: ProjectSettings) {
        self.init(allowDuplicateEmails: settings[.allowDuplicateEmails],
                  enableImprovedEmailPrivacy: settings[.enableImprovedEmailPrivacy])
    }
}

extension ProjectConfigResource.BlockingFunctionsWire {
    init(_ blocking: BlockingFunctions) {
        let triggers = blocking.triggers.mapValues {
            ProjectConfigResource.BlockingFunctionsWire.Trigger(functionUri: $0.functionURI, updateTime: rfc3339($0.updatedAt))
        }
        let forward = ProjectConfigResource.BlockingFunctionsWire.Forward(
            idToken: blocking.forwardIDToken ? true : nil, accessToken: blocking.forwardAccessToken ? true : nil,
            refreshToken: blocking.forwardRefreshToken ? true : nil)
        self.init(triggers: triggers.isEmpty ? nil : triggers,
                  forwardInboundCredentials: forward == .init(idToken: nil, accessToken: nil, refreshToken: nil) ? nil : forward)
    }
}

extension ProjectConfigResource.MFA {
    init(_ mfa: MFASettings) {
        self.init(state: mfa.state.rawValue, enabledProviders: mfa.providers.contains(.phoneSMS) ? ["PHONE_SMS"] : [],
                  providerConfigs: [.init(state: mfa.providers.contains(.totp) ? "ENABLED" : "DISABLED",
                                          adjacentIntervals: mfa.totpAdjacentIntervals)])
    }
}

extension TenantRecord {
    /// The tenant as the admin API shows it: its resource and the declared settings it has set.
    var wire: JSONValue { presented(TenantResource(self), declaring: declared, in: .tenant) }
}

extension TenantResource {
    init(_ tenant: TenantRecord) {
        let mfa = ProjectConfigResource.MFA(tenant.mfa)
        self.init(
            name: "projects/\(tenant.projectID)/tenants/\(tenant.id)", tenantId: tenant.id,
            displayName: tenant.displayName, allowPasswordSignup: tenant[.passwordSignIn],
            enableEmailLinkSignin: tenant[.emailLinkSignIn], enableAnonymousUser: tenant[.anonymousSignIn],
            disableAuth: tenant[.disableAuth],
            mfaConfig: .init(state: mfa.state,
                             enabledProviders: tenant.mfaProvidersAsGiven.flatMap { $0.contains("PROVIDER_UNSPECIFIED") ? $0 : nil }
                                 ?? mfa.enabledProviders,
                             providerConfigs: tenant.mfa.providers.contains(.totp) ? mfa.providerConfigs : nil),
            testPhoneNumbers: tenant.testPhoneNumbers.isEmpty ? nil : tenant.testPhoneNumbers,
            // Shown when set, as Google's JSON leaves out default values (and Firebase's emulator shows neither).
            inheritance: tenant[.inheritsEmailSending] ? .init(emailSendingConfig: true) : nil,
            emailPrivacyConfig: tenant[.enableImprovedEmailPrivacy] ? .init(enableImprovedEmailPrivacy: true) : nil)
        passwordPolicyConfig = tenant.passwordPolicy.map(PasswordPolicyConfigWire.init)
        autodeleteAnonymousUsers = tenant[.autodeleteAnonymousUsers] ? true : nil
        smsRegionConfig = tenant.smsRegions.map(SMSRegionConfigWire.init)
        recaptchaConfig = tenant.captcha.map(RecaptchaConfigWire.init)
        passkeyConfig = tenant.passkeys.map { PasskeyConfigResource($0, name: nil) }
    }
}

extension PasskeyConfigResource {
    init(_ config: PasskeyConfig, name: String?) {
        self.init(name: name, rpId: config.rpID, expectedOrigins: config.expectedOrigins,
                  requireUserVerification: config.requireUserVerification)
    }
}

