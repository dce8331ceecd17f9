/// `v2/projects/{id}/inboundSamlConfigs/{saml.*}` (and under `tenants/{t}/`): one SAML identity provider, as
/// Identity Platform declares it.
///
/// ```json
/// { "name": "projects/my-app/inboundSamlConfigs/saml.acme", "displayName": "Acme", "enabled": true,
///   "idpConfig": { "idpEntityId": "https://idp.acme.example", "ssoUrl": "https://idp.acme.example/sso",
///                  "idpCertificates": [{ "x509Certificate": "-----BEGIN CERTIFICATE-----…" }] },
///   "spConfig": { "spEntityId": "my-app", "callbackUri": "https://my-app.example/__/auth/handler" } }
/// ```
public struct SAMLConfigResource: Codable, Sendable, Equatable {
    public var name: String?
    public var displayName: String?
    public var enabled: Bool?
    public var idpConfig: IdpConfig?
    public var spConfig: SpConfig?

    public struct IdpConfig: Codable, Sendable, Equatable {
        public var idpEntityId: String?
        public var ssoUrl: String?
        public var signRequest: Bool?
        public var idpCertificates: [Certificate]?

        public init(idpEntityId: String?, ssoUrl: String?, signRequest: Bool?, idpCertificates: [Certificate]?) {
            self.idpEntityId = idpEntityId
            self.ssoUrl = ssoUrl
            self.signRequest = signRequest
            self.idpCertificates = idpCertificates
        }
    }

    public struct SpConfig: Codable, Sendable, Equatable {
        public var spEntityId: String?
        public var callbackUri: String?

        public init(spEntityId: String?, callbackUri: String?) {
            self.spEntityId = spEntityId
            self.callbackUri = callbackUri
        }
    }

    public struct Certificate: Codable, Sendable, Equatable {
        public var x509Certificate: String?
        public init(x509Certificate: String?) { self.x509Certificate = x509Certificate }
    }

    public init(name: String? = nil, displayName: String? = nil, enabled: Bool? = nil, idpConfig: IdpConfig? = nil,
                spConfig: SpConfig? = nil) {
        self.name = name
        self.displayName = displayName
        self.enabled = enabled
        self.idpConfig = idpConfig
        self.spConfig = spConfig
    }
}
