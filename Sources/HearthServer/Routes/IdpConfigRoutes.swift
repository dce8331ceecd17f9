import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// Admin `v2/projects/{project}/defaultSupportedIdpConfigs` (built-in providers) and `…/oauthIdpConfigs`
/// (`oidc.*`): list, get, create, patch (`updateMask`), delete — the project's identity providers.
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
                                                "microsoft.com", "twitter.com", "yahoo.com", "playgames.google.com"]

    static func collection(_ call: Call) throws -> Collection {
        guard let name = call.parameter("collection"), let collection = Collection(rawValue: name) else {
            throw APIError.notFound
        }
        return collection
    }

    static func list(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let project = try await call.adminProject(nil)
        let configs = (project.settings.identityProviders ?? [:]).filter { collection.accepts($0.key) }
            .sorted { $0.key < $1.key }.map { resource($0.value, id: $0.key, collection: collection, project: project) }
        return json(IdpConfigList(key: collection.rawValue, configs: configs))
    }

    static func get(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let project = try await call.adminProject(nil)
        let id = call.parameter("idp") ?? ""
        guard let config = project.settings.identityProviders?[id], collection.accepts(id) else {
            throw APIError.business(.configurationNotFound)
        }
        return json(resource(config, id: id, collection: collection, project: project))
    }

    static func create(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let body = try call.decode(IdpConfigResource.self)
        let project = try await call.adminProject(nil)
        guard let id = call.request.uri.queryParameters[Substring(collection.idParameter)].map(String.init), collection.accepts(id) else {
            throw APIError.business(.invalidProviderID, "\(collection.idParameter) must name a \(collection == .oidc ? "oidc.* provider" : "supported provider")")
        }
        guard project.settings.identityProviders?[id] == nil else { throw APIError.business(.duplicateIdpConfig) }
        var config = IdentityProviderConfig(enabled: body.enabled ?? false, clientId: try clientID(body.clientId),
                                            clientSecret: body.clientSecret,
                                            issuer: body.issuer)
        if collection == .oidc {
            config.issuer = try issuer(body.issuer)
        }
        if id == "apple.com", let flow = body.appleSignInConfig?.codeFlowConfig {
            (config.teamId, config.keyId, config.privateKey) = (flow.teamId, flow.keyId, flow.privateKey)
        }
        return json(try await store(config, id: id, collection: collection, project: project, call: call))
    }

    static func patch(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let body = try call.decode(IdpConfigResource.self)
        let project = try await call.adminProject(nil)
        let id = call.parameter("idp") ?? ""
        guard var config = project.settings.identityProviders?[id], collection.accepts(id) else {
            throw APIError.business(.configurationNotFound)
        }
        let mask = call.request.uri.queryParameters["updateMask"].map { Set($0.split(separator: ",").map(String.init)) }
        func wanted(_ field: String, _ present: Bool) -> Bool { mask?.contains(field) ?? present }
        if wanted("enabled", body.enabled != nil) { config.enabled = body.enabled ?? false }
        if wanted("clientId", body.clientId != nil) {
            config.clientId = try clientID(body.clientId)
        }
        if wanted("clientSecret", body.clientSecret != nil) { config.clientSecret = body.clientSecret }
        if collection == .oidc, wanted("issuer", body.issuer != nil) {
            config.issuer = try issuer(body.issuer)
        }
        if id == "apple.com" {
            let flow = body.appleSignInConfig?.codeFlowConfig
            let whole = mask?.contains("appleSignInConfig") == true || mask?.contains("appleSignInConfig.codeFlowConfig") == true
            let path = "appleSignInConfig.codeFlowConfig."
            if whole || wanted(path + "teamId", flow?.teamId != nil) { config.teamId = flow?.teamId }
            if whole || wanted(path + "keyId", flow?.keyId != nil) { config.keyId = flow?.keyId }
            if whole || wanted(path + "privateKey", flow?.privateKey != nil) { config.privateKey = flow?.privateKey }
        }
        return json(try await store(config, id: id, collection: collection, project: project, call: call))
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

    static func delete(_ call: Call) async throws -> Response {
        let collection = try collection(call)
        let project = try await call.adminProject(nil)
        let id = call.parameter("idp") ?? ""
        guard project.settings.identityProviders?[id] != nil, collection.accepts(id) else {
            throw APIError.business(.configurationNotFound)
        }
        var record = project.record
        record.settings.identityProviders?[id] = nil
        _ = try await call.services.projects.update(record)
        return json([String: String]())
    }

    private static func store(_ config: IdentityProviderConfig, id: String, collection: Collection, project: ProjectContext,
                              call: Call) async throws -> IdpConfigResource {
        var record = project.record
        record.settings.identityProviders = record.settings.identityProviders ?? [:]
        record.settings.identityProviders?[id] = config
        let updated = try await call.services.projects.update(record)
        return resource(config, id: id, collection: collection, project: updated)
    }

    /// The resource as Google shows it; the client secret is never read back.
    static func resource(_ config: IdentityProviderConfig, id: String, collection: Collection, project: ProjectContext)
        -> IdpConfigResource
    {
        var resource = IdpConfigResource(name: "projects/\(project.id)/\(collection.rawValue)/\(id)", enabled: config.enabled,
                                         clientId: config.clientId)
        if collection == .oidc {
            resource.issuer = config.issuer
            resource.responseType = .init(code: false, idToken: true)
        }
        if id == "apple.com", config.teamId != nil || config.keyId != nil {
            resource.appleSignInConfig = .init(codeFlowConfig: .init(teamId: config.teamId, keyId: config.keyId))
        }
        return resource
    }
}
