import Foundation
import HearthCore
import HearthWire

extension IdpConfigResource {
    /// The resource as Identity Platform shows it: the client secret included, an Apple private key never.
    init(_ config: IdentityProviderConfig, id: String, name: String, oidc: Bool) {
        var resource = IdpConfigResource(name: name, enabled: config.enabled, clientId: config.clientId)
        resource.clientSecret = config.clientSecret
        if oidc {
            resource.displayName = config.displayName
            resource.issuer = config.issuer
            let code = config.codeFlow ?? false
            resource.responseType = .init(code: code, idToken: !code)
        }
        if id == "apple.com", config.teamId != nil || config.keyId != nil {
            resource.appleSignInConfig = .init(codeFlowConfig: .init(teamId: config.teamId, keyId: config.keyId))
        }
        self = resource
    }
}

extension SAMLConfigResource {
    init(_ config: IdentityProviderConfig, name: String) {
        let saml = config.saml
        self.init(name: name, displayName: config.displayName, enabled: config.enabled,
                  idpConfig: .init(idpEntityId: saml?.entityID, ssoUrl: saml?.ssoURL, signRequest: saml?.signRequest,
                                   idpCertificates: saml?.certificates.map { .init(x509Certificate: $0) }),
                  spConfig: .init(spEntityId: config.clientId, callbackUri: saml?.callbackURI))
    }
}

/// A provider config written through the admin API (create: `mask` and `current` `nil`; patch: the fields
/// `updateMask` names, or without one the fields present), checked as Identity Platform checks it.
enum ProviderConfigChange {
    static func oauth(_ body: IdpConfigResource, id: String, mask: Set<String>?,
                      to current: IdentityProviderConfig?) throws -> IdentityProviderConfig {
        func wanted(_ field: String, _ present: Bool) -> Bool { current == nil ? present : mask?.contains(field) ?? present }
        var config = current ?? IdentityProviderConfig(enabled: false, clientId: "")
        if wanted("enabled", body.enabled != nil) { config.enabled = body.enabled ?? false }
        if current == nil || wanted("clientId", body.clientId != nil) { config.clientId = try clientID(body.clientId) }
        if wanted("clientSecret", body.clientSecret != nil) { config.clientSecret = body.clientSecret }
        if id.hasPrefix("oidc.") {
            if wanted("displayName", body.displayName != nil) { config.displayName = body.displayName }
            if current == nil || wanted("issuer", body.issuer != nil) { config.issuer = try issuer(body.issuer) }
            let whole = mask?.contains("responseType") == true
            if whole || wanted("responseType.code", body.responseType?.code != nil)
                || wanted("responseType.idToken", body.responseType?.idToken != nil) {
                let code = body.responseType?.code ?? (body.responseType?.idToken.map { !$0 } ?? false)
                if code, body.responseType?.idToken == true {
                    throw APIError.business(.invalidArgument, "responseType: only one of code and idToken can be true")
                }
                config.codeFlow = code
            }
            if config.codeFlow == true, (config.clientSecret ?? "").isEmpty {
                throw APIError.business(.invalidArgument, "clientSecret is required for the code flow (responseType.code)")
            }
        }
        if id == "apple.com" {
            let flow = body.appleSignInConfig?.codeFlowConfig
            let whole = mask?.contains("appleSignInConfig") == true || mask?.contains("appleSignInConfig.codeFlowConfig") == true
            let path = "appleSignInConfig.codeFlowConfig."
            if whole || wanted(path + "teamId", flow?.teamId != nil) { config.teamId = flow?.teamId }
            if whole || wanted(path + "keyId", flow?.keyId != nil) { config.keyId = flow?.keyId }
            if whole || wanted(path + "privateKey", flow?.privateKey != nil) { config.privateKey = flow?.privateKey }
        }
        return config
    }

    static func saml(_ body: SAMLConfigResource, mask: Set<String>?,
                     to current: IdentityProviderConfig?) throws -> IdentityProviderConfig {
        func wanted(_ field: String, _ present: Bool) -> Bool { current == nil || (mask?.contains(field) ?? present) }
        var config = current ?? IdentityProviderConfig(enabled: false, clientId: "")
        var idp = current?.saml ?? SAMLIdentityProvider(entityID: "", ssoURL: "", certificates: [], callbackURI: "")
        let given = body.idpConfig
        if current == nil || wanted("enabled", body.enabled != nil) { config.enabled = body.enabled ?? false }
        if wanted("displayName", body.displayName != nil) { config.displayName = body.displayName }
        if wanted("idpConfig.idpEntityId", given?.idpEntityId != nil) {
            idp.entityID = try required(given?.idpEntityId, "idpConfig.idpEntityId")
        }
        if wanted("idpConfig.ssoUrl", given?.ssoUrl != nil) {
            idp.ssoURL = try url(given?.ssoUrl, "idpConfig.ssoUrl")
        }
        if wanted("idpConfig.idpCertificates", given?.idpCertificates != nil) {
            let certificates = (given?.idpCertificates ?? []).compactMap(\.x509Certificate).filter { !$0.isEmpty }
            guard !certificates.isEmpty, certificates.count == given?.idpCertificates?.count else {
                throw APIError.business(.invalidArgument, "idpConfig.idpCertificates must hold at least one x509Certificate")
            }
            idp.certificates = certificates
        }
        if wanted("idpConfig.signRequest", given?.signRequest != nil) { idp.signRequest = given?.signRequest ?? false }
        if wanted("spConfig.spEntityId", body.spConfig?.spEntityId != nil) {
            config.clientId = try required(body.spConfig?.spEntityId, "spConfig.spEntityId")
        }
        if wanted("spConfig.callbackUri", body.spConfig?.callbackUri != nil) {
            idp.callbackURI = try url(body.spConfig?.callbackUri, "spConfig.callbackUri")
        }
        config.saml = idp
        return config
    }

    /// A client id given on create or patch: present and not empty.
    static func clientID(_ value: String?) throws -> String {
        try required(value, "clientId")
    }

    /// An OIDC issuer given on create or patch: an http(s) URL.
    static func issuer(_ value: String?) throws -> String {
        try url(value, "issuer")
    }

    static func required(_ value: String?, _ field: String) throws -> String {
        guard let value, !value.isEmpty else { throw APIError.business(.invalidArgument, "\(field) is required") }
        return value
    }

    static func url(_ value: String?, _ field: String) throws -> String {
        let value = try required(value, field)
        guard BrowserURL(value) != nil else { throw APIError.business(.invalidArgument, "\(field) must be an http(s) URL") }
        return value
    }
}
