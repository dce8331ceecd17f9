/// `v2/projects/{id}/config`: the project's sign-in settings in Firebase's `Config` shape (the parts Hearth has).
public struct ProjectConfigResource: Codable, Sendable, Equatable {
    public var name: String
    public var signIn: SignIn
    public var emailPrivacyConfig: EmailPrivacy
    public var authorizedDomains: [String]
    public var mfa: MFA
    public var blockingFunctions = BlockingFunctionsWire()
    public var passwordPolicyConfig: PasswordPolicyConfigWire?
    public var autodeleteAnonymousUsers: Bool?
    public var smsRegionConfig: SMSRegionConfigWire?
    public var recaptchaConfig: RecaptchaConfigWire?
    /// Read here; written at `v2/projects/{id}/passkeyConfig` (a patch of the config ignores it).
    public var passkeyConfig: PasskeyConfigResource?
    /// The email templates of the project's default language.
    public var notification: NotificationConfigWire?

    /// `blockingFunctions`: `{}` when none; credentials listed only when forwarded.
    public struct BlockingFunctionsWire: Codable, Sendable, Equatable {
        public var triggers: [String: Trigger]?
        public var forwardInboundCredentials: Forward?

        public struct Trigger: Codable, Sendable, Equatable {
            public var functionUri: String
            public var updateTime: String
            public init(functionUri: String, updateTime: String) {
                self.functionUri = functionUri
                self.updateTime = updateTime
            }
        }

        public struct Forward: Codable, Sendable, Equatable {
            public var idToken: Bool?
            public var accessToken: Bool?
            public var refreshToken: Bool?
            public init(idToken: Bool?, accessToken: Bool?, refreshToken: Bool?) {
                self.idToken = idToken
                self.accessToken = accessToken
                self.refreshToken = refreshToken
            }
        }

        public init(triggers: [String: Trigger]? = nil, forwardInboundCredentials: Forward? = nil) {
            self.triggers = triggers
            self.forwardInboundCredentials = forwardInboundCredentials
        }
    }

    /// Firebase's emulator shows `allowDuplicateEmails` alone (see ``emulatorView``); production every field.
    public struct SignIn: Codable, Sendable, Equatable {
        public var email: Email?
        public var anonymous: Enabled?
        public var allowDuplicateEmails: Bool
        public var hashConfig: HashConfig?
        public var phoneNumber: Phone?

        public struct Phone: Codable, Sendable, Equatable {
            public var enabled: Bool
            public var testPhoneNumbers: [String: String]
            public init(enabled: Bool, testPhoneNumbers: [String: String]) {
                self.enabled = enabled
                self.testPhoneNumbers = testPhoneNumbers
            }
        }

        public init(email: Email?, anonymous: Enabled?, allowDuplicateEmails: Bool, hashConfig: HashConfig?,
                    phoneNumber: Phone?) {
            self.phoneNumber = phoneNumber
            self.email = email
            self.anonymous = anonymous
            self.allowDuplicateEmails = allowDuplicateEmails
            self.hashConfig = hashConfig
        }
    }

    public struct Email: Codable, Sendable, Equatable {
        public var enabled: Bool
        public var passwordRequired: Bool
        public init(enabled: Bool, passwordRequired: Bool) {
            self.enabled = enabled
            self.passwordRequired = passwordRequired
        }
    }

    public struct Enabled: Codable, Sendable, Equatable {
        public var enabled: Bool
        public init(enabled: Bool) { self.enabled = enabled }
    }

    /// The Firebase-scrypt parameters of new passwords (`firebase auth:import --hash-algo=SCRYPT` takes these).
    public struct HashConfig: Codable, Sendable, Equatable {
        public var algorithm = "SCRYPT"
        public var signerKey: String
        public var saltSeparator: String
        public var rounds: Int
        public var memoryCost: Int
        public init(signerKey: String, saltSeparator: String, rounds: Int, memoryCost: Int) {
            self.signerKey = signerKey
            self.saltSeparator = saltSeparator
            self.rounds = rounds
            self.memoryCost = memoryCost
        }
    }

    public struct EmailPrivacy: Codable, Sendable, Equatable {
        public var enableImprovedEmailPrivacy: Bool
        public init(enableImprovedEmailPrivacy: Bool) { self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy }
    }

    /// Firebase's `mfa` config: `state`, `enabledProviders` (PHONE_SMS), `providerConfigs` (TOTP).
    public struct MFA: Codable, Sendable, Equatable {
        public var state: String
        public var enabledProviders: [String]
        public var providerConfigs: [ProviderConfig]

        public struct ProviderConfig: Codable, Sendable, Equatable {
            public var state: String
            public var totpProviderConfig: TOTPConfig

            public struct TOTPConfig: Codable, Sendable, Equatable {
                public var adjacentIntervals: Int
            }

            public init(state: String, adjacentIntervals: Int) {
                self.state = state
                self.totpProviderConfig = TOTPConfig(adjacentIntervals: adjacentIntervals)
            }
        }

        public init(state: String, enabledProviders: [String], providerConfigs: [ProviderConfig]) {
            self.state = state
            self.enabledProviders = enabledProviders
            self.providerConfigs = providerConfigs
        }
    }

    public init(name: String, signIn: SignIn, emailPrivacyConfig: EmailPrivacy, authorizedDomains: [String], mfa: MFA,
                blockingFunctions: BlockingFunctionsWire = .init()) {
        self.blockingFunctions = blockingFunctions
        self.name = name
        self.signIn = signIn
        self.emailPrivacyConfig = emailPrivacyConfig
        self.authorizedDomains = authorizedDomains
        self.mfa = mfa
    }
}

/// The writable fields of a `PATCH v2/projects/{id}/config`, by their `updateMask` paths.
public struct ProjectConfigPatch: Codable, Sendable, Equatable {
    public static let writablePaths: Set<String> = Set<String>([
        "signIn.email.enabled", "signIn.email.passwordRequired", "signIn.anonymous.enabled", "signIn.allowDuplicateEmails",
        "signIn.phoneNumber.enabled",
        "emailPrivacyConfig.enableImprovedEmailPrivacy", "signIn.phoneNumber.testPhoneNumbers",
        "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs", "blockingFunctions.triggers",
        "blockingFunctions.forwardInboundCredentials.idToken", "blockingFunctions.forwardInboundCredentials.accessToken",
        "blockingFunctions.forwardInboundCredentials.refreshToken", "autodeleteAnonymousUsers", "smsRegionConfig",
        "authorizedDomains",
    ]).union(PasswordPolicyConfigWire.paths.map { "passwordPolicyConfig." + $0 })
        .union(NotificationConfigWire.paths)
        .union(RecaptchaConfigWire.paths.map { "recaptchaConfig." + $0 })
    /// What Firebase's emulator keeps of the config: a full update (no `updateMask`) there resets these.
    public static let emulatorPaths: Set<String> = [
        "signIn.allowDuplicateEmails", "emailPrivacyConfig.enableImprovedEmailPrivacy", "blockingFunctions.triggers",
        "blockingFunctions.forwardInboundCredentials.idToken", "blockingFunctions.forwardInboundCredentials.accessToken",
        "blockingFunctions.forwardInboundCredentials.refreshToken",
    ]
    /// The writable paths a mask entry names: itself, or every writable path under a parent (`emailPrivacyConfig`).
    public static func expand(_ path: String) -> [String] {
        writablePaths.filter { $0 == path || $0.hasPrefix(path + ".") }.sorted()
    }
    public var signIn: SignIn?
    public var emailPrivacyConfig: EmailPrivacy?
    public var mfa: MFAConfigPatch?
    public var blockingFunctions: BlockingFunctions?
    public var passwordPolicyConfig: PasswordPolicyConfigWire?
    public var autodeleteAnonymousUsers: Bool?
    public var smsRegionConfig: SMSRegionConfigWire?
    public var recaptchaConfig: RecaptchaConfigWire?
    /// The domains `continueUrl`s and redirects may go to, replacing the list (as in Firebase's console).
    public var authorizedDomains: [String]?
    public var notification: NotificationConfigWire?

    public init() {}

    public struct SignIn: Codable, Sendable, Equatable {
        public var email: Email?
        public var anonymous: Enabled?
        public var allowDuplicateEmails: Bool?
        public var phoneNumber: Phone?
        /// Read-only: named only to be refused in production.
        public var hashConfig: JSONValue?

        public struct Email: Codable, Sendable, Equatable {
            public var enabled: Bool?
            public var passwordRequired: Bool?
        }
        public struct Enabled: Codable, Sendable, Equatable { public var enabled: Bool? }
        public struct Phone: Codable, Sendable, Equatable {
            public var enabled: Bool?
            public var testPhoneNumbers: [String: String]?
        }
    }

    public struct EmailPrivacy: Codable, Sendable, Equatable { public var enableImprovedEmailPrivacy: Bool? }

    public struct BlockingFunctions: Codable, Sendable, Equatable {
        public var triggers: [String: Trigger]?
        public var forwardInboundCredentials: Forward?

        public struct Trigger: Codable, Sendable, Equatable, IgnoresWireFields {
            public var functionUri: String?
            public static let ignoredWireFields = ["updateTime"]
        }
        public struct Forward: Codable, Sendable, Equatable {
            public var idToken: Bool?
            public var accessToken: Bool?
            public var refreshToken: Bool?
        }
    }

    /// Switches present in the body, by their `updateMask` path.
    public var values: [String: Bool] {
        let forward = blockingFunctions?.forwardInboundCredentials
        let switches: [String: Bool?] = [
            "signIn.email.enabled": signIn?.email?.enabled,
            "signIn.email.passwordRequired": signIn?.email?.passwordRequired,
            "signIn.anonymous.enabled": signIn?.anonymous?.enabled,
            "signIn.allowDuplicateEmails": signIn?.allowDuplicateEmails,
            "signIn.phoneNumber.enabled": signIn?.phoneNumber?.enabled,
            "emailPrivacyConfig.enableImprovedEmailPrivacy": emailPrivacyConfig?.enableImprovedEmailPrivacy,
            "blockingFunctions.forwardInboundCredentials.idToken": forward?.idToken,
            "blockingFunctions.forwardInboundCredentials.accessToken": forward?.accessToken,
            "blockingFunctions.forwardInboundCredentials.refreshToken": forward?.refreshToken,
            "autodeleteAnonymousUsers": autodeleteAnonymousUsers,
        ]
        return switches.compactMapValues { $0 }
    }

    /// Read-only fields the body names (`signIn.hashConfig`): production refuses them rather than answer 200 and
    /// change nothing.
    public var readOnlyPresent: [String] {
        [signIn?.hashConfig.map { _ in "signIn.hashConfig" }].compactMap { $0 }
    }

    public var testPhoneNumbers: [String: String]? { signIn?.phoneNumber?.testPhoneNumbers }

    /// `blockingFunctions.triggers`: function URIs by event name.
    public var triggers: [String: String]? { blockingFunctions?.triggers?.mapValues { $0.functionUri ?? "" } }

    /// The paths the body sets (what an absent `updateMask` means).
    public var presentPaths: Set<String> {
        var paths = Set(values.keys)
        if testPhoneNumbers != nil { paths.insert("signIn.phoneNumber.testPhoneNumbers") }
        paths.formUnion(mfa?.presentFields.map { "mfa." + $0 } ?? [])
        if triggers != nil { paths.insert("blockingFunctions.triggers") }
        if let policy = passwordPolicyConfig { paths.formUnion(policy.presentPaths.map { "passwordPolicyConfig." + $0 }) }
        if smsRegionConfig != nil { paths.insert("smsRegionConfig") }
        if authorizedDomains != nil { paths.insert("authorizedDomains") }
        paths.formUnion(recaptchaConfig?.presentPaths.map { "recaptchaConfig." + $0 } ?? [])
        if let sendEmail = notification?.sendEmail {
            paths.formUnion(NotificationConfigWire.templates.filter { sendEmail[$0.0] != nil }.map { "notification.sendEmail." + $0.0 })
        }
        return paths
    }
}

extension ProjectConfigPatch: IgnoresWireFields {
    public static let ignoredWireFields = ["name", "passkeyConfig"]
}

/// The `mfa` (project) or `mfaConfig` (tenant) object of a patch: each field optional.
public struct MFAConfigPatch: Codable, Sendable, Equatable {
    public var state: String?
    public var enabledProviders: [String]?
    public var providerConfigs: [ProviderConfig]?

    public struct ProviderConfig: Codable, Sendable, Equatable {
        public var state: String?
        public var totpProviderConfig: TOTPConfig?
        public struct TOTPConfig: Codable, Sendable, Equatable { public var adjacentIntervals: Int64? }
    }

    /// TOTP's `adjacentIntervals`, and whether its provider config is ENABLED (the last config given).
    public var totp: (enabled: Bool, adjacentIntervals: Int?)? {
        providerConfigs?.last.map { ($0.state == "ENABLED", $0.totpProviderConfig?.adjacentIntervals.map { Int(clamping: $0) }) }
    }

    /// The fields present (`state`, `enabledProviders`, `providerConfigs`).
    public var presentFields: [String] {
        [state.map { _ in "state" }, enabledProviders.map { _ in "enabledProviders" },
         totp.map { _ in "providerConfigs" }].compactMap { $0 }
    }
}
