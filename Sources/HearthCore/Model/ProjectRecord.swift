import Foundation

/// A project: its identity, keys and sign-in settings. Created on first start (or, in emulator mode, on first use).
public struct ProjectRecord: Sendable, Codable, Equatable {
    public var id: String
    /// The numeric project number Firebase reports as `project_id` from the Secure Token API.
    public var number: String
    /// Browser API keys that identify this project's clients.
    public var apiKeys: [String]
    /// Signing keys: the last one signs, all are published so that tokens they signed still verify.
    public var signingKeys: [SigningKeyRecord]
    /// Firebase-scrypt parameters for new passwords.
    public var hashConfig: FirebaseScryptParameters
    public var settings: ProjectSettings
    public var createdAt: Date
    /// Keys allowed to call the admin API and to sign custom tokens (public halves only).
    public var serviceAccounts: [ServiceAccountRecord] = []
    /// Operators of the admin console (`hearth console-admins`).
    public var consoleAdmins: [ConsoleAdminRecord] = []
    /// Moves on by one with every stored change: writes are compare-and-set on it (``IdentityStore/updateProject(_:)``),
    /// so a server's cached copy or a CLI run cannot put back what another writer changed.
    public var version: Int64 = 0

    public init(id: String, number: String, apiKeys: [String], signingKeys: [SigningKeyRecord],
                hashConfig: FirebaseScryptParameters, settings: ProjectSettings, createdAt: Date) {
        self.id = id
        self.number = number
        self.apiKeys = apiKeys
        self.signingKeys = signingKeys
        self.hashConfig = hashConfig
        self.settings = settings
        self.createdAt = createdAt
    }

    /// The key that signs new tokens.
    public var activeSigningKey: SigningKeyRecord? { signingKeys.last { $0.retiredAt == nil } }

    enum CodingKeys: String, CodingKey {
        case id, number, apiKeys, signingKeys, hashConfig, settings, createdAt, serviceAccounts, consoleAdmins, version
    }

    /// Reads records written before a field existed (`serviceAccounts` defaults to none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        number = try container.decode(String.self, forKey: .number)
        apiKeys = try container.decode([String].self, forKey: .apiKeys)
        signingKeys = try container.decode([SigningKeyRecord].self, forKey: .signingKeys)
        hashConfig = try container.decode(FirebaseScryptParameters.self, forKey: .hashConfig)
        settings = try container.decode(ProjectSettings.self, forKey: .settings)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        serviceAccounts = try container.decodeIfPresent([ServiceAccountRecord].self, forKey: .serviceAccounts) ?? []
        consoleAdmins = try container.decodeIfPresent([ConsoleAdminRecord].self, forKey: .consoleAdmins) ?? []
        version = try container.decodeIfPresent(Int64.self, forKey: .version) ?? 0
    }
}

/// The settings a project's sign-in honours. Its switches are declared settings (``SignInSetting``), read and
/// written by declaration: `settings[.allowDuplicateEmails]`.
public struct ProjectSettings: Sendable, Codable, Equatable, HoldsDeclaredSettings {
    /// Multi-factor authentication (`mfa`); off unless configured.
    public var mfa: MFASettings?
    /// Identity providers by id (`google.com`, `github.com`, `oidc.acme`, …): Firebase's `defaultSupportedIdpConfigs`
    /// and `oauthIdpConfigs`. A provider not listed, or not enabled, cannot be signed in with.
    public var identityProviders: [String: IdentityProviderConfig]?
    /// Test phone numbers and their fixed codes (`signIn.phoneNumber.testPhoneNumbers`): no SMS is sent to them.
    public var testPhoneNumbers: [String: String]?
    /// Blocking functions (`blockingFunctions`), called from the account pipeline.
    public var blockingFunctions: BlockingFunctions?
    /// Whether accounts an administrator creates or imports also pass `beforeCreate` (Hearth's switch; `nil`: no,
    /// as in Firebase).
    public var blockingFunctionsOnAdminCreate: Bool?
    /// `passwordPolicyConfig`: what a new password must be (Firebase's 6-character minimum always holds).
    public var passwordPolicy: PasswordPolicyConfig?
    /// `smsRegionConfig`: the regions SMS codes may go to (`nil`: every region).
    public var smsRegions: SMSRegionPolicy?
    /// `recaptchaConfig`'s enforcement states: which requests need a passing CAPTCHA token (`nil`: none).
    public var captcha: CaptchaSettings?
    /// `passkeyConfig`: the relying party of the project's passkeys (`nil`: production refuses passkey calls).
    public var passkeys: PasskeyConfig?
    /// `authorizedDomains` as the admin API (or the console) set them; `nil`: the server's defaults. A server
    /// configured with its own list (the config file's `authorizedDomains`) uses that instead.
    public var authorizedDomains: [String]?
    /// Email templates as the admin API (or the console) set them, by language and action; the config file's
    /// `email.templates` win for the same language and action.
    public var emailTemplates: EmailTemplateSet?
    /// Users moved without their password hash are checked once against the source project until a date.
    public var lazyPasswordMigration: LazyPasswordMigration?
    /// The declared settings (``SignInSetting/all``) the project has set; the rest have their defaults.
    public var declared = DeclaredSettings(scope: .project)

    public init(allowDuplicateEmails: Bool = false, enableImprovedEmailPrivacy: Bool,
                passwordSignInEnabled: Bool = true, anonymousSignInEnabled: Bool = true) {
        self[.allowDuplicateEmails] = allowDuplicateEmails
        self[.enableImprovedEmailPrivacy] = enableImprovedEmailPrivacy
        self[.passwordSignIn] = passwordSignInEnabled
        self[.anonymousSignIn] = anonymousSignInEnabled
    }

    enum CodingKeys: String, CodingKey {
        case mfa, identityProviders, testPhoneNumbers, blockingFunctions, blockingFunctionsOnAdminCreate, passwordPolicy,
             smsRegions, captcha, passkeys, authorizedDomains, emailTemplates, lazyPasswordMigration
        case declared = "declaredValues"
    }

    /// Where records stored before the switches were declared kept them.
    private enum StoredBeforeDeclarations: String, CodingKey {
        case allowDuplicateEmails, enableImprovedEmailPrivacy, passwordSignInEnabled, anonymousSignInEnabled,
             emailLinkSignInEnabled, phoneSignInEnabled, autodeleteAnonymousUsers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mfa = try container.decodeIfPresent(MFASettings.self, forKey: .mfa)
        identityProviders = try container.decodeIfPresent([String: IdentityProviderConfig].self, forKey: .identityProviders)
        testPhoneNumbers = try container.decodeIfPresent([String: String].self, forKey: .testPhoneNumbers)
        blockingFunctions = try container.decodeIfPresent(BlockingFunctions.self, forKey: .blockingFunctions)
        blockingFunctionsOnAdminCreate = try container.decodeIfPresent(Bool.self, forKey: .blockingFunctionsOnAdminCreate)
        passwordPolicy = try container.decodeIfPresent(PasswordPolicyConfig.self, forKey: .passwordPolicy)
        smsRegions = try container.decodeIfPresent(SMSRegionPolicy.self, forKey: .smsRegions)
        captcha = try container.decodeIfPresent(CaptchaSettings.self, forKey: .captcha)
        passkeys = try container.decodeIfPresent(PasskeyConfig.self, forKey: .passkeys)
        authorizedDomains = try container.decodeIfPresent([String].self, forKey: .authorizedDomains)
        emailTemplates = try container.decodeIfPresent(EmailTemplateSet.self, forKey: .emailTemplates)
        lazyPasswordMigration = try container.decodeIfPresent(LazyPasswordMigration.self, forKey: .lazyPasswordMigration)
        declared = try container.decodeIfPresent(DeclaredSettings.self, forKey: .declared) ?? DeclaredSettings()
        declared.scope = .project
        let old = try decoder.container(keyedBy: StoredBeforeDeclarations.self)
        declared.adopt(.allowDuplicateEmails, try old.decodeIfPresent(Bool.self, forKey: .allowDuplicateEmails))
        declared.adopt(.enableImprovedEmailPrivacy, try old.decodeIfPresent(Bool.self, forKey: .enableImprovedEmailPrivacy))
        declared.adopt(.passwordSignIn, try old.decodeIfPresent(Bool.self, forKey: .passwordSignInEnabled))
        declared.adopt(.anonymousSignIn, try old.decodeIfPresent(Bool.self, forKey: .anonymousSignInEnabled))
        declared.adopt(.emailLinkSignIn, try old.decodeIfPresent(Bool.self, forKey: .emailLinkSignInEnabled))
        declared.adopt(.phoneSignIn, try old.decodeIfPresent(Bool.self, forKey: .phoneSignInEnabled))
        declared.adopt(.autodeleteAnonymousUsers, try old.decodeIfPresent(Bool.self, forKey: .autodeleteAnonymousUsers))
    }
}

/// An RSA signing key as stored: PKCS#8 private key, its self-signed certificate for the x509 endpoint.
public struct SigningKeyRecord: Sendable, Codable, Equatable {
    public var kid: String
    public var privateKeyPEM: String
    public var certificatePEM: String
    public var createdAt: Date
    /// When it starts signing (`hearth keys rotate` publishes a key first, so verifiers that cache the JWKS know it
    /// before any token needs it); `nil` means from creation.
    public var activatesAt: Date? = nil
    /// When it stopped signing (`hearth keys retire`); it stays published until every token it signed has expired.
    public var retiredAt: Date? = nil

    public init(kid: String, privateKeyPEM: String, certificatePEM: String, createdAt: Date) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.certificatePEM = certificatePEM
        self.createdAt = createdAt
    }
}

/// What a refresh token stands for. Only the SHA-256 of the token itself is stored (`tokenDigest`).
public struct RefreshTokenRecord: Sendable, Codable, Equatable {
    public var tokenDigest: String
    public var projectID: String
    public var tenantID: String?
    public var localID: String
    /// `firebase.sign_in_provider` of the sign-in that produced the token; repeated by every refresh.
    public var signInProvider: String
    /// Second factor of the sign-in (`phone` / `totp`) and its enrollment id, if any.
    public var secondFactor: String?
    public var secondFactorID: String?
    /// Session claims of the sign-in (a custom token's `claims`), as a JSON object.
    public var extraClaims: String?
    /// Time of the interactive sign-in: `auth_time` of every ID token minted from this refresh token.
    public var authTime: Date
    public var createdAt: Date

    public init(tokenDigest: String, projectID: String, tenantID: String?, localID: String, signInProvider: String,
                secondFactor: String? = nil, secondFactorID: String? = nil, extraClaims: String? = nil,
                authTime: Date, createdAt: Date) {
        self.extraClaims = extraClaims
        self.tokenDigest = tokenDigest
        self.projectID = projectID
        self.tenantID = tenantID
        self.localID = localID
        self.signInProvider = signInProvider
        self.secondFactor = secondFactor
        self.secondFactorID = secondFactorID
        self.authTime = authTime
        self.createdAt = createdAt
    }
}

/// Project ids as Google allows them: 4 to 30 characters of lowercase letters, digits and hyphens
/// (Hearth also allows the `demo-` ids of Firebase's emulator, which follow the same rule).
public enum ProjectID {
    public static func isValid(_ id: String) -> Bool {
        (4...30).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
            && id.first!.isLetter
    }
}
