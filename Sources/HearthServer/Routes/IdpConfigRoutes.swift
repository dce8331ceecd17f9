import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// Admin `v2/projects/{project}/defaultSupportedIdpConfigs` (built-in providers) and `…/oauthIdpConfigs`
/// (`oidc.*`): list, get, create, patch (`updateMask`), delete — the project's identity providers; the same under
/// `…/tenants/{tenantID}/` for a tenant's own.
enum IdpConfigRoutes {
    enum Collection: String {
        case builtIn = "defaultSupportedIdpConfigs", oidc = "oauthIdpConfigs", saml = "inboundSamlConfigs"

        /// Whether `id` belongs in this collection.
        func accepts(_ id: String) -> Bool {
            switch self {
            case .builtIn: builtInProviders.contains(id)
            case .oidc: Self.named(id, prefix: "oidc.")
            case .saml: Self.named(id, prefix: "saml.")
            }
        }

        /// `oidc.acme-1`: the prefix, then up to 59 letters, digits, `-` and `_`.
        static func named(_ id: String, prefix: String) -> Bool {
            id.hasPrefix(prefix) && id.count > prefix.count && id.count <= 64
                && id.dropFirst(prefix.count).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        }

        /// The query parameter naming a new config's id.
        var idParameter: String {
            switch self {
            case .builtIn: "idpId"
            case .oidc: "oauthIdpConfigId"
            case .saml: "inboundSamlConfigId"
            }
        }
    }

    static let builtInProviders: Set<String> = ["google.com", "apple.com", "facebook.com", "github.com",
                                                "microsoft.com", "twitter.com", "yahoo.com", "playgames.google.com", "gc.apple.com"]

    static func collection(_ call: Call) throws -> Collection {
        guard let name = call.parameter("collection"), let collection = Collection(rawValue: name) else {
            throw APIError.notFound
        }
        return collection
    }

    /// Whose providers a call manages: the project's, or one tenant's (`…/tenants/{tenantID}/…`), which does not
    /// inherit the project's.
    struct Owner {
        var project: ProjectContext
        var tenant: TenantRecord?
        var providers: [String: IdentityProviderConfig] {
            tenant.map(\.identityProviders) ?? project.record.settings.identityProviders ?? [:]
        }
        var name: String { "projects/\(project.id)" + (tenant.map { "/tenants/\($0.id)" } ?? "") }

        /// One provider as its collection shows it.
        func resource(_ id: String, in collection: Collection) -> Response {
            let name = "\(self.name)/\(collection.rawValue)/\(id)"
            let config = providers[id]!
            return collection == .saml ? json(SAMLConfigResource(config, name: name))
                : json(IdpConfigResource(config, id: id, name: name, oidc: collection == .oidc))
        }
    }

    static func owner(_ call: Call) async throws -> Owner {
        let project = try await call.adminProject(nil)
        guard let id = call.parameter("tenantID") else { return Owner(project: project) }
        guard let tenant = try await call.services.accounts.tenants.tenant(id, in: project) else {
            throw APIError.business(.tenantNotFound)
        }
        return Owner(project: project, tenant: tenant)
    }

    static func list(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let owner = try await owner(call)
        let ids = owner.providers.keys.filter(collection.accepts).sorted()
        func name(_ id: String) -> String { "\(owner.name)/\(collection.rawValue)/\(id)" }
        if collection == .saml {
            return json(IdpConfigList(key: collection.rawValue,
                                      configs: ids.map { SAMLConfigResource(owner.providers[$0]!, name: name($0)) }))
        }
        return json(IdpConfigList(key: collection.rawValue, configs: ids.map {
            IdpConfigResource(owner.providers[$0]!, id: $0, name: name($0), oidc: collection == .oidc)
        }))
    }

    static func get(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let owner = try await owner(call)
        let id = call.parameter("idp") ?? ""
        guard owner.providers[id] != nil, collection.accepts(id) else {
            throw APIError.business(.configurationNotFound)
        }
        return owner.resource(id, in: collection)
    }

    static func create(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        guard let id = call.request.uri.queryParameters[Substring(collection.idParameter)].map(String.init), collection.accepts(id) else {
            let kind = switch collection {
            case .builtIn: "supported provider"
            case .oidc: "oidc.* provider"
            case .saml: "saml.* provider"
            }
            throw APIError.business(.invalidProviderID, "\(collection.idParameter) must name a \(kind)")
        }
        let config = switch collection {
        case .saml: try ProviderConfigChange.saml(call.decode(SAMLConfigResource.self), mask: nil, to: nil)
        case .oidc, .builtIn: try ProviderConfigChange.oauth(call.decode(IdpConfigResource.self), id: id, mask: nil, to: nil)
        }
        let owner = try await write(call) { providers in
            guard providers[id] == nil else { throw APIError.business(.duplicateIdpConfig) }
            providers[id] = config
        }
        return owner.resource(id, in: collection)
    }

    static func patch(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let id = call.parameter("idp") ?? ""
        let mask = UpdateMask(call).paths.map(Set.init)  // each provider change checks its own paths
        let saml = collection == .saml ? try call.decode(SAMLConfigResource.self) : nil
        let oauth = collection == .saml ? nil : try call.decode(IdpConfigResource.self)
        try refusePinned(call, id)
        let owner = try await write(call) { providers in
            guard let config = providers[id], collection.accepts(id) else { throw APIError.business(.configurationNotFound) }
            providers[id] = if let saml {
                try ProviderConfigChange.saml(saml, mask: mask, to: config)
            } else {
                try ProviderConfigChange.oauth(oauth!, id: id, mask: mask, to: config)
            }
        }
        return owner.resource(id, in: collection)
    }

    static func delete(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let id = call.parameter("idp") ?? ""
        try refusePinned(call, id)
        _ = try await write(call) { providers in
            guard providers[id] != nil, collection.accepts(id) else { throw APIError.business(.configurationNotFound) }
            providers[id] = nil
        }
        return json([String: String]())
    }

    /// A project's provider that the server's configuration sets (`identityProviders` in the config file) is applied
    /// again at every start: production refuses to change or delete it here, saying where it is set.
    static func refusePinned(_ call: Call, _ id: String) throws {
        guard !call.configuration.isEmulator, call.parameter("tenantID") == nil,
              let (_, source) = call.configuration.pinning("identityProviders." + id) else { return }
        throw APIError.business(.invalidArgument, "\(id) is set by \(source) and applied at every start: change it there, "
            + "or remove it there to manage it here")
    }

    /// Applies `change` to the owner's providers and stores them. A tenant's write is compare-and-set: one that lost
    /// a race re-reads the tenant and applies `change` again, so two racing changes both land.
    static func write(_ call: Call, _ change: (inout [String: IdentityProviderConfig]) throws -> Void) async throws -> Owner {
        var owner = try await owner(call)
        guard let tenant = owner.tenant else {
            owner.project = try await call.services.projects.modify(owner.project.id) { record in
                var providers = record.settings.identityProviders ?? [:]
                try change(&providers)
                record.settings.identityProviders = providers
            }
            return owner
        }
        guard let changed = try await call.services.accounts.tenants.modify(tenant.id, in: owner.project, {
            try change(&$0.identityProviders)
        }) else { throw APIError.business(.tenantNotFound) }
        owner.tenant = changed
        return owner
    }
}
