import Foundation

/// Where a move reads a project from: a live Admin REST API (``AdminREST``: Google's, Firebase's emulator, a Hearth
/// server) or a folder in the layout Firebase's emulator exports (``EmulatorExportFolder``). Every object is in the
/// shape Google's Admin REST API gives it (`Config`, `Tenant`, the identity-provider configs, `batchGet`'s users).
protocol ProjectSource {
    /// What the move log names: the project and where it is.
    var summary: String { get }
    /// The project's `Config`.
    func config() async throws -> [String: Any]
    /// Every tenant (none where the source has no multi-tenancy).
    func tenants() async throws -> [[String: Any]]
    /// Every provider config of a collection (``ProjectMove/idpCollections``) in the project or a tenant.
    func providers(_ collection: String, tenant: String?) async throws -> ProviderList
    /// One page of users, and the token of the next (nil: the last page).
    func users(tenant: String?, after token: String?) async throws -> (users: [[String: Any]], next: String?)
}

enum ProviderList {
    case listed([[String: Any]])
    /// The source cannot list this collection (Firebase's emulator answers 501 for every one), with its words.
    case unavailable(String)
}

extension AdminREST: ProjectSource {
    var summary: String { "\(project) at \(root)" }

    func config() async throws -> [String: Any] { try await call(.GET, owner("v2") + "/config") }

    func tenants() async throws -> [[String: Any]] {
        do {
            return try await list(owner("v2") + "/tenants", key: "tenants")
        } catch let failure as Failure where failure.isNotFound {
            return []
        }
    }

    func providers(_ collection: String, tenant: String?) async throws -> ProviderList {
        do {
            return .listed(try await list(owner("v2", tenant: tenant) + "/\(collection)", key: collection))
        } catch let failure as Failure where failure.isNotFound {
            return .listed([])
        } catch let failure as Failure where failure.isNotImplemented {
            return .unavailable(failure.message)
        }
    }

    func users(tenant: String?, after token: String?) async throws -> (users: [[String: Any]], next: String?) {
        let page = try await call(.GET, owner("v1", tenant: tenant) + "/accounts:batchGet?maxResults=500"
                                  + (token.map { "&nextPageToken=\($0)" } ?? ""))
        return (page["users"] as? [[String: Any]] ?? [], (page["nextPageToken"] as? String).flatMap { $0.isEmpty ? nil : $0 })
    }
}
