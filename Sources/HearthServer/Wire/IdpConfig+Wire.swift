import Foundation
import HearthCore
import HearthWire

extension IdpConfigResource {
    /// The resource as Google shows it; the client secret is never read back.
    init(_ config: IdentityProviderConfig, id: String, name: String, oidc: Bool) {
        var resource = IdpConfigResource(name: name, enabled: config.enabled, clientId: config.clientId)
        if oidc {
            resource.issuer = config.issuer
            resource.responseType = .init(code: false, idToken: true)
        }
        if id == "apple.com", config.teamId != nil || config.keyId != nil {
            resource.appleSignInConfig = .init(codeFlowConfig: .init(teamId: config.teamId, keyId: config.keyId))
        }
        self = resource
    }
}
