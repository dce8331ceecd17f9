import Foundation

/// One Identity Platform tenant of a project: its own users (the tenant is part of every user key), sign-in
/// settings and second factors, under the project's keys and password hashing. Its switches are declared settings
/// (``SignInSetting``): `tenant[.passwordSignIn]`.
///
/// ```swift
/// var tenant = TenantRecord(projectID: "my-app", id: "acme-x7k2p", displayName: "Acme")
/// tenant[.passwordSignIn] = true
/// try await store.insertTenant(tenant)
/// ```
public struct TenantRecord: Sendable, Codable, Equatable, HoldsDeclaredSettings {
    public var projectID: String
    public var id: String
    public var displayName: String?
    public var mfa: MFASettings
    public var testPhoneNumbers: [String: String]
    /// The tenant's own identity providers (`tenants/{t}/defaultSupportedIdpConfigs` and `…/oauthIdpConfigs`): a
    /// tenant does not inherit the project's, as in Identity Platform.
    public var identityProviders: [String: IdentityProviderConfig] = [:]
    /// Emulator mode only: `mfaConfig.enabledProviders` as the caller wrote it, `PROVIDER_UNSPECIFIED` included,
    /// which Firebase's emulator echoes back (and its tests expect). Production keeps what the list means.
    public var mfaProvidersAsGiven: [String]?
    /// The tenant's own `passwordPolicyConfig`; without one, the project's applies.
    public var passwordPolicy: PasswordPolicyConfig?
    /// The tenant's own `smsRegionConfig`; without one, the project's applies.
    public var smsRegions: SMSRegionPolicy?
    /// The tenant's own `recaptchaConfig` enforcement; without one, the project's applies.
    public var captcha: CaptchaSettings?
    /// The tenant's own `passkeyConfig`; without one, the project's applies.
    public var passkeys: PasskeyConfig?
    /// The declared settings (``SignInSetting/all``) the tenant has set; the rest have a tenant's defaults.
    public var declared = DeclaredSettings(scope: .tenant)
    /// Bumped by each write: an update names the version it read, so two racing updates cannot lose either.
    public var version: Int

    /// Firebase production's defaults: every sign-in method off until enabled.
    public init(projectID: String, id: String, displayName: String? = nil, allowPasswordSignup: Bool = false,
                enableEmailLinkSignin: Bool = false, enableAnonymousUser: Bool = false, disableAuth: Bool = false,
                mfa: MFASettings = MFASettings(), testPhoneNumbers: [String: String] = [:], version: Int = 0) {
        self.projectID = projectID
        self.id = id
        self.displayName = displayName
        self.mfa = mfa
        self.testPhoneNumbers = testPhoneNumbers
        self.version = version
        if allowPasswordSignup { self[.passwordSignIn] = true }
        if enableEmailLinkSignin { self[.emailLinkSignIn] = true }
        if enableAnonymousUser { self[.anonymousSignIn] = true }
        if disableAuth { self[.disableAuth] = true }
    }

    enum CodingKeys: String, CodingKey {
        case projectID, id, displayName, mfa, testPhoneNumbers, identityProviders, mfaProvidersAsGiven, passwordPolicy,
             smsRegions, captcha, passkeys, declared, version
    }

    /// Where records stored before the switches were declared kept them.
    private enum StoredBeforeDeclarations: String, CodingKey {
        case allowPasswordSignup, enableEmailLinkSignin, enableAnonymousUser, disableAuth, inheritsEmailSending,
             enableImprovedEmailPrivacy, autodeleteAnonymousUsers
    }

    /// Reads records written before a field existed (each later field has its default).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        projectID = try container.decode(String.self, forKey: .projectID)
        id = try container.decode(String.self, forKey: .id)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        mfa = try container.decode(MFASettings.self, forKey: .mfa)
        testPhoneNumbers = try container.decode([String: String].self, forKey: .testPhoneNumbers)
        identityProviders = try container.decodeIfPresent([String: IdentityProviderConfig].self, forKey: .identityProviders) ?? [:]
        mfaProvidersAsGiven = try container.decodeIfPresent([String].self, forKey: .mfaProvidersAsGiven)
        passwordPolicy = try container.decodeIfPresent(PasswordPolicyConfig.self, forKey: .passwordPolicy)
        smsRegions = try container.decodeIfPresent(SMSRegionPolicy.self, forKey: .smsRegions)
        captcha = try container.decodeIfPresent(CaptchaSettings.self, forKey: .captcha)
        passkeys = try container.decodeIfPresent(PasskeyConfig.self, forKey: .passkeys)
        declared = try container.decodeIfPresent(DeclaredSettings.self, forKey: .declared) ?? DeclaredSettings()
        declared.scope = .tenant
        version = try container.decode(Int.self, forKey: .version)
        let old = try decoder.container(keyedBy: StoredBeforeDeclarations.self)
        if old.contains(.allowPasswordSignup) {
            declared.adopt(.passwordSignIn, try old.decodeIfPresent(Bool.self, forKey: .allowPasswordSignup))
            declared.adopt(.emailLinkSignIn, try old.decodeIfPresent(Bool.self, forKey: .enableEmailLinkSignin))
            declared.adopt(.anonymousSignIn, try old.decodeIfPresent(Bool.self, forKey: .enableAnonymousUser))
            declared.adopt(.disableAuth, try old.decodeIfPresent(Bool.self, forKey: .disableAuth))
            declared.adopt(.inheritsEmailSending, try old.decodeIfPresent(Bool.self, forKey: .inheritsEmailSending))
            declared.adopt(.autodeleteAnonymousUsers, try old.decodeIfPresent(Bool.self, forKey: .autodeleteAnonymousUsers))
            // A tenant stored before the field existed keeps email-enumeration protection on: the safe reading.
            declared.adopt(.enableImprovedEmailPrivacy,
                           try old.decodeIfPresent(Bool.self, forKey: .enableImprovedEmailPrivacy) ?? true)
        }
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
