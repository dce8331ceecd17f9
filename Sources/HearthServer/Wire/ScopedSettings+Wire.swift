import Foundation
import HearthCore
import HearthWire

// The structured settings a project's config and each tenant both hold (password policy, SMS regions, CAPTCHA
// enforcement, test phone numbers, second factors), patched by one function for both resources. The switches are
// declared settings (SignInSetting+Wire.swift); what is left in each route is the resource's own.

/// A config or tenant patch body: the shared settings, and where each resource puts the two that differ in path.
protocol ScopedSettingsPatch {
    /// `mfa` in the project's config, `mfaConfig` in a tenant.
    static var mfaRoot: String { get }
    /// `signIn.phoneNumber.testPhoneNumbers` in the project's config, `testPhoneNumbers` in a tenant.
    static var testPhoneNumbersPath: String { get }
    var passwordPolicyConfig: PasswordPolicyConfigWire? { get }
    var smsRegionConfig: SMSRegionConfigWire? { get }
    var recaptchaConfig: RecaptchaConfigWire? { get }
    var testPhoneNumbers: [String: String]? { get }
    var mfa: MFAConfigPatch? { get }
}

extension ProjectConfigPatch: ScopedSettingsPatch {
    static let mfaRoot = "mfa"
    static let testPhoneNumbersPath = "signIn.phoneNumber.testPhoneNumbers"
}

extension TenantPatch: ScopedSettingsPatch {
    static let mfaRoot = "mfaConfig"
    static let testPhoneNumbersPath = "testPhoneNumbers"
}

/// What holds the shared settings: the project's `ProjectSettings` and a `TenantRecord`.
protocol HoldsScopedSettings {
    var passwordPolicy: PasswordPolicyConfig? { get set }
    var smsRegions: SMSRegionPolicy? { get set }
    var captcha: CaptchaSettings? { get set }
    var phoneTestNumbers: [String: String] { get set }
    var secondFactors: MFASettings { get set }
}

extension ProjectSettings: HoldsScopedSettings {
    var phoneTestNumbers: [String: String] {
        get { testPhoneNumbers ?? [:] }
        set { testPhoneNumbers = newValue.isEmpty ? nil : newValue }
    }
    var secondFactors: MFASettings {
        get { mfa ?? MFASettings() }
        set { mfa = newValue }
    }
}

extension TenantRecord: HoldsScopedSettings {
    var phoneTestNumbers: [String: String] {
        get { testPhoneNumbers }
        set { testPhoneNumbers = newValue }
    }
    var secondFactors: MFASettings {
        get { mfa }
        set { mfa = newValue }
    }
}

extension ScopedSettingsPatch {
    /// Applies the shared settings among `paths` to `settings`, and returns the paths left for the resource's own
    /// fields. A path named but absent from the body resets its setting, as Google's `updateMask` does.
    func apply(_ paths: Set<String>, to settings: inout some HoldsScopedSettings, now: Date,
               captchaProviderConfigured: Bool) throws -> Set<String> {
        var rest = paths
        let policy = "passwordPolicyConfig."
        let policyPaths = paths.filter { $0.hasPrefix(policy) }
        if !policyPaths.isEmpty {
            settings.passwordPolicy = try PasswordPolicyConfig.patched(
                settings.passwordPolicy, paths: policyPaths.map { String($0.dropFirst(policy.count)) }.sorted(),
                with: passwordPolicyConfig, now: now)
            rest.subtract(policyPaths)
        }
        let mfaPrefix = Self.mfaRoot + "."
        for path in paths.sorted() {
            switch path {
            case "smsRegionConfig":
                settings.smsRegions = try smsRegionConfig?.policy
            case let field where field.hasPrefix("recaptchaConfig."):
                settings.captcha = try CaptchaSettings.patched(settings.captcha, String(field.dropFirst("recaptchaConfig.".count)),
                                                               with: recaptchaConfig, providerConfigured: captchaProviderConfigured)
            case Self.testPhoneNumbersPath:
                settings.phoneTestNumbers = try checkedTestPhoneNumbers(testPhoneNumbers)
            case let field where field.hasPrefix(mfaPrefix):
                try settings.secondFactors.apply(String(field.dropFirst(mfaPrefix.count)), mfa)
            default:
                continue
            }
            rest.remove(path)
        }
        return rest
    }
}

/// Test phone numbers as a patch gives them, checked: E.164 numbers, 6-digit codes.
func checkedTestPhoneNumbers(_ given: [String: String]?) throws -> [String: String] {
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
