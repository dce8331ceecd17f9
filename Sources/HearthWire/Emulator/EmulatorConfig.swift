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

/// A PATCH of the emulator config: every field optional, merged into the current one.
public struct EmulatorConfigPatch: WireDecodable {
    public var allowDuplicateEmails: Bool?
    public var enableImprovedEmailPrivacy: Bool?

    public init(wire body: inout WireObject) throws(WireDecodingError) {
        if var signIn = try body.object("signIn") {
            allowDuplicateEmails = try signIn.bool("allowDuplicateEmails")
            if let unknown = signIn.unreadKeys.first { throw .unknownField("signIn." + unknown) }
        }
        if var privacy = try body.object("emailPrivacyConfig") {
            enableImprovedEmailPrivacy = try privacy.bool("enableImprovedEmailPrivacy")
            if let unknown = privacy.unreadKeys.first { throw .unknownField("emailPrivacyConfig." + unknown) }
        }
    }
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
