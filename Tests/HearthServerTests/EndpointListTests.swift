import Foundation
import HearthWire
@testable import HearthServer
import HTTPTypes
import Testing

/// The endpoint list in HearthWire (what the SDKs send to) and the route table (what the server serves) name the
/// same calls: every endpoint is registered under each of its paths, with its method, behind its access's guard.
@Suite struct EndpointListTests {
    /// The guard that comes first for each kind of access (see `HearthRoutes.table`).
    static func access(of guards: [String]) -> EndpointAccess? {
        if guards.first == "APIKeyGuard" { return .client }
        if guards.first == "AdminGuard" { return .admin }
        if guards.prefix(2) == ["BodyLimit", "APIKeyOrAdminGuard"] { return .clientOrAdmin }
        return nil
    }

    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func everyEndpointIsServedAsDeclared(_ mode: ServerConfiguration.Mode) {
        let entries = RouteRulesTests.table(mode).entries
        for endpoint in Endpoints.all {
            for path in endpoint.paths {
                let served = entries.filter { $0.path == path && $0.method.rawValue == endpoint.method.rawValue }
                #expect(served.count == 1, "\(endpoint.method) \(path) is registered \(served.count) times")
                if let entry = served.first {
                    #expect(Self.access(of: entry.guards) == endpoint.access, "\(path): \(entry.guards)")
                }
            }
        }
    }

    @Test func theWireAPIsRoutesAreAllInTheList() {
        // Every Google-named route the table serves under an API key is a declared endpoint: an SDK cannot call a
        // name the list does not have.
        let declared = Set(Endpoints.all.flatMap(\.paths))
        let clientRoutes = RouteRulesTests.table(.production).entries.filter { Self.access(of: $0.guards) == .client }
        for entry in clientRoutes where !entry.path.contains("recaptcha") && !entry.path.contains("Recaptcha") {
            #expect(declared.contains(entry.path), "\(entry.method) \(entry.path) is served but not in Endpoints")
        }
    }

    @Test func pathsFillTheirParameters() {
        #expect(Endpoints.adminLookup.path(["project": "p 1"]) == "/identitytoolkit.googleapis.com/v1/projects/p%201/accounts:lookup")
        #expect(Endpoints.adminLookup.path(["project": "p", "tenant": "t"])
            == "/identitytoolkit.googleapis.com/v1/projects/p/tenants/t/accounts:lookup")
        #expect(Endpoints.createSessionCookie.tenantPath == "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}:createSessionCookie")
        #expect(Endpoints.signInWithPassword.legacyPath == "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword")
    }
}
