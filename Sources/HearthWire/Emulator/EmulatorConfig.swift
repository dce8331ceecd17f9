/// `GET/PATCH /emulator/v1/projects/{id}/config`, shaped like Firebase's emulator.
public struct EmulatorConfig: Codable, Sendable, Equatable {
    public var signIn: SignIn
    public var emailPrivacyConfig: EmailPrivacyConfig

    public struct SignIn: Codable, Sendable, Equatable {
        public var allowDuplicateEmails: Bool
    }

    public struct EmailPrivacyConfig: Codable, Sendable, Equatable {
        public var enableImprovedEmailPrivacy: Bool
    }

    public init(allowDuplicateEmails: Bool, enableImprovedEmailPrivacy: Bool) {
        signIn = SignIn(allowDuplicateEmails: allowDuplicateEmails)
        emailPrivacyConfig = EmailPrivacyConfig(enableImprovedEmailPrivacy: enableImprovedEmailPrivacy)
    }
}

/// A PATCH of the emulator config: every field optional, merged into the current one. Unknown fields are refused even
/// in emulator mode (decode it strictly), as Firebase's emulator validates this body against its schema.
public struct EmulatorConfigPatch: Codable, Sendable, Equatable {
    public var signIn: SignIn?
    public var emailPrivacyConfig: EmailPrivacy?

    public struct SignIn: Codable, Sendable, Equatable { public var allowDuplicateEmails: Bool? }
    public struct EmailPrivacy: Codable, Sendable, Equatable { public var enableImprovedEmailPrivacy: Bool? }

    public var allowDuplicateEmails: Bool? { signIn?.allowDuplicateEmails }
    public var enableImprovedEmailPrivacy: Bool? { emailPrivacyConfig?.enableImprovedEmailPrivacy }
}

/// `GET /`: the emulator's readiness document.
public struct EmulatorRootInfo: Codable, Sendable, Equatable {
    public var authEmulator: Info

    public struct Info: Codable, Sendable, Equatable {
        public var ready = true
        public var docs = "https://firebase.google.com/docs/emulator-suite"
        public var apiSpec = "/emulator/openapi.json"
    }

    public init() { authEmulator = Info() }
}
