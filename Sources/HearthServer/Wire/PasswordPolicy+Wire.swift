import Foundation
import HearthCore
import HearthWire

// A password policy on the wire: `passwordPolicyConfig` in the project's config and a tenant, and
// `GET v2/passwordPolicy` for the SDKs.

extension PasswordPolicyConfigWire {
    init(_ policy: PasswordPolicyConfig) {
        self.init(passwordPolicyEnforcementState: policy.enforcement.rawValue,
                  forceUpgradeOnSignin: policy.forceUpgradeOnSignin,
                  passwordPolicyVersions: [.init(customStrengthOptions: StrengthOptions(policy))],
                  lastUpdateTime: policy.updatedAt.map { ISO8601DateFormatter().string(from: $0) })
    }
}

extension StrengthOptions {
    init(_ policy: PasswordPolicyConfig) {
        self.init(minPasswordLength: policy.minLength, maxPasswordLength: policy.maxLength,
                  containsLowercaseCharacter: policy.requireLowercase, containsUppercaseCharacter: policy.requireUppercase,
                  containsNumericCharacter: policy.requireNumeric,
                  containsNonAlphanumericCharacter: policy.requireNonAlphanumeric)
    }
}

extension PasswordPolicyResponse {
    /// What the SDKs check against: the policy in force, or Firebase's 6-character minimum under `OFF`.
    init(_ policy: PasswordPolicyConfig?) {
        let policy = policy ?? PasswordPolicyConfig(enforcement: .off)
        self.init(customStrengthOptions: StrengthOptions(policy),
                  allowedNonAlphanumericCharacters: PasswordPolicyConfig.nonAlphanumeric.map(String.init),
                  enforcementState: policy.enforcement.rawValue, forceUpgradeOnSignin: policy.forceUpgradeOnSignin)
    }
}

extension PasswordPolicyConfig {
    /// Applies one path of a `passwordPolicyConfig` patch (`passwordPolicyEnforcementState`, `forceUpgradeOnSignin`
    /// or `passwordPolicyVersions`), as Identity Platform reads it: absent values are the defaults; shared by the
    /// project's config and each tenant's.
    static func patched(_ current: PasswordPolicyConfig?, paths: [String], with patch: PasswordPolicyConfigWire?,
                        now: Date) throws -> PasswordPolicyConfig {
        var policy = current ?? PasswordPolicyConfig(enforcement: .off)
        for path in paths {
            switch path {
            case "passwordPolicyEnforcementState":
                let state = patch?.passwordPolicyEnforcementState ?? "OFF"
                guard let parsed = Enforcement(rawValue: state == "ENFORCEMENT_STATE_UNSPECIFIED" ? "OFF" : state) else {
                    throw AuthFailure.invalidConfig("((passwordPolicyEnforcementState must be ENFORCE or OFF.))")
                }
                policy.enforcement = parsed
            case "forceUpgradeOnSignin": policy.forceUpgradeOnSignin = patch?.forceUpgradeOnSignin ?? false
            case "passwordPolicyVersions":
                let versions = patch?.passwordPolicyVersions ?? []
                guard versions.count <= 1 else {
                    throw AuthFailure.invalidConfig("((passwordPolicyVersions holds one version.))")
                }
                let options = versions.first?.customStrengthOptions
                policy.minLength = options?.minPasswordLength ?? 6
                policy.maxLength = options?.maxPasswordLength ?? 4096
                policy.requireLowercase = options?.containsLowercaseCharacter ?? false
                policy.requireUppercase = options?.containsUppercaseCharacter ?? false
                policy.requireNumeric = options?.containsNumericCharacter ?? false
                policy.requireNonAlphanumeric = options?.containsNonAlphanumericCharacter ?? false
            default: continue
            }
        }
        try policy.validate()
        policy.updatedAt = now
        return policy
    }
}

extension SMSRegionConfigWire {
    init(_ policy: SMSRegionPolicy) {
        switch policy {
        case .allowByDefault(let disallowed): self.init(allowByDefault: .init(disallowedRegions: disallowed))
        case .allowlistOnly(let allowed): self.init(allowlistOnly: .init(allowedRegions: allowed))
        }
    }

    /// The policy a patch sets (`nil`: none, every region), checked as Identity Platform checks it: one of the two
    /// forms, regions as two-letter codes.
    var policy: SMSRegionPolicy? {
        get throws {
            func regions(_ given: [String]?) throws -> [String] {
                let codes = (given ?? []).map { $0.uppercased() }
                if let bad = codes.first(where: { $0.count != 2 || !$0.allSatisfy(\.isLetter) }) {
                    throw AuthFailure.invalidConfig("((\(bad) is not a region code: use ISO 3166-1 alpha-2, such as US.))")
                }
                return codes
            }
            switch (allowByDefault, allowlistOnly) {
            case (nil, nil): return nil
            case (let deny?, nil): return .allowByDefault(disallowed: try regions(deny.disallowedRegions))
            case (nil, let allow?): return .allowlistOnly(allowed: try regions(allow.allowedRegions))
            default: throw AuthFailure.invalidConfig("((smsRegionConfig takes allowByDefault or allowlistOnly, not both.))")
            }
        }
    }
}

extension RecaptchaConfigWire {
    init(_ settings: CaptchaSettings) {
        self.init(emailPasswordEnforcementState: settings.emailPassword.rawValue, phoneEnforcementState: settings.phone.rawValue)
    }
}

extension CaptchaSettings {
    /// `current` with the enforcement state `field` names (`emailPasswordEnforcementState`, `phoneEnforcementState`)
    /// set as `wire` has it (absent: `OFF`, as Google resets a masked field the body lacks). `AUDIT` and `ENFORCE`
    /// need a provider to ask; `nil` when both are off.
    static func patched(_ current: CaptchaSettings?, _ field: String, with wire: RecaptchaConfigWire?,
                        providerConfigured: Bool) throws -> CaptchaSettings? {
        var settings = current ?? CaptchaSettings()
        let given = field == "emailPasswordEnforcementState" ? wire?.emailPasswordEnforcementState : wire?.phoneEnforcementState
        let state: CaptchaEnforcement
        switch given ?? "OFF" {
        case "OFF", "RECAPTCHA_PROVIDER_ENFORCEMENT_STATE_UNSPECIFIED": state = .off
        case let name:
            guard let named = CaptchaEnforcement(rawValue: name) else {
                throw AuthFailure.invalidConfig("((recaptchaConfig.\(field) must be OFF, AUDIT or ENFORCE.))")
            }
            state = named
        }
        if state != .off, !providerConfigured {
            throw AuthFailure.invalidConfig("((No CAPTCHA provider is configured: set captcha in the server's config file first; "
                + "see docs/security.md.))")
        }
        if field == "emailPasswordEnforcementState" { settings.emailPassword = state } else { settings.phone = state }
        return settings == CaptchaSettings() ? nil : settings
    }
}
