/// `v2/projects/{id}/config`: the project's sign-in settings in Firebase's `Config` shape (the parts Hearth has).
public struct ProjectConfigResource: Codable, Sendable, Equatable {
    public var name: String
    public var signIn: SignIn
    public var emailPrivacyConfig: EmailPrivacy
    public var authorizedDomains: [String]
    public var mfa: MFA

    public struct SignIn: Codable, Sendable, Equatable {
        public var email: Email
        public var anonymous: Enabled
        public var allowDuplicateEmails: Bool
        public var hashConfig: HashConfig

        public init(email: Email, anonymous: Enabled, allowDuplicateEmails: Bool, hashConfig: HashConfig) {
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

    public struct MFA: Codable, Sendable, Equatable {
        public var state: String
        public init(state: String) { self.state = state }
    }

    public init(name: String, signIn: SignIn, emailPrivacyConfig: EmailPrivacy, authorizedDomains: [String], mfa: MFA) {
        self.name = name
        self.signIn = signIn
        self.emailPrivacyConfig = emailPrivacyConfig
        self.authorizedDomains = authorizedDomains
        self.mfa = mfa
    }
}

/// The writable fields of a `PATCH v2/projects/{id}/config`, by their `updateMask` paths.
public struct ProjectConfigPatch: Sendable, Equatable {
    public static let writablePaths: Set<String> = [
        "signIn.email.enabled", "signIn.anonymous.enabled", "signIn.allowDuplicateEmails",
        "emailPrivacyConfig.enableImprovedEmailPrivacy",
    ]
    /// Values present in the body, by path.
    public var values: [String: Bool] = [:]
}

extension ProjectConfigPatch: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        if var signIn = try body.object("signIn") {
            if var email = try signIn.object("email") {
                values["signIn.email.enabled"] = try email.bool("enabled")
                email.ignore("passwordRequired")
                signIn.absorb(email)
            }
            if var anonymous = try signIn.object("anonymous") {
                values["signIn.anonymous.enabled"] = try anonymous.bool("enabled")
                signIn.absorb(anonymous)
            }
            values["signIn.allowDuplicateEmails"] = try signIn.bool("allowDuplicateEmails")
            signIn.ignore("hashConfig", "phoneNumber")
            body.absorb(signIn)
        }
        if var privacy = try body.object("emailPrivacyConfig") {
            values["emailPrivacyConfig.enableImprovedEmailPrivacy"] = try privacy.bool("enableImprovedEmailPrivacy")
            body.absorb(privacy)
        }
        body.ignore("name", "authorizedDomains", "mfa")
        values = values.compactMapValues { $0 }
    }
}
