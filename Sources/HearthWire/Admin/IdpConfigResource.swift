/// `v2/projects/{id}/defaultSupportedIdpConfigs/{idpId}` and `…/oauthIdpConfigs/{oidc.*}`: one identity provider.
/// The client secret is read back as Identity Platform reads it back (the admin API only); an Apple private key
/// never is.
public struct IdpConfigResource: Codable, Sendable, Equatable {
    /// `projects/{id}/defaultSupportedIdpConfigs/google.com` or `projects/{id}/oauthIdpConfigs/oidc.acme`.
    public var name: String?
    public var enabled: Bool?
    public var displayName: String?
    public var clientId: String?
    public var clientSecret: String?
    /// OIDC providers only.
    public var issuer: String?
    public var responseType: ResponseType?
    /// apple.com only: the key Hearth signs Apple's client secrets with. The private key is written, never read back.
    public var appleSignInConfig: AppleSignInConfig?

    public struct AppleSignInConfig: Codable, Sendable, Equatable {
        public var bundleIds: [String]?
        public var codeFlowConfig: CodeFlowConfig?

        public struct CodeFlowConfig: Codable, Sendable, Equatable {
            public var teamId: String?
            public var keyId: String?
            public var privateKey: String?

            public init(teamId: String?, keyId: String?, privateKey: String? = nil) {
                self.teamId = teamId
                self.keyId = keyId
                self.privateKey = privateKey
            }

            /// Team and key ids only: a private key is never sent back.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(teamId, forKey: .teamId)
                try container.encodeIfPresent(keyId, forKey: .keyId)
            }
        }

        public init(bundleIds: [String]? = nil, codeFlowConfig: CodeFlowConfig?) {
            self.bundleIds = bundleIds
            self.codeFlowConfig = codeFlowConfig
        }
    }

    public struct ResponseType: Codable, Sendable, Equatable {
        public var code: Bool?
        public var idToken: Bool?
        public init(code: Bool?, idToken: Bool?) {
            self.code = code
            self.idToken = idToken
        }
    }

    public init(name: String? = nil, enabled: Bool? = nil, clientId: String? = nil) {
        self.name = name
        self.enabled = enabled
        self.clientId = clientId
    }
}


/// A list of provider configs, under the collection's own key.
public struct IdpConfigList<Config: Encodable & Sendable>: Encodable, Sendable {
    public var key: String
    public var configs: [Config]

    public init(key: String, configs: [Config]) {
        self.key = key
        self.configs = configs
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(configs, forKey: Key(stringValue: key))
    }
}
