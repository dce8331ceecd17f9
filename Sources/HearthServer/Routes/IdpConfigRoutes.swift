import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// Admin `v2/projects/{project}/defaultSupportedIdpConfigs` (built-in providers) and `…/oauthIdpConfigs`
/// (`oidc.*`): list, get, create, patch (`updateMask`), delete — the project's identity providers; the same under
/// `…/tenants/{tenantID}/` for a tenant's own.
enum IdpConfigRoutes {
    enum Collection: String {
        case builtIn = "defaultSupportedIdpConfigs", oidc = "oauthIdpConfigs"

        /// Whether `id` belongs in this collection.
        func accepts(_ id: String) -> Bool {
            switch self {
            case .builtIn: builtInProviders.contains(id)
            case .oidc: id.hasPrefix("oidc.") && id.count > 5 && id.count <= 64
                && id.dropFirst(5).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            }
        }

        /// The query parameter naming a new config's id.
        var idParameter: String { self == .builtIn ? "idpId" : "oauthIdpConfigId" }
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
        let configs = owner.providers.filter { collection.accepts($0.key) }
            .sorted { $0.key < $1.key }.map { IdpConfigResource($0.value, id: $0.key, name: "\(owner.name)/\(collection.rawValue)/\($0.key)", oidc: collection == .oidc) }
        return json(IdpConfigList(key: collection.rawValue, configs: configs))
    }

    static func get(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let owner = try await owner(call)
        let id = call.parameter("idp") ?? ""
        guard let config = owner.providers[id], collection.accepts(id) else {
            throw APIError.business(.configurationNotFound)
        }
        return json(IdpConfigResource(config, id: id, name: "\(owner.name)/\(collection.rawValue)/\(id)", oidc: collection == .oidc))
    }

    static func create(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let body = try call.decode(IdpConfigResource.self)
        guard let id = call.request.uri.queryParameters[Substring(collection.idParameter)].map(String.init), collection.accepts(id) else {
            throw APIError.business(.invalidProviderID, "\(collection.idParameter) must name a \(collection == .oidc ? "oidc.* provider" : "supported provider")")
        }
        var config = IdentityProviderConfig(enabled: body.enabled ?? false, clientId: try clientID(body.clientId),
                                            clientSecret: body.clientSecret, issuer: body.issuer)
        if collection == .oidc {
            config.issuer = try issuer(body.issuer)
        }
        if id == "apple.com", let flow = body.appleSignInConfig?.codeFlowConfig {
            (config.teamId, config.keyId, config.privateKey) = (flow.teamId, flow.keyId, flow.privateKey)
        }
        let owner = try await write(call) { providers in
            guard providers[id] == nil else { throw APIError.business(.duplicateIdpConfig) }
            providers[id] = config
        }
        return json(IdpConfigResource(config, id: id, name: "\(owner.name)/\(collection.rawValue)/\(id)", oidc: collection == .oidc))
    }

    static func patch(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let body = try call.decode(IdpConfigResource.self)
        let id = call.parameter("idp") ?? ""
        let mask = call.request.uri.queryParameters["updateMask"].map { Set($0.split(separator: ",").map(String.init)) }
        func wanted(_ field: String, _ present: Bool) -> Bool { mask?.contains(field) ?? present }
        let owner = try await write(call) { providers in
            guard var config = providers[id], collection.accepts(id) else { throw APIError.business(.configurationNotFound) }
            if wanted("enabled", body.enabled != nil) { config.enabled = body.enabled ?? false }
            if wanted("clientId", body.clientId != nil) { config.clientId = try clientID(body.clientId) }
            if wanted("clientSecret", body.clientSecret != nil) { config.clientSecret = body.clientSecret }
            if collection == .oidc, wanted("issuer", body.issuer != nil) { config.issuer = try issuer(body.issuer) }
            if id == "apple.com" {
                let flow = body.appleSignInConfig?.codeFlowConfig
                let whole = mask?.contains("appleSignInConfig") == true || mask?.contains("appleSignInConfig.codeFlowConfig") == true
                let path = "appleSignInConfig.codeFlowConfig."
                if whole || wanted(path + "teamId", flow?.teamId != nil) { config.teamId = flow?.teamId }
                if whole || wanted(path + "keyId", flow?.keyId != nil) { config.keyId = flow?.keyId }
                if whole || wanted(path + "privateKey", flow?.privateKey != nil) { config.privateKey = flow?.privateKey }
            }
            providers[id] = config
        }
        return json(IdpConfigResource(owner.providers[id]!, id: id, name: "\(owner.name)/\(collection.rawValue)/\(id)", oidc: collection == .oidc))
    }

    static func delete(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let id = call.parameter("idp") ?? ""
        _ = try await write(call) { providers in
            guard providers[id] != nil, collection.accepts(id) else { throw APIError.business(.configurationNotFound) }
            providers[id] = nil
        }
        return json([String: String]())
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

    /// A client id given on create or patch: present and not empty.
    static func clientID(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else { throw APIError.business(.invalidArgument, "clientId is required") }
        return value
    }

    /// An OIDC issuer given on create or patch: an http(s) URL.
    static func issuer(_ value: String?) throws -> String {
        guard let value, URL(string: value)?.scheme?.hasPrefix("http") == true else {
            throw APIError.business(.invalidArgument, "issuer must be an http(s) URL")
        }
        return value
    }
}
