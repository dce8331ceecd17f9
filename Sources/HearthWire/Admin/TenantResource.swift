/// `v2/projects/{id}/tenants/{tenant}`: one tenant in Firebase's `Tenant` shape.
///
/// ```json
/// { "name": "projects/my-app/tenants/acme-x7k2p", "tenantId": "acme-x7k2p", "displayName": "Acme",
///   "allowPasswordSignup": true, "enableEmailLinkSignin": false, "enableAnonymousUser": false,
///   "disableAuth": false, "mfaConfig": { "state": "DISABLED", "enabledProviders": [] } }
/// ```
public struct TenantResource: Codable, Sendable, Equatable {
    public var name: String
    public var tenantId: String
    public var displayName: String?
    public var allowPasswordSignup: Bool
    public var enableEmailLinkSignin: Bool
    public var enableAnonymousUser: Bool
    public var disableAuth: Bool
    public var mfaConfig: MFAConfig
    public var testPhoneNumbers: [String: String]?
    /// `emailSendingConfig`: the tenant's emails follow the project's templates and sender settings.
    public var inheritance: Inheritance?
    public var emailPrivacyConfig: EmailPrivacyConfig?
    public var passwordPolicyConfig: PasswordPolicyConfigWire?
    public var autodeleteAnonymousUsers: Bool?
    public var smsRegionConfig: SMSRegionConfigWire?
    public var recaptchaConfig: RecaptchaConfigWire?
    /// Read here; written at `…/tenants/{tenant}/passkeyConfig` (a patch of the tenant ignores it).
    public var passkeyConfig: PasskeyConfigResource?

    public struct Inheritance: Codable, Sendable, Equatable {
        public var emailSendingConfig: Bool
        public init(emailSendingConfig: Bool) { self.emailSendingConfig = emailSendingConfig }
    }

    public struct EmailPrivacyConfig: Codable, Sendable, Equatable {
        public var enableImprovedEmailPrivacy: Bool
        public init(enableImprovedEmailPrivacy: Bool) { self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy }
    }

    public struct MFAConfig: Codable, Sendable, Equatable {
        public var state: String
        public var enabledProviders: [String]
        public var providerConfigs: [ProjectConfigResource.MFA.ProviderConfig]?
        public init(state: String, enabledProviders: [String], providerConfigs: [ProjectConfigResource.MFA.ProviderConfig]?) {
            self.state = state
            self.enabledProviders = enabledProviders
            self.providerConfigs = providerConfigs
        }
    }

    public init(name: String, tenantId: String, displayName: String?, allowPasswordSignup: Bool,
                enableEmailLinkSignin: Bool, enableAnonymousUser: Bool, disableAuth: Bool, mfaConfig: MFAConfig,
                testPhoneNumbers: [String: String]?, inheritance: Inheritance? = nil,
                emailPrivacyConfig: EmailPrivacyConfig? = nil) {
        self.name = name
        self.tenantId = tenantId
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.mfaConfig = mfaConfig
        self.testPhoneNumbers = testPhoneNumbers
        self.inheritance = inheritance
        self.emailPrivacyConfig = emailPrivacyConfig
    }
}

/// `GET v2/projects/{id}/tenants`: a page of tenants in id order.
public struct ListTenantsResponse: Codable, Sendable, Equatable {
    public var tenants: [TenantResource]
    public var nextPageToken: String?
    public init(tenants: [TenantResource], nextPageToken: String?) {
        self.tenants = tenants
        self.nextPageToken = nextPageToken
    }
}

/// The body of a tenant create or patch: the fields present, each optional (an `updateMask` says which apply).
public struct TenantPatch: Codable, Sendable, Equatable, IgnoresWireFields {
    public static let writablePaths: Set<String> = Set<String>([
        "displayName", "allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth",
        "mfaConfig.state", "mfaConfig.enabledProviders", "mfaConfig.providerConfigs", "testPhoneNumbers",
        "inheritance.emailSendingConfig", "emailPrivacyConfig.enableImprovedEmailPrivacy", "autodeleteAnonymousUsers", "smsRegionConfig",
    ]).union(PasswordPolicyConfigWire.paths.map { "passwordPolicyConfig." + $0 })
        .union(RecaptchaConfigWire.paths.map { "recaptchaConfig." + $0 })
    public static let ignoredWireFields = ["name", "tenantId", "hashConfig", "passkeyConfig",
                                           "monitoring", "emailLinkSignin"]
    public var displayName: String?
    public var allowPasswordSignup: Bool?
    public var enableEmailLinkSignin: Bool?
    public var enableAnonymousUser: Bool?
    public var disableAuth: Bool?
    public var inheritance: Inheritance?
    public var emailPrivacyConfig: ProjectConfigPatch.EmailPrivacy?
    public var mfaConfig: MFAConfigPatch?
    public var testPhoneNumbers: [String: String]?
    public var passwordPolicyConfig: PasswordPolicyConfigWire?
    public var autodeleteAnonymousUsers: Bool?
    public var smsRegionConfig: SMSRegionConfigWire?
    public var recaptchaConfig: RecaptchaConfigWire?

    public struct Inheritance: Codable, Sendable, Equatable { public var emailSendingConfig: Bool? }

    public init(displayName: String? = nil, allowPasswordSignup: Bool? = nil, enableEmailLinkSignin: Bool? = nil,
                enableAnonymousUser: Bool? = nil, disableAuth: Bool? = nil) {
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
    }

    public var mfa: MFAConfigPatch? { mfaConfig }

    /// Switches present in the body, by path (`disableAuth`, `inheritance.emailSendingConfig`).
    public var values: [String: Bool] {
        let switches: [String: Bool?] = [
            "allowPasswordSignup": allowPasswordSignup, "enableEmailLinkSignin": enableEmailLinkSignin,
            "enableAnonymousUser": enableAnonymousUser, "disableAuth": disableAuth,
            "inheritance.emailSendingConfig": inheritance?.emailSendingConfig,
            "emailPrivacyConfig.enableImprovedEmailPrivacy": emailPrivacyConfig?.enableImprovedEmailPrivacy,
            "autodeleteAnonymousUsers": autodeleteAnonymousUsers,
        ]
        return switches.compactMapValues { $0 }
    }

    /// The writable paths a mask entry names: itself, or every path under a parent (`mfaConfig`).
    public static func expand(_ path: String) -> [String] {
        writablePaths.filter { $0 == path || $0.hasPrefix(path + ".") }.sorted()
    }

    /// The paths the body sets: what a patch without `updateMask` changes.
    public var presentPaths: Set<String> {
        var paths = Set(values.keys)
        if displayName != nil { paths.insert("displayName") }
        paths.formUnion(mfa?.presentFields.map { "mfaConfig." + $0 } ?? [])
        if testPhoneNumbers != nil { paths.insert("testPhoneNumbers") }
        if let policy = passwordPolicyConfig { paths.formUnion(policy.presentPaths.map { "passwordPolicyConfig." + $0 }) }
        if smsRegionConfig != nil { paths.insert("smsRegionConfig") }
        paths.formUnion(recaptchaConfig?.presentPaths.map { "recaptchaConfig." + $0 } ?? [])
        return paths
    }
}

