import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthTestSupport
import Testing

/// OIDC discovery for Hearth's ID tokens: with `issuerPrefix` set to the server's own URL, a standard OIDC client
/// from PyPI (pyoidc) verifies a token knowing only its issuer, and refuses one whose payload was changed.
@Suite(.enabled(if: PyOIDC.unavailableReason() == nil, "\(PyOIDC.unavailableReason() ?? "")"))
struct OIDCDiscoveryTests {
    /// What OIDC middleware does: discovery from `iss`, keys from `jwks_uri`, the token checked with them; then the
    /// same token with another subject and the original signature.
    static let client = #"""
        import base64, json, sys
        from oic.oic import Client
        from oic.oic.message import IdToken
        from oic.utils.authn.client import CLIENT_AUTHN_METHOD
        from oic.utils.settings import OicClientSettings

        issuer, token, project = sys.argv[1:4]
        # pyoidc waits 5 s for an answer by default: a loaded test machine can take longer.
        client = Client(client_authn_method=CLIENT_AUTHN_METHOD, settings=OicClientSettings(timeout=120))
        client.provider_config(issuer)
        for bundles in client.keyjar.issuer_keys.values():  # the JWKS is fetched later, with its own 5 s wait
            for bundle in bundles:
                bundle.timeout = 120
        claims = IdToken().from_jwt(token, keyjar=client.keyjar, verify=True)
        assert claims["iss"] == issuer, claims["iss"]
        assert project in claims["aud"], claims["aud"]
        header, payload, signature = token.split(".")
        body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        body["sub"] = body["user_id"] = "someone-else"
        forged = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
        try:
            IdToken().from_jwt(".".join([header, forged, signature]), keyjar=client.keyjar, verify=True)
        except Exception as error:
            print("forged refused:", type(error).__name__)
        else:
            print("forged accepted")
            sys.exit(1)
        print("verified", claims["sub"])
        """#

    @Test func oidcMiddlewareVerifiesHearthsTokensByDiscovery() async throws {
        let port = try freePort()
        var configuration = ServerConfiguration(port: port, projectID: "oidc-project", initialAPIKey: ActionPageBrowserTests.apiKey)
        configuration.issuerPrefix = "http://127.0.0.1:\(port)/"
        configuration.anonymousSignIn = true
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-\(UUID().uuidString).py")
        try Self.client.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        try await serving(configuration, store: InMemoryStore()) { base in
            let signedUp = try await ActionPageBrowserTests.call(base, "accounts:signUp", ["returnSecureToken": true])
            let token = try #require(signedUp.json["idToken"] as? String, "\(signedUp.json)")
            let uid = try #require(signedUp.json["localId"] as? String)
            // Hearth itself takes the token with its new issuer.
            let lookup = try await ActionPageBrowserTests.call(base, "accounts:lookup", ["idToken": token])
            #expect(lookup.status == 200, "\(lookup.json)")
            let run = Process()
            run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            run.arguments = ["python3", script.path, "\(base)/oidc-project", token, "oidc-project"]
            let output = Pipe()
            run.standardOutput = output
            run.standardError = output
            try run.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            #expect(run.terminationStatus == 0 && printed.contains("verified \(uid)") && printed.contains("forged refused"), "\(printed)")
        }
    }
}

/// Whether pyoidc can be imported.
enum PyOIDC {
    static func unavailableReason() -> String? {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import oic"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "needs python3" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "needs pyoidc: pip install oic (scripts/test installs it)"
    }
}
