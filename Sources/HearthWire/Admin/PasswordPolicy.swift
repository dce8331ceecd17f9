/// `passwordPolicyConfig`, in a project's config and a tenant, as Identity Platform stores it: the enforcement state,
/// whether sign-in is held to it, and one version of the constraints.
///
/// ```json
/// { "passwordPolicyEnforcementState": "ENFORCE", "forceUpgradeOnSignin": true,
///   "passwordPolicyVersions": [{ "customStrengthOptions": { "minPasswordLength": 8, "containsUppercaseCharacter": true } }] }
/// ```
public struct PasswordPolicyConfigWire: Codable, Sendable, Equatable, IgnoresWireFields {
    public static let ignoredWireFields = ["lastUpdateTime"]
    /// The writable paths under `passwordPolicyConfig`, as the Admin SDKs name them in `updateMask`.
    public static let paths = ["passwordPolicyEnforcementState", "forceUpgradeOnSignin", "passwordPolicyVersions"]

    public var passwordPolicyEnforcementState: String?
    public var forceUpgradeOnSignin: Bool?
    public var passwordPolicyVersions: [Version]?
    public var lastUpdateTime: String?

    public struct Version: Codable, Sendable, Equatable, IgnoresWireFields {
        public static let ignoredWireFields = ["schemaVersion"]
        public var customStrengthOptions: StrengthOptions?
        public init(customStrengthOptions: StrengthOptions?) { self.customStrengthOptions = customStrengthOptions }
    }

    /// The paths (under `passwordPolicyConfig`) the body sets.
    public var presentPaths: [String] {
        [passwordPolicyEnforcementState.map { _ in "passwordPolicyEnforcementState" },
         forceUpgradeOnSignin.map { _ in "forceUpgradeOnSignin" },
         passwordPolicyVersions.map { _ in "passwordPolicyVersions" }].compactMap { $0 }
    }

    public init(passwordPolicyEnforcementState: String?, forceUpgradeOnSignin: Bool?, passwordPolicyVersions: [Version]?,
                lastUpdateTime: String? = nil) {
        self.passwordPolicyEnforcementState = passwordPolicyEnforcementState
        self.forceUpgradeOnSignin = forceUpgradeOnSignin
        self.passwordPolicyVersions = passwordPolicyVersions
        self.lastUpdateTime = lastUpdateTime
    }
}

/// The constraints of a password policy, in both the config and `GET v2/passwordPolicy`.
public struct StrengthOptions: Codable, Sendable, Equatable {
    public var minPasswordLength: Int?
    public var maxPasswordLength: Int?
    public var containsLowercaseCharacter: Bool?
    public var containsUppercaseCharacter: Bool?
    public var containsNumericCharacter: Bool?
    public var containsNonAlphanumericCharacter: Bool?

    public init(minPasswordLength: Int?, maxPasswordLength: Int?, containsLowercaseCharacter: Bool?,
                containsUppercaseCharacter: Bool?, containsNumericCharacter: Bool?, containsNonAlphanumericCharacter: Bool?) {
        self.minPasswordLength = minPasswordLength
        self.maxPasswordLength = maxPasswordLength
        self.containsLowercaseCharacter = containsLowercaseCharacter
        self.containsUppercaseCharacter = containsUppercaseCharacter
        self.containsNumericCharacter = containsNumericCharacter
        self.containsNonAlphanumericCharacter = containsNonAlphanumericCharacter
    }
}

/// `GET v2/passwordPolicy` (`?tenantId=` for a tenant's): what the SDKs' `validatePassword` checks against.
public struct PasswordPolicyResponse: Codable, Sendable, Equatable {
    public var customStrengthOptions: StrengthOptions
    public var allowedNonAlphanumericCharacters: [String]
    public var enforcementState: String
    public var forceUpgradeOnSignin: Bool
    public var schemaVersion: Int

    public init(customStrengthOptions: StrengthOptions, allowedNonAlphanumericCharacters: [String], enforcementState: String,
                forceUpgradeOnSignin: Bool, schemaVersion: Int = 1) {
        self.customStrengthOptions = customStrengthOptions
        self.allowedNonAlphanumericCharacters = allowedNonAlphanumericCharacters
        self.enforcementState = enforcementState
        self.forceUpgradeOnSignin = forceUpgradeOnSignin
        self.schemaVersion = schemaVersion
    }
}

/// `GET v2/recaptchaConfig`: which sign-in providers need a CAPTCHA token (`OFF`, `AUDIT`, `ENFORCE`), and the site
/// key in `recaptchaKey` (`projects/{number}/keys/{siteKey}`; `none` without a provider). `captchaProvider` is Hearth's
/// own (`turnstile`, `hcaptcha`, `recaptcha`), so a page knows which widget to render; Firebase's SDKs ignore it.
public struct RecaptchaConfigResponse: Codable, Sendable, Equatable {
    public struct ProviderState: Codable, Sendable, Equatable {
        public var provider: String
        public var enforcementState: String
        public init(provider: String, enforcementState: String) {
            self.provider = provider
            self.enforcementState = enforcementState
        }
    }
    public var recaptchaKey: String
    public var recaptchaEnforcementState: [ProviderState]
    public var captchaProvider: String?

    public init(recaptchaKey: String, recaptchaEnforcementState: [ProviderState], captchaProvider: String? = nil) {
        self.recaptchaKey = recaptchaKey
        self.recaptchaEnforcementState = recaptchaEnforcementState
        self.captchaProvider = captchaProvider
    }
}

/// `smsRegionConfig`, in a project's config and a tenant: every region but `disallowedRegions`, or only
/// `allowedRegions` (ISO 3166-1 alpha-2 codes).
public struct SMSRegionConfigWire: Codable, Sendable, Equatable {
    public struct AllowByDefault: Codable, Sendable, Equatable {
        public var disallowedRegions: [String]?
        public init(disallowedRegions: [String]?) { self.disallowedRegions = disallowedRegions }
    }
    public struct AllowlistOnly: Codable, Sendable, Equatable {
        public var allowedRegions: [String]?
        public init(allowedRegions: [String]?) { self.allowedRegions = allowedRegions }
    }
    public var allowByDefault: AllowByDefault?
    public var allowlistOnly: AllowlistOnly?

    public init(allowByDefault: AllowByDefault? = nil, allowlistOnly: AllowlistOnly? = nil) {
        self.allowByDefault = allowByDefault
        self.allowlistOnly = allowlistOnly
    }
}

/// `recaptchaConfig`, in a project's config and a tenant: whether the email/password and phone providers need a
/// CAPTCHA token (`OFF`, `AUDIT`, `ENFORCE`). Hearth checks the token with the configured provider (Turnstile,
/// hCaptcha or reCAPTCHA); Identity Platform's reCAPTCHA Enterprise fields (keys, managed rules, account defender,
/// SMS scores) are accepted and ignored.
public struct RecaptchaConfigWire: Codable, Sendable, Equatable, IgnoresWireFields {
    public static let paths = ["emailPasswordEnforcementState", "phoneEnforcementState"]
    public static let ignoredWireFields = ["managedRules", "recaptchaKeys", "useAccountDefender", "useSmsBotScore",
                                           "useSmsTollFraudProtection", "smsTollFraudManagedRules"]
    public var emailPasswordEnforcementState: String?
    public var phoneEnforcementState: String?

    public init(emailPasswordEnforcementState: String? = nil, phoneEnforcementState: String? = nil) {
        self.emailPasswordEnforcementState = emailPasswordEnforcementState
        self.phoneEnforcementState = phoneEnforcementState
    }

    /// The mask paths the body sets.
    public var presentPaths: [String] {
        [emailPasswordEnforcementState.map { _ in "emailPasswordEnforcementState" },
         phoneEnforcementState.map { _ in "phoneEnforcementState" }].compactMap { $0 }
    }
}
