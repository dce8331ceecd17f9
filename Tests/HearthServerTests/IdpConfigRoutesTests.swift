import Foundation
import HearthCore
import HTTPTypes
import Testing

/// The admin identity-provider resources: they are what `signInWithIdp` accepts.
@Suite struct IdpConfigRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let base = "/identitytoolkit.googleapis.com/v2/projects/demo-project"

    @Test func createReadPatchListAndDeleteProviders() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let created = try await client.post("\(Self.base)/oauthIdpConfigs?oauthIdpConfigId=oidc.acme", [
                "clientId": "hearth", "issuer": "https://login.acme.example", "enabled": true, "displayName": "Acme",
                "responseType": ["idToken": true]], key: nil, headers: Self.owner)
            #expect(created["name"] as? String == "projects/demo-project/oauthIdpConfigs/oidc.acme", "\(created.text)")
            let duplicate = try await client.post("\(Self.base)/oauthIdpConfigs?oauthIdpConfigId=oidc.acme",
                                                  ["clientId": "x", "issuer": "https://x.example"], key: nil, headers: Self.owner)
            #expect(duplicate.errorMessage == "DUPLICATE_IDP_CONFIG")
            let google = try await client.post("\(Self.base)/defaultSupportedIdpConfigs?idpId=google.com",
                                               ["clientId": "123.apps.googleusercontent.com", "clientSecret": "s", "enabled": true],
                                               key: nil, headers: Self.owner)
            #expect(google["clientSecret"] as? String == "s", "Identity Platform reads the secret back: \(google.text)")
            let badID = try await client.post("\(Self.base)/defaultSupportedIdpConfigs?idpId=oidc.nope", ["clientId": "x"],
                                              key: nil, headers: Self.owner)
            #expect(badID.errorMessage?.hasPrefix("INVALID_PROVIDER_ID") == true)

            let stored = try #require(try await app.store.project(id: "demo-project"))
            #expect(stored.settings.identityProviders?["oidc.acme"]?.issuer == "https://login.acme.example")
            #expect(stored.settings.identityProviders?["google.com"]?.clientSecret == "s")

            let patched = try await client.send(.patch, "\(Self.base)/defaultSupportedIdpConfigs/google.com?updateMask=enabled",
                                                ["enabled": false], key: nil, headers: Self.owner)
            #expect(patched["enabled"] as? Bool == false)
            let list = try await client.send(.get, "\(Self.base)/oauthIdpConfigs", key: nil, headers: Self.owner)
            #expect((list["oauthIdpConfigs"] as? [[String: Any]])?.count == 1)
            let fetched = try await client.send(.get, "\(Self.base)/defaultSupportedIdpConfigs/google.com", key: nil, headers: Self.owner)
            #expect(fetched["clientId"] as? String == "123.apps.googleusercontent.com")
            let deleted = try await client.send(.delete, "\(Self.base)/oauthIdpConfigs/oidc.acme", key: nil, headers: Self.owner)
            #expect(deleted.status == 200)
            let gone = try await client.send(.get, "\(Self.base)/oauthIdpConfigs/oidc.acme", key: nil, headers: Self.owner)
            #expect(gone.errorMessage == "CONFIGURATION_NOT_FOUND")
            let config = try await client.send(.get, "\(Self.base)/config", key: nil, headers: Self.owner)
            #expect(config["signIn"] != nil, "the config resource still answers beside the collections")
            let nonsense = try await client.send(.get, "\(Self.base)/somethingElse", key: nil, headers: Self.owner)
            #expect(nonsense.status == 404)
        }
    }

    /// OIDC configs keep what Identity Platform keeps: the display name, the response type, the client secret.
    @Test func oidcConfigsKeepDisplayNameResponseTypeAndSecret() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let created = try await client.post("\(Self.base)/oauthIdpConfigs?oauthIdpConfigId=oidc.acme", [
                "clientId": "hearth", "issuer": "https://login.acme.example", "enabled": true, "displayName": "Acme",
                "responseType": ["idToken": true, "code": false]], key: nil, headers: Self.owner)
            #expect(created["displayName"] as? String == "Acme", "\(created.text)")
            #expect(created["responseType"] as? [String: Bool] == ["code": false, "idToken": true])
            #expect(created["clientSecret"] == nil)
            // The code flow needs a secret; asking for both flows at once is refused; nothing is half-written.
            let noSecret = try await client.send(.patch, "\(Self.base)/oauthIdpConfigs/oidc.acme?updateMask=responseType.code,responseType.idToken",
                                                 ["responseType": ["code": true, "idToken": false]], key: nil, headers: Self.owner)
            #expect(noSecret.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(noSecret.text)")
            let both = try await client.send(.patch, "\(Self.base)/oauthIdpConfigs/oidc.acme?updateMask=responseType.code,responseType.idToken,clientSecret",
                                             ["responseType": ["code": true, "idToken": true], "clientSecret": "s"], key: nil, headers: Self.owner)
            #expect(both.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(both.text)")
            let unchanged = try #require(try await app.store.project(id: "demo-project")?.settings.identityProviders?["oidc.acme"])
            #expect(unchanged.codeFlow == false && unchanged.clientSecret == nil)

            let mask = "clientId,issuer,displayName,enabled,clientSecret,responseType.code,responseType.idToken"
            let patched = try await client.send(.patch, "\(Self.base)/oauthIdpConfigs/oidc.acme?updateMask=\(mask)", [
                "clientId": "hearth-2", "issuer": "https://login2.acme.example", "displayName": "Acme 2", "enabled": false,
                "clientSecret": "CLIENT_SECRET", "responseType": ["code": true, "idToken": false]], key: nil, headers: Self.owner)
            #expect(patched["displayName"] as? String == "Acme 2" && patched["enabled"] as? Bool == false, "\(patched.text)")
            #expect(patched["responseType"] as? [String: Bool] == ["code": true, "idToken": false])
            #expect(patched["clientSecret"] as? String == "CLIENT_SECRET" && patched["clientId"] as? String == "hearth-2")
            let fetched = try await client.send(.get, "\(Self.base)/oauthIdpConfigs/oidc.acme", key: nil, headers: Self.owner)
            #expect(fetched["issuer"] as? String == "https://login2.acme.example" && fetched["displayName"] as? String == "Acme 2")
        }
    }

    /// `inboundSamlConfigs`, per project and per tenant: stored and served in Identity Platform's shape, checked on
    /// the way in, patched by mask.
    @Test(arguments: ["", "/tenants/acme-a1b2c"])
    func samlConfigsAreStoredAndServed(_ under: String) async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            if !under.isEmpty {
                try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c"))
            }
            let base = Self.base + under
            let body: [String: Any] = [
                "displayName": "Acme SAML", "enabled": true,
                "idpConfig": ["idpEntityId": "IDP_ENTITY_ID", "ssoUrl": "https://idp.example/login",
                              "idpCertificates": [["x509Certificate": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"]]],
                "spConfig": ["spEntityId": "RP_ENTITY_ID", "callbackUri": "https://app.example/__/auth/handler"]]
            let created = try await client.post("\(base)/inboundSamlConfigs?inboundSamlConfigId=saml.acme", body, key: nil, headers: Self.owner)
            #expect(created["name"] as? String == "projects/demo-project\(under)/inboundSamlConfigs/saml.acme", "\(created.text)")
            let idp = created["idpConfig"] as? [String: Any]
            #expect(idp?["idpEntityId"] as? String == "IDP_ENTITY_ID" && idp?["ssoUrl"] as? String == "https://idp.example/login")
            #expect((idp?["idpCertificates"] as? [[String: String]])?.first?["x509Certificate"]?.hasPrefix("-----BEGIN") == true)
            #expect((created["spConfig"] as? [String: String]) == ["spEntityId": "RP_ENTITY_ID", "callbackUri": "https://app.example/__/auth/handler"])

            var broken = body
            broken["idpConfig"] = ["idpEntityId": "X", "ssoUrl": "javascript:alert(1)", "idpCertificates": [["x509Certificate": "c"]]]
            let badURL = try await client.post("\(base)/inboundSamlConfigs?inboundSamlConfigId=saml.bad", broken, key: nil, headers: Self.owner)
            #expect(badURL.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(badURL.text)")
            broken["idpConfig"] = ["idpEntityId": "X", "ssoUrl": "https://idp.example/", "idpCertificates": [[String: String]]()]
            let noCertificate = try await client.post("\(base)/inboundSamlConfigs?inboundSamlConfigId=saml.bad", broken, key: nil, headers: Self.owner)
            #expect(noCertificate.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(noCertificate.text)")
            let wrongPrefix = try await client.post("\(base)/inboundSamlConfigs?inboundSamlConfigId=oidc.acme", body, key: nil, headers: Self.owner)
            #expect(wrongPrefix.errorMessage?.hasPrefix("INVALID_PROVIDER_ID") == true)
            let duplicate = try await client.post("\(base)/inboundSamlConfigs?inboundSamlConfigId=saml.acme", body, key: nil, headers: Self.owner)
            #expect(duplicate.errorMessage == "DUPLICATE_IDP_CONFIG")

            let patched = try await client.send(.patch, "\(base)/inboundSamlConfigs/saml.acme?updateMask=idpConfig.ssoUrl,displayName,enabled", [
                "idpConfig": ["ssoUrl": "https://idp.example/v2"], "displayName": "Renamed", "enabled": false], key: nil, headers: Self.owner)
            #expect((patched["idpConfig"] as? [String: Any])?["ssoUrl"] as? String == "https://idp.example/v2", "\(patched.text)")
            #expect((patched["idpConfig"] as? [String: Any])?["idpEntityId"] as? String == "IDP_ENTITY_ID", "unmasked fields stay")
            #expect(patched["displayName"] as? String == "Renamed" && patched["enabled"] as? Bool == false)

            let list = try await client.send(.get, "\(base)/inboundSamlConfigs", key: nil, headers: Self.owner)
            #expect((list["inboundSamlConfigs"] as? [[String: Any]])?.map { $0["name"] as? String } == [created["name"] as? String])
            let oidcList = try await client.send(.get, "\(base)/oauthIdpConfigs", key: nil, headers: Self.owner)
            #expect((oidcList["oauthIdpConfigs"] as? [[String: Any]] ?? []).isEmpty, "a SAML config is not an OIDC one")
            let deleted = try await client.send(.delete, "\(base)/inboundSamlConfigs/saml.acme", key: nil, headers: Self.owner)
            #expect(deleted.status == 200)
            let gone = try await client.send(.get, "\(base)/inboundSamlConfigs/saml.acme", key: nil, headers: Self.owner)
            #expect(gone.errorMessage == "CONFIGURATION_NOT_FOUND")
        }
    }

    /// apple.com's key, in the console's shape: written through `appleSignInConfig.codeFlowConfig`, read back
    /// without the private key, patched field by field.
    @Test func applesCodeFlowKeyIsWrittenButItsPrivateKeyNeverReadBack() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let created = try await client.post("\(Self.base)/defaultSupportedIdpConfigs?idpId=apple.com", [
                "clientId": "com.example.web", "enabled": true,
                "appleSignInConfig": ["bundleIds": ["com.example.app"],
                                      "codeFlowConfig": ["teamId": "TEAM1", "keyId": "KEY1", "privateKey": "PEM-1"]]],
                key: nil, headers: Self.owner)
            let flow = (created["appleSignInConfig"] as? [String: Any])?["codeFlowConfig"] as? [String: Any]
            #expect(flow?["teamId"] as? String == "TEAM1" && flow?["keyId"] as? String == "KEY1", "\(created.text)")
            #expect(!created.text.contains("PEM-1"), "the private key is never read back")
            var stored = try #require(try await app.store.project(id: "demo-project")?.settings.identityProviders?["apple.com"])
            #expect(stored.teamId == "TEAM1" && stored.keyId == "KEY1" && stored.privateKey == "PEM-1")

            let patched = try await client.send(.patch,
                "\(Self.base)/defaultSupportedIdpConfigs/apple.com?updateMask=appleSignInConfig.codeFlowConfig.keyId",
                ["appleSignInConfig": ["codeFlowConfig": ["keyId": "KEY2", "teamId": "IGNORED"]]], key: nil, headers: Self.owner)
            #expect(!patched.text.contains("IGNORED"), "\(patched.text)")
            stored = try #require(try await app.store.project(id: "demo-project")?.settings.identityProviders?["apple.com"])
            #expect(stored.keyId == "KEY2" && stored.teamId == "TEAM1" && stored.privateKey == "PEM-1", "only the masked field")
        }
    }
}

extension IdpConfigRoutesTests {
    /// The config file and the admin API do not fight: the providers the file names are set at every start, and a
    /// provider added through the API (here, as the API stores it) survives the restart.
    @Test func configFileProvidersMergeWithTheStoredOnes() async throws {
        var app = TestApp()
        app.configuration.identityProviders = ["google.com": IdentityProviderConfig(clientId: "from-config")]
        let store = app.store
        try await TestAppOn(app: app, store: store).run { _ in }
        var record = try #require(try await store.project(id: "demo-project"))
        record.settings.identityProviders?["github.com"] = IdentityProviderConfig(clientId: "from-api")
        record.settings.identityProviders?["google.com"]?.clientId = "changed-by-api"
        try await store.updateProject(record)

        try await TestAppOn(app: app, store: store).run { _ in }
        let providers = try #require(try await store.project(id: "demo-project")?.settings.identityProviders)
        #expect(providers["github.com"]?.clientId == "from-api", "the API's provider is kept")
        #expect(providers["google.com"]?.clientId == "from-config", "the file's provider wins for the keys it names")
    }
}

extension IdpConfigRoutesTests {
    /// A tenant's providers are its own, under `…/tenants/{t}/`: apart from the project's and from other tenants',
    /// with the tenant in their names. Racing creations on one tenant all land (compare-and-set on the tenant).
    @Test func aTenantHasItsOwnProviders() async throws {
        let app = TestApp(mode: .emulator)
        for id in ["t-a", "t-b"] { try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: id)) }
        try await app.run { client in
            let tenantA = "\(Self.base)/tenants/t-a"
            let google = try await client.post("\(tenantA)/defaultSupportedIdpConfigs?idpId=google.com",
                                               ["clientId": "a.apps.googleusercontent.com", "clientSecret": "s", "enabled": true],
                                               key: nil, headers: Self.owner)
            #expect(google["name"] as? String == "projects/demo-project/tenants/t-a/defaultSupportedIdpConfigs/google.com",
                    "\(google.text)")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let reply = try await client.post("\(tenantA)/oauthIdpConfigs?oauthIdpConfigId=oidc.p\(index)", [
                            "clientId": "c\(index)", "issuer": "https://p\(index).example", "enabled": true,
                        ], key: nil, headers: Self.owner)
                        #expect(reply.status == 200, "\(reply.text)")
                    }
                }
                try await group.waitForAll()
            }
            let listed = try await client.send(.get, "\(tenantA)/oauthIdpConfigs", key: nil, headers: Self.owner)
            #expect((listed["oauthIdpConfigs"] as? [[String: Any]])?.count == 6, "no creation was lost: \(listed.text)")
            let patched = try await client.send(.patch, "\(tenantA)/oauthIdpConfigs/oidc.p0?updateMask=enabled",
                                                ["enabled": false], key: nil, headers: Self.owner)
            #expect(patched["enabled"] as? Bool == false && patched["name"] as? String == "projects/demo-project/tenants/t-a/oauthIdpConfigs/oidc.p0")
            #expect(try await client.send(.delete, "\(tenantA)/oauthIdpConfigs/oidc.p1", key: nil, headers: Self.owner).status == 200)

            let inProject = try await client.send(.get, "\(Self.base)/defaultSupportedIdpConfigs/google.com", key: nil, headers: Self.owner)
            #expect(inProject.errorMessage?.hasPrefix("CONFIGURATION_NOT_FOUND") == true, "\(inProject.text)")
            let inOther = try await client.send(.get, "\(Self.base)/tenants/t-b/oauthIdpConfigs/oidc.p2", key: nil, headers: Self.owner)
            #expect(inOther.errorMessage?.hasPrefix("CONFIGURATION_NOT_FOUND") == true, "\(inOther.text)")
            let unknown = try await client.send(.get, "\(Self.base)/tenants/t-zzz/oauthIdpConfigs", key: nil, headers: Self.owner)
            #expect(unknown.errorMessage?.hasPrefix("TENANT_NOT_FOUND") == true, "\(unknown.text)")
        }
        let tenant = try #require(try await app.store.tenant(projectID: "demo-project", id: "t-a"))
        #expect(Set(tenant.identityProviders.keys) == ["google.com", "oidc.p0", "oidc.p2", "oidc.p3", "oidc.p4", "oidc.p5"])
        #expect(tenant.identityProviders["google.com"]?.clientSecret == "s" && tenant.identityProviders["oidc.p0"]?.enabled == false)
        #expect(try await app.store.project(id: "demo-project")?.settings.identityProviders?.isEmpty ?? true)
    }
}
