import Foundation

/// One Identity Platform tenant of a project: its own users (the tenant is part of every user key), sign-in
/// settings and second factors, under the project's keys and password hashing.
///
/// ```swift
/// var tenant = TenantRecord(projectID: "my-app", id: "acme-x7k2p", displayName: "Acme")
/// tenant.allowPasswordSignup = true
/// try await store.insertTenant(tenant)
/// ```
public struct TenantRecord: Sendable, Codable, Equatable {
    public var projectID: String
    public var id: String
    public var displayName: String?
    public var allowPasswordSignup: Bool
    public var enableEmailLinkSignin: Bool
    public var enableAnonymousUser: Bool
    /// No client may sign in or sign up (admin calls still work), as Firebase's `disableAuth`.
    public var disableAuth: Bool
    public var mfa: MFASettings
    public var testPhoneNumbers: [String: String]
    /// The tenant's own identity providers (`tenants/{t}/defaultSupportedIdpConfigs` and `…/oauthIdpConfigs`): a
    /// tenant does not inherit the project's, as in Identity Platform.
    public var identityProviders: [String: IdentityProviderConfig] = [:]
    /// `inheritance.emailSendingConfig`: the tenant's emails use the project's templates. Off (Firebase's default),
    /// they use the built-in text, as Firebase sends a tenant's emails without the project's customizations.
    public var inheritsEmailSending = false
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy` (email-enumeration protection) for this tenant's clients.
    public var enableImprovedEmailPrivacy = false
    /// Emulator mode only: `mfaConfig.enabledProviders` as the caller wrote it, `PROVIDER_UNSPECIFIED` included,
    /// which Firebase's emulator echoes back (and its tests expect). Production keeps what the list means.
    public var mfaProvidersAsGiven: [String]?
    /// The tenant's own `passwordPolicyConfig`; without one, the project's applies.
    public var passwordPolicy: PasswordPolicyConfig?
    /// `autodeleteAnonymousUsers` for this tenant's users.
    public var autodeleteAnonymousUsers = false
    /// The tenant's own `smsRegionConfig`; without one, the project's applies.
    public var smsRegions: SMSRegionPolicy?
    /// The tenant's own `recaptchaConfig` enforcement; without one, the project's applies.
    public var captcha: CaptchaSettings?
    /// The tenant's own `passkeyConfig`; without one, the project's applies.
    public var passkeys: PasskeyConfig?
    /// The settings declared in ``SignInSetting/all`` that the tenant has set.
    public var declared = DeclaredSettings()
    /// Bumped by each write: an update names the version it read, so two racing updates cannot lose either.
    public var version: Int

    /// Firebase production's defaults: every sign-in method off until enabled.
    public init(projectID: String, id: String, displayName: String? = nil, allowPasswordSignup: Bool = false,
                enableEmailLinkSignin: Bool = false, enableAnonymousUser: Bool = false, disableAuth: Bool = false,
                mfa: MFASettings = MFASettings(), testPhoneNumbers: [String: String] = [:], version: Int = 0) {
        self.projectID = projectID
        self.id = id
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.mfa = mfa
        self.testPhoneNumbers = testPhoneNumbers
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case projectID, id, displayName, allowPasswordSignup, enableEmailLinkSignin, enableAnonymousUser, disableAuth,
             mfa, testPhoneNumbers, identityProviders, inheritsEmailSending, enableImprovedEmailPrivacy, mfaProvidersAsGiven,
             passwordPolicy, autodeleteAnonymousUsers, smsRegions, captcha, passkeys, declared, version
    }

    /// Reads records written before a field existed (each later field has its default).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        projectID = try container.decode(String.self, forKey: .projectID)
        id = try container.decode(String.self, forKey: .id)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        allowPasswordSignup = try container.decode(Bool.self, forKey: .allowPasswordSignup)
        enableEmailLinkSignin = try container.decode(Bool.self, forKey: .enableEmailLinkSignin)
        enableAnonymousUser = try container.decode(Bool.self, forKey: .enableAnonymousUser)
        disableAuth = try container.decode(Bool.self, forKey: .disableAuth)
        mfa = try container.decode(MFASettings.self, forKey: .mfa)
        testPhoneNumbers = try container.decode([String: String].self, forKey: .testPhoneNumbers)
        identityProviders = try container.decodeIfPresent([String: IdentityProviderConfig].self, forKey: .identityProviders) ?? [:]
        inheritsEmailSending = try container.decodeIfPresent(Bool.self, forKey: .inheritsEmailSending) ?? false
        // A tenant stored before the field existed keeps email-enumeration protection on: the safe reading.
        enableImprovedEmailPrivacy = try container.decodeIfPresent(Bool.self, forKey: .enableImprovedEmailPrivacy) ?? true
        mfaProvidersAsGiven = try container.decodeIfPresent([String].self, forKey: .mfaProvidersAsGiven)
        passwordPolicy = try container.decodeIfPresent(PasswordPolicyConfig.self, forKey: .passwordPolicy)
        autodeleteAnonymousUsers = try container.decodeIfPresent(Bool.self, forKey: .autodeleteAnonymousUsers) ?? false
        smsRegions = try container.decodeIfPresent(SMSRegionPolicy.self, forKey: .smsRegions)
        captcha = try container.decodeIfPresent(CaptchaSettings.self, forKey: .captcha)
        passkeys = try container.decodeIfPresent(PasskeyConfig.self, forKey: .passkeys)
        declared = try container.decodeIfPresent(DeclaredSettings.self, forKey: .declared) ?? DeclaredSettings()
        version = try container.decode(Int.self, forKey: .version)
    }

    /// A tenant id as Firebase makes them: a name of letters, digits and hyphens, a hyphen, then five random
    /// characters (`acme-x7k2p`); `tenant` alone when the name has nothing usable.
    public static func newID(displayName: String?) -> String {
        let base = String((displayName ?? "tenant").lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
            .filter { $0.isASCII }.prefix(20)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let suffix = String((0..<5).map { _ in alphabet.randomElement()! })
        return (base.isEmpty || !base.first!.isLetter ? "tenant" : base) + "-" + suffix
    }

    /// Firebase's rule for a tenant's display name: a letter, then letters, digits or hyphens, 4 to 20 in all.
    public static func isValidDisplayName(_ name: String) -> Bool {
        guard (4...20).contains(name.count), let first = name.first, first.isASCII, first.isLetter else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// A tenant id Hearth accepts: a letter, then letters, digits or hyphens, at most 63 in all (it appears in
    /// paths, tokens and store keys).
    public static func isValidID(_ id: String) -> Bool {
        guard let first = id.first, first.isASCII, first.isLetter, id.count <= 63 else { return false }
        return id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
