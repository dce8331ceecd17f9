import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// `hearth auth:migrate`: a project moved from one Admin REST API into a Hearth server in one command (settings,
/// identity providers, tenants, users with their password hashes), run again without duplicating anything, a dry run
/// that writes nothing, and the service-account token exchange against a loopback stand-in for Google's token URI.
@Suite struct AuthMigrateTests {
    static let sourceProject = "source-project"
    static let targetProject = "target-project"

    /// One Admin REST call with the emulator's owner credential (or none, with the API key).
    @discardableResult
    static func rest(_ method: String, _ url: String, _ body: [String: Any]? = nil, owner: Bool = true) async throws
        -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if owner { request.setValue("Bearer owner", forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    /// The source: settings, three identity providers (Google, OIDC, SAML), two tenants (one with its own provider), and 48 users, among
    /// them one with claims, one disabled, one with an SMS second factor and a Google identity.
    static func populate(_ base: String) async throws {
        let v1 = "\(base)/identitytoolkit.googleapis.com/v1/projects/\(sourceProject)"
        let v2 = "\(base)/identitytoolkit.googleapis.com/v2/projects/\(sourceProject)"
        func expectOK(_ reply: (status: Int, json: [String: Any]), _ what: String) throws {
            try #require(reply.status == 200, "\(what): \(reply.json)")
        }
        try expectOK(try await rest("PATCH", "\(v2)/config?updateMask=mfa.state,mfa.enabledProviders,authorizedDomains,"
                                    + "notification.sendEmail.resetPasswordTemplate", [
            "mfa": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]], "authorizedDomains": ["localhost", "app.example.com"],
            "notification": ["sendEmail": ["resetPasswordTemplate": [
                "senderDisplayName": "Source Support", "subject": "Reset your %APP_NAME% password", "body": "<p><a href=\"%LINK%\">Reset</a></p>",
                "bodyFormat": "HTML"]]]]), "config")
        try expectOK(try await rest("POST", "\(v2)/defaultSupportedIdpConfigs?idpId=google.com",
                                    ["enabled": true, "clientId": "google-client", "clientSecret": "google-secret"]), "google.com")
        try expectOK(try await rest("POST", "\(v2)/oauthIdpConfigs?oauthIdpConfigId=oidc.acme", [
            "enabled": true, "displayName": "Acme SSO", "clientId": "acme-client", "clientSecret": "acme-secret",
            "issuer": "https://login.acme.example"]), "oidc.acme")
        try expectOK(try await rest("POST", "\(v2)/inboundSamlConfigs?inboundSamlConfigId=saml.acme", [
            "displayName": "Acme SAML", "enabled": true,
            "idpConfig": ["idpEntityId": "https://idp.acme.example", "ssoUrl": "https://idp.acme.example/login",
                          "idpCertificates": [["x509Certificate": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"]]],
            "spConfig": ["spEntityId": "hearth-sp", "callbackUri": "https://app.example.com/__/auth/handler"]]), "saml.acme")
        var users: [[String: Any]] = (0..<40).map { ["localId": "user-\($0)", "email": "user\($0)@example.com", "rawPassword": "password-\($0)"] }
        users.append(["localId": "claims-user", "email": "boss@example.com", "rawPassword": "password-boss",
                      "customAttributes": #"{"role":"admin"}"#])
        users.append(["localId": "disabled-user", "email": "gone@example.com", "rawPassword": "password-gone", "disabled": true])
        users.append(["localId": "mfa-user", "email": "careful@example.com", "emailVerified": true, "rawPassword": "password-mfa",
                      "mfaInfo": [["phoneInfo": "+15555550123", "displayName": "work phone"]],
                      "providerUserInfo": [["providerId": "google.com", "rawId": "google-123", "email": "careful@example.com"]]])
        try expectOK(try await rest("POST", "\(v1)/accounts:batchCreate", ["users": users]), "users")
        for (name, count) in [("Acme", 3), ("Globex", 2)] {
            let tenant = try await rest("POST", "\(v2)/tenants", ["displayName": name, "allowPasswordSignup": true])
            let id = try #require(tenant.json["tenantId"] as? String, "\(tenant.json)")
            if name == "Acme" {
                try expectOK(try await rest("POST", "\(v2)/tenants/\(id)/defaultSupportedIdpConfigs?idpId=google.com",
                                            ["enabled": true, "clientId": "acme-google", "clientSecret": "acme-google-secret"]), "tenant idp")
            }
            let tenantUsers: [[String: Any]] = (0..<count).map {
                ["localId": "\(name.lowercased())-\($0)", "email": "\(name.lowercased())\($0)@example.com", "rawPassword": "password-\(name)-\($0)"]
            }
            try expectOK(try await rest("POST", "\(v1)/tenants/\(id)/accounts:batchCreate", ["users": tenantUsers]), "tenant users")
        }
    }

    /// A production Hearth on SQLite with a service account for the move; returns its key file.
    static func target(_ store: SQLiteStore, folder: URL) async throws -> URL {
        let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                         hashParameters: { .generate(memoryCost: 10) })
        var record = try await directory.contextCreatingIfNeeded(for: targetProject, apiKey: "target-key").record
        let key = try ServiceAccountKey.generate(name: "mover-account", projectID: targetProject, now: Date())
        record.serviceAccounts.append(key.record)
        try await store.updateProject(record)
        let file = folder.appendingPathComponent("mover.json")
        try key.keyFileJSON.write(to: file)
        return file
    }

    /// The two servers of a move: an emulator-mode source in memory, and a production target on SQLite with a
    /// service account for the mover (its key file in `folder`).
    struct Sides {
        let folder: URL
        let sourceStore = InMemoryStore()
        let source: ServerConfiguration
        let targetStore: SQLiteStore
        let keyFile: URL
        let target: ServerConfiguration

        static func make() async throws -> Sides {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-move-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var source = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: sourceProject)
            source.rateLimits.enabled = false
            let targetStore = try await SQLiteStore.temporary()
            try await targetStore.migrate()
            var target = ServerConfiguration(port: try freePort(), projectID: targetProject, initialAPIKey: "target-key")
            target.rateLimits.enabled = false
            return Sides(folder: folder, source: source, targetStore: targetStore,
                         keyFile: try await AuthMigrateTests.target(targetStore, folder: folder), target: target)
        }

        /// The source's scrypt parameters as `auth:migrate` flags: an emulator's config does not show them, so they
        /// are given, as from Firebase's console.
        func hashArguments() async throws -> [String] {
            let hash = try #require(try await sourceStore.project(id: sourceProject)?.hashConfig)
            return ["--hash-key", hash.signerKey.base64EncodedString(), "--salt-separator", hash.saltSeparator.base64EncodedString(),
                    "--rounds", "\(hash.rounds)", "--mem-cost", "\(hash.memoryCost)"]
        }

        /// A password sign-in at the target's base URL, as an app does.
        static func signIn(at target: String, _ email: String, _ password: String, tenant: String? = nil) async throws -> [String: Any] {
            var body: [String: Any] = ["email": email, "password": password, "returnSecureToken": true]
            if let tenant { body["tenantId"] = tenant }
            return try await rest("POST", "\(target)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=target-key",
                                  body, owner: false).json
        }
    }

    @Test func aProjectMovesInOneCommandAndAgainWithoutDuplicates() async throws {
        let sides = try await Sides.make()
        defer { try? FileManager.default.removeItem(at: sides.folder) }
        let (folder, sourceStore, targetStore, keyFile) = (sides.folder, sides.sourceStore, sides.targetStore, sides.keyFile)
        let (sourceConfig, targetConfig) = (sides.source, sides.target)
        try await serving(sourceConfig, store: sourceStore) { source in
            try await Self.populate(source)
            let hashArguments = try await sides.hashArguments()
            try await serving(targetConfig, store: targetStore) { target in
                let arguments = ["auth:migrate", "--from", source, "--from-project", Self.sourceProject, "--to", target,
                                 "--to-key-file", keyFile.path, "--project-id", Self.targetProject] + hashArguments
                let dry = try await CLIStoreTests.hearth(arguments + ["--dry-run"], in: folder)
                #expect(dry.status == 0 && dry.output.contains("users: 48 would be created") && dry.output.contains("identity providers: 4 would be"), "\(dry.output)")
                #expect(try await targetStore.users(projectID: Self.targetProject, tenantID: nil, after: nil, limit: 10).isEmpty, "a dry run writes nothing")
                #expect(try await targetStore.tenants(projectID: Self.targetProject, after: nil, limit: 100).isEmpty)

                let moved = try await CLIStoreTests.hearth(arguments, in: folder)
                #expect(moved.status == 0 && moved.output.contains("users: 48 created, 0 already there"), "\(moved.output)")
                #expect(moved.output.contains("tenants: 2 created or updated") && moved.output.contains("identity providers: 4"),
                        "\(moved.output)")
                #expect(moved.output.contains("TOTP") == false && moved.output.contains("users without") == false)

                // What moved works on the target: passwords (hashed with the source's parameters), tenants' users,
                // claims, the disabled state, the second factor, settings and providers with their secrets.
                func signIn(_ email: String, _ password: String, tenant: String? = nil) async throws -> [String: Any] {
                    try await Sides.signIn(at: target, email, password, tenant: tenant)
                }
                #expect(try await signIn("user7@example.com", "password-7")["localId"] as? String == "user-7")
                #expect(((try await signIn("user7@example.com", "password-8"))["error"] as? [String: Any])?["message"] as? String == "INVALID_PASSWORD")
                #expect(((try await signIn("gone@example.com", "password-gone"))["error"] as? [String: Any])?["message"] as? String == "USER_DISABLED")
                #expect(try await signIn("careful@example.com", "password-mfa")["mfaPendingCredential"] != nil, "the SMS second factor moved")
                let boss = try #require(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "claims-user"))
                #expect(boss.customAttributes == #"{"role":"admin"}"#)
                let careful = try #require(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "mfa-user"))
                #expect(careful.providers.contains { $0.providerID == "google.com" && $0.rawID == "google-123" })
                let tenants = try await targetStore.tenants(projectID: Self.targetProject, after: nil, limit: 100)
                #expect(Set(tenants.compactMap(\.displayName)) == ["Acme", "Globex"])
                let acme = try #require(tenants.first { $0.displayName == "Acme" })
                #expect(acme.identityProviders["google.com"]?.clientSecret == "acme-google-secret")
                #expect(try await signIn("acme1@example.com", "password-Acme-1", tenant: acme.id)["localId"] as? String == "acme-1")
                let settings = try #require(try await targetStore.project(id: Self.targetProject)?.settings)
                #expect(settings.mfa?.state == .enabled && settings.authorizedDomains == ["localhost", "app.example.com"])
                let template = settings.emailTemplates?["en"]?["PASSWORD_RESET"]
                #expect(template?.subject == "Reset your %APP_NAME% password" && template?.fromName == "Source Support"
                        && template?.html == "<p><a href=\"%LINK%\">Reset</a></p>", "the customized template moved: \(String(describing: template))")
                #expect(settings.emailTemplates?["en"]?["VERIFY_EMAIL"] == nil, "a template never changed stays the target's own")
                #expect(settings.identityProviders?["google.com"]?.clientSecret == "google-secret")
                #expect(settings.identityProviders?["oidc.acme"]?.issuer == "https://login.acme.example")
                #expect(settings.identityProviders?["saml.acme"]?.enabled == true, "the SAML provider moved")

                // Again: nothing duplicated, nothing refused.
                let again = try await CLIStoreTests.hearth(arguments, in: folder)
                #expect(again.status == 0 && again.output.contains("users: 0 created, 48 already there"), "\(again.output)")
                #expect(try await targetStore.tenants(projectID: Self.targetProject, after: nil, limit: 100).count == 2)
                #expect(try await targetStore.users(projectID: Self.targetProject, tenantID: nil, after: nil, limit: 100).count == 43)
            }
        }
        try await targetStore.close()
    }

    /// Without the source's hash parameters, users move without their hashes; with `--lazy-until`, each one's first
    /// sign-in is checked once at the source, the password then kept here (the source's later changes no longer
    /// matter), audited; a tenant's users too. Past the date, or with the source down, nothing is taken from it.
    @Test func usersWithoutAHashMoveLazily() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var sourceConfiguration = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: Self.sourceProject)
        sourceConfiguration.rateLimits.enabled = false
        let targetStore = try await SQLiteStore.temporary()
        try await targetStore.migrate()
        let keyFile = try await Self.target(targetStore, folder: folder)
        var targetConfiguration = ServerConfiguration(port: try freePort(), projectID: Self.targetProject, initialAPIKey: "target-key")
        targetConfiguration.rateLimits.enabled = false
        targetConfiguration.passwordSourceTimeout = .seconds(120)  // the source answers at once, unless the machine is loaded
        let target = targetConfiguration
        try await serving(sourceConfiguration, store: InMemoryStore()) { source in
            let v1 = "\(source)/identitytoolkit.googleapis.com/v1/projects/\(Self.sourceProject)"
            let users: [[String: Any]] = [["localId": "ana", "email": "ana@example.com", "rawPassword": "ana-password"],
                                          ["localId": "bo", "email": "bo@example.com", "rawPassword": "bo-password"]]
            try #require(try await Self.rest("POST", "\(v1)/accounts:batchCreate", ["users": users]).status == 200)
            let tenant = try await Self.rest("POST", "\(source)/identitytoolkit.googleapis.com/v2/projects/\(Self.sourceProject)/tenants",
                                             ["displayName": "Acme", "allowPasswordSignup": true])
            let sourceTenant = try #require(tenant.json["tenantId"] as? String)
            try #require(try await Self.rest("POST", "\(v1)/tenants/\(sourceTenant)/accounts:batchCreate",
                                             ["users": [["localId": "cy", "email": "cy@acme.example", "rawPassword": "cy-password"]]]).status == 200)
            try await serving(target, store: targetStore) { base in
                let until = Date(timeIntervalSinceNow: 30 * 86_400).ISO8601Format()
                let moved = try await CLIStoreTests.hearth(["auth:migrate", "--from", source, "--from-project", Self.sourceProject,
                                                            "--to", base, "--to-key-file", keyFile.path,
                                                            "--project-id", Self.targetProject,
                                                            "--lazy-until", until, "--source-api-key", "source-web-key"], in: folder)
                #expect(moved.status == 0 && moved.output.contains("users without an exportable password hash: 3")
                        && moved.output.contains("lazy migration: on until"), "\(moved.output)")
                let ana = try #require(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "ana"))
                #expect(ana.passwordHash == nil && ana.passwordAtSource == true)

                func signIn(_ email: String, _ password: String, tenant: String? = nil) async throws -> (status: Int, json: [String: Any]) {
                    var body: [String: Any] = ["email": email, "password": password, "returnSecureToken": true]
                    if let tenant { body["tenantId"] = tenant }
                    return try await Self.rest("POST", "\(base)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=target-key",
                                               body, owner: false)
                }
                #expect(try await signIn("ana@example.com", "not-her-password").json["idToken"] == nil, "the source says no")
                #expect(try await signIn("ana@example.com", "ana-password").json["localId"] as? String == "ana")
                let kept = try #require(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "ana"))
                #expect(kept.passwordHash != nil && kept.passwordAtSource == nil)
                let events = try await targetStore.auditEvents(projectID: Self.targetProject, .init(localID: "ana", kinds: ["password-migrated"], limit: 10))
                #expect(events.count == 1, "audited once")
                // The source is not asked again: a new password there changes nothing here.
                let changed = try await Self.rest("POST", "\(v1)/accounts:update", ["localId": "ana", "password": "changed-at-source"])
                try #require(changed.status == 200, "\(changed.json)")
                #expect(try await signIn("ana@example.com", "ana-password").json["localId"] as? String == "ana")
                #expect(try await signIn("ana@example.com", "changed-at-source").json["idToken"] == nil)
                // A tenant's user, checked in the source's tenant.
                let acme = try #require(try await targetStore.tenants(projectID: Self.targetProject, after: nil, limit: 10).first)
                #expect(try await signIn("cy@acme.example", "cy-password", tenant: acme.id).json["localId"] as? String == "cy")

                // The source down: 503, and nothing changes. Turned off: the source is not asked. (Through the admin
                // API: the server keeps the project's settings in memory between changes it makes.)
                func admin(_ method: String, _ body: [String: Any]? = nil) async throws -> (status: Int, json: [String: Any]) {
                    var request = URLRequest(url: URL(string: "\(base)/identitytoolkit.googleapis.com/v1/projects/\(Self.targetProject)/lazyPasswordMigration")!)
                    request.httpMethod = method
                    let token = try AdminAssertion.sign(keyFile: Data(contentsOf: keyFile), audience: base, now: Date())
                    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
                    let (data, response) = try await URLSession.shared.data(for: request)
                    return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
                }
                let shown = try await admin("GET")
                #expect(shown.json["sourceUrl"] as? String == "\(source)/identitytoolkit.googleapis.com" && shown.json["apiKey"] == nil,
                        "the key is not shown back: \(shown.json)")
                let past = try await admin("PATCH", ["sourceUrl": "https://identitytoolkit.googleapis.com", "apiKey": "k",
                                                     "expireTime": "2020-01-01T00:00:00Z"])
                #expect(past.status == 400, "a date in the past: \(past.json)")
                let dead = try await admin("PATCH", ["sourceUrl": "http://127.0.0.1:\(try freePort())/identitytoolkit.googleapis.com",
                                                     "apiKey": "source-web-key", "expireTime": until])
                try #require(dead.status == 200, "\(dead.json)")
                let down = try await signIn("bo@example.com", "bo-password")
                #expect(down.status == 503, "\(down.json)")
                #expect(try await admin("DELETE").status == 200)
                #expect(try await signIn("bo@example.com", "bo-password").json["idToken"] == nil, "off: the source is not asked")
                #expect(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "bo")?.passwordAtSource == true)
            }
        }
        try await targetStore.close()
    }

    /// The source read with a Google access token: the key's signed assertion is exchanged at its `token_uri` (a
    /// loopback stand-in for Google's here, which checks the signature and claims as Google does); a key the token
    /// URI refuses stops the move before anything is read, saying why.
    @Test func theSourceIsReadWithATokenExchangedForTheKeysAssertion() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let registered = try ServiceAccountKey.generate(name: "firebase-mover", projectID: Self.sourceProject, now: Date())
        let stranger = try ServiceAccountKey.generate(name: "firebase-mover", projectID: Self.sourceProject, now: Date())
        // Google's account, by its address: one of Hearth's (`….iam.hearth`) is not exchanged but signs each call.
        var google = registered.record
        google.clientEmail = "firebase-mover@\(Self.sourceProject).iam.gserviceaccount.com"
        let account = google
        let seen = Assertions()
        let tokenPort = try freePort()
        let tokenURI = "http://127.0.0.1:\(tokenPort)/token"
        let router = Router()
        router.post("/token") { request, _ -> Response in
            let form = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let fields = Dictionary(form.split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
            guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"],
                  let verified = try? ServiceAccountJWT.verify(assertion, accounts: [account]),
                  let claims = try? JSONSerialization.jsonObject(with: verified.payload) as? [String: Any],
                  claims["aud"] as? String == tokenURI, claims["iss"] as? String == account.clientEmail,
                  (claims["scope"] as? String)?.contains("https://www.googleapis.com/auth/identitytoolkit") == true
            else {
                return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)))
            }
            seen.add(claims)
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"access_token":"owner","expires_in":3599,"token_type":"Bearer"}"#)))
        }
        let standIn = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: tokenPort)))
        let standInTask = Task { try await standIn.runService() }
        defer { standInTask.cancel() }
        func keyFile(_ key: ServiceAccountKey, _ name: String) throws -> String {
            var json = try #require(try JSONSerialization.jsonObject(with: key.keyFileJSON) as? [String: Any])
            json["token_uri"] = tokenURI
            json["client_email"] = account.clientEmail
            let path = folder.appendingPathComponent(name).path
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
            return path
        }
        let (good, bad) = (try keyFile(registered, "good.json"), try keyFile(stranger, "bad.json"))
        let targetStore = try await SQLiteStore.temporary()
        try await targetStore.migrate()
        let targetKey = try await Self.target(targetStore, folder: folder)
        var sourceConfiguration = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: Self.sourceProject)
        sourceConfiguration.rateLimits.enabled = false
        let targetConfiguration = ServerConfiguration(port: try freePort(), projectID: Self.targetProject, initialAPIKey: "target-key")
        try await serving(sourceConfiguration, store: InMemoryStore()) { source in
            let created = try await Self.rest("POST", "\(source)/identitytoolkit.googleapis.com/v1/projects/\(Self.sourceProject)/accounts:batchCreate",
                                              ["users": [["localId": "ada", "email": "ada@example.com", "rawPassword": "password-ada"]]])
            try #require(created.status == 200, "\(created.json)")
            try await serving(targetConfiguration, store: targetStore) { target in
                let common = ["auth:migrate", "--from", source, "--to", target, "--to-key-file", targetKey.path,
                              "--project-id", Self.targetProject]
                let refused = try await CLIStoreTests.hearth(common + ["--from-key-file", bad], in: folder)
                #expect(refused.status != 0 && refused.output.contains("refused the service account") && refused.output.contains("Invalid JWT Signature"),
                        "\(refused.output)")
                #expect(seen.count == 0)
                let moved = try await CLIStoreTests.hearth(common + ["--from-key-file", good], in: folder)
                #expect(moved.status == 0 && moved.output.contains("users: 1 created"), "\(moved.output)")
                #expect(seen.count == 1, "one exchange for the whole move")
                #expect(try await targetStore.user(projectID: Self.targetProject, tenantID: nil, localID: "ada")?.email == "ada@example.com")
            }
        }
        try await targetStore.close()
    }

    static let firebaseEmulator = "/tmp/peer/emulator/start.sh"

    /// Firebase's emulator on a port of its own, serving `project`, until `body` returns. With `importing`, it first
    /// imports that export folder as `firebase emulators:start --import` does: the folder's metadata names its
    /// Authentication folder, which the emulator's own `importData` reads.
    static func withFirebaseEmulator(project: String, importing: URL? = nil, _ body: (String) async throws -> Void) async throws {
        let port = try freePort()
        let emulator = Process()
        if let importing {
            let script = importing.deletingLastPathComponent().appendingPathComponent("import-\(port).js")
            try """
                const path = require("path"), fs = require("fs");
                const [lib, dir, port, projectId] = process.argv.slice(2);
                const { EmulatorRegistry } = require(lib + "/emulator/registry");
                const { AuthEmulator, SingleProjectMode } = require(lib + "/emulator/auth/index");
                const emulator = new AuthEmulator({ projectId, host: "127.0.0.1", port: Number(port), singleProjectMode: SingleProjectMode.NO_WARNING });
                EmulatorRegistry.register("auth", { name: "auth", host: "127.0.0.1", port: Number(port) });
                const metadata = JSON.parse(fs.readFileSync(path.join(dir, "firebase-export-metadata.json"), "utf8"));
                emulator.start().then(() => emulator.importData(path.join(dir, metadata.auth.path), projectId, { initiatedBy: "start" }))
                  .then(() => console.log("imported"), (error) => { console.error(error); process.exit(1); });
                for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => emulator.stop().then(() => process.exit(0)));
                """.write(to: script, atomically: true, encoding: .utf8)
            emulator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            emulator.arguments = ["node", script.path, URL(fileURLWithPath: firebaseEmulator).deletingLastPathComponent().path + "/lib",
                                  importing.path, "\(port)", project]
        } else {
            emulator.executableURL = URL(fileURLWithPath: firebaseEmulator)
            emulator.arguments = ["\(port)"]
        }
        emulator.environment = ProcessInfo.processInfo.environment.merging(["PROJECT_ID": project, "NODE_PATH": "/usr/share/nodejs"]) { $1 }
        emulator.standardOutput = FileHandle.nullDevice
        emulator.standardError = FileHandle.nullDevice
        try emulator.run()
        defer { emulator.terminate() }
        let base = "http://127.0.0.1:\(port)"
        let up = await eventually {
            (try? await rest("GET", "\(base)/emulator/v1/projects/\(project)/config").status) == 200
        }
        try #require(up, "Firebase's emulator did not start")
        try await body(base)
    }

    /// The way back: Firebase's emulator → Hearth (emulator mode) → a fresh Firebase emulator, with `auth:migrate`
    /// both ways, then again through an export folder the fresh emulator imports; the users then sign in there with
    /// their passwords, a tenant's user in the tenant made for it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: AuthMigrateTests.firebaseEmulator),
                   "needs Firebase's emulator: MIRROR=… bash ../shared/peer/build-emulator.sh (CI has no mirrors)"))
    func aRoundTripThroughHearthKeepsEveryPassword() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let project = "round-trip"
        try await Self.withFirebaseEmulator(project: project) { first in
            let api = "\(first)/identitytoolkit.googleapis.com/v1"
            for index in 0..<3 {
                let made = try await Self.rest("POST", "\(api)/accounts:signUp?key=k",
                                               ["email": "trip\(index)@example.com", "password": "round-trip-\(index)"], owner: false)
                try #require(made.status == 200, "\(made.json)")
            }
            let tenant = try await Self.rest("POST", "\(first)/identitytoolkit.googleapis.com/v2/projects/\(project)/tenants",
                                             ["displayName": "Umbrella", "allowPasswordSignup": true])
            let tenantID = try #require(tenant.json["tenantId"] as? String ?? (tenant.json["name"] as? String)?.components(separatedBy: "/").last)
            try #require(try await Self.rest("POST", "\(api)/projects/\(project)/tenants/\(tenantID)/accounts",
                                             ["email": "alice@umbrella.example", "password": "umbrella-pw"]).status == 200)
            var hearth = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: project)
            hearth.rateLimits.enabled = false
            let middle = hearth
            try await serving(middle, store: InMemoryStore()) { base in
                let there = try await CLIStoreTests.hearth(["auth:migrate", "--from", first, "--from-project", project,
                                                            "--to", base, "--project-id", project], in: folder)
                #expect(there.status == 0 && there.output.contains("users: 4 created"), "\(there.output)")
                try await Self.withFirebaseEmulator(project: project) { fresh in
                    let back = try await CLIStoreTests.hearth(["auth:migrate", "--from", base, "--from-project", project,
                                                               "--to", fresh, "--project-id", project], in: folder)
                    #expect(back.status == 0 && back.output.contains("users: 4 created"), "\(back.output)")
                    for index in 0..<3 {
                        let signedIn = try await Self.rest("POST", "\(fresh)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                                                           ["email": "trip\(index)@example.com", "password": "round-trip-\(index)",
                                                            "returnSecureToken": true], owner: false)
                        #expect(signedIn.json["idToken"] != nil, "\(signedIn.json)")
                    }
                    let tenants = try await Self.rest("GET", "\(fresh)/identitytoolkit.googleapis.com/v2/projects/\(project)/tenants")
                    let umbrella = try #require((tenants.json["tenants"] as? [[String: Any]])?.first { $0["displayName"] as? String == "Umbrella" },
                                                "\(tenants.json)")
                    let id = try #require(umbrella["tenantId"] as? String ?? (umbrella["name"] as? String)?.components(separatedBy: "/").last)
                    let alice = try await Self.rest("POST", "\(fresh)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                                                    ["email": "alice@umbrella.example", "password": "umbrella-pw", "tenantId": id,
                                                     "returnSecureToken": true], owner: false)
                    #expect(alice.json["idToken"] != nil, "\(alice.json)")
                }
                // The same through a folder: Hearth writes an emulator export, a fresh Firebase emulator imports it.
                let seed = folder.appendingPathComponent("seed")
                let exported = try await CLIStoreTests.hearth(["auth:migrate", "--from", base, "--from-project", project,
                                                               "--to", seed.path], in: folder)
                #expect(exported.status == 0 && exported.output.contains("users: 4 written"), "\(exported.output)")
                try await Self.withFirebaseEmulator(project: project, importing: seed) { fresh in
                    let api = "\(fresh)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k"
                    let imported = await eventually {
                        (try? await Self.rest("POST", api, ["email": "trip0@example.com", "password": "round-trip-0"], owner: false).status) == 200
                    }
                    #expect(imported, "the fresh emulator imported the folder")
                    for index in 1..<3 {
                        let signedIn = try await Self.rest("POST", api, ["email": "trip\(index)@example.com", "password": "round-trip-\(index)",
                                                                         "returnSecureToken": true], owner: false)
                        #expect(signedIn.json["idToken"] != nil, "\(signedIn.json)")
                    }
                    let tenants = try await Self.rest("GET", "\(fresh)/identitytoolkit.googleapis.com/v2/projects/\(project)/tenants")
                    let id = try #require((tenants.json["tenants"] as? [[String: Any]])?.first?["tenantId"] as? String, "\(tenants.json)")
                    let alice = try await Self.rest("POST", api, ["email": "alice@umbrella.example", "password": "umbrella-pw", "tenantId": id,
                                                                  "returnSecureToken": true], owner: false)
                    #expect(alice.json["idToken"] != nil, "\(alice.json)")
                }
            }
        }
    }

    /// Firebase's own emulator (built by ../shared/peer) as the source: its users' stand-in hashes hold their
    /// passwords, which Hearth hashes on the way in, so they sign in on the target as before.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/tmp/peer/emulator/start.sh"),
                   "needs Firebase's emulator: MIRROR=… bash ../shared/peer/build-emulator.sh (CI has no mirrors)"))
    func aProjectMovesFromFirebasesEmulator() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try freePort()
        let emulator = Process()
        emulator.executableURL = URL(fileURLWithPath: "/tmp/peer/emulator/start.sh")
        emulator.arguments = ["\(port)"]
        emulator.environment = ProcessInfo.processInfo.environment.merging(["PROJECT_ID": Self.sourceProject]) { $1 }
        emulator.standardOutput = FileHandle.nullDevice
        emulator.standardError = FileHandle.nullDevice
        try emulator.run()
        defer { emulator.terminate() }
        let source = "http://127.0.0.1:\(port)"
        let api = "\(source)/identitytoolkit.googleapis.com/v1"
        #expect(await eventually { (try? await Self.rest("POST", "\(api)/accounts:signUp?key=k", ["email": "probe@example.com", "password": "probe-password"], owner: false).status) == 200 })
        for index in 0..<5 {
            let made = try await Self.rest("POST", "\(api)/accounts:signUp?key=k",
                                           ["email": "fb\(index)@example.com", "password": "firebase-\(index)"], owner: false)
            try #require(made.status == 200, "\(made.json)")
        }
        let tenant = try await Self.rest("POST", "\(source)/identitytoolkit.googleapis.com/v2/projects/\(Self.sourceProject)/tenants",
                                         ["displayName": "Initech", "allowPasswordSignup": true])
        let tenantID = try #require(tenant.json["tenantId"] as? String ?? (tenant.json["name"] as? String)?.components(separatedBy: "/").last,
                                    "\(tenant.json)")
        let tenantUser = try await Self.rest("POST", "\(api)/projects/\(Self.sourceProject)/tenants/\(tenantID)/accounts",
                                             ["email": "peter@initech.example", "password": "initech-pw"])
        try #require(tenantUser.status == 200, "\(tenantUser.json)")
        let targetStore = try await SQLiteStore.temporary()
        try await targetStore.migrate()
        let targetKey = try await Self.target(targetStore, folder: folder)
        let targetConfiguration = ServerConfiguration(port: try freePort(), projectID: Self.targetProject, initialAPIKey: "target-key")
        try await serving(targetConfiguration, store: targetStore) { target in
            let moved = try await CLIStoreTests.hearth(["auth:migrate", "--from", source, "--from-project", Self.sourceProject,
                                                        "--to", target, "--to-key-file", targetKey.path,
                                                        "--project-id", Self.targetProject], in: folder)
            #expect(moved.status == 0 && moved.output.contains("users: 7 created") && moved.output.contains("tenants: 1"), "\(moved.output)")
            let signIn = try await Self.rest("POST", "\(target)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=target-key",
                                             ["email": "fb3@example.com", "password": "firebase-3", "returnSecureToken": true], owner: false)
            #expect(signIn.json["idToken"] != nil, "\(signIn.json)")
            let initech = try #require(try await targetStore.tenants(projectID: Self.targetProject, after: nil, limit: 10).first)
            let tenantSignIn = try await Self.rest("POST", "\(target)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=target-key",
                                                   ["email": "peter@initech.example", "password": "initech-pw", "tenantId": initech.id], owner: false)
            #expect(tenantSignIn.json["idToken"] != nil, "\(tenantSignIn.json)")
        }
        try await targetStore.close()

        // The same project saved as the emulator exports it, then moved in from the folder: its tenant, known only
        // by its account file and a 28-character id, gets a display name Firebase allows.
        let saved = folder.appendingPathComponent("emulator-data")
        try await EmulatorExportFolderTests.exportAsTheEmulatorDoes(source, project: Self.sourceProject, to: saved)
        var emulatorTarget = ServerConfiguration(mode: .emulator, port: try freePort(), projectID: Self.targetProject)
        emulatorTarget.rateLimits.enabled = false
        let store = InMemoryStore()
        try await serving(emulatorTarget, store: store) { target in
            let moved = try await CLIStoreTests.hearth(["auth:migrate", "--from", saved.path, "--to", target,
                                                        "--project-id", Self.targetProject], in: folder)
            #expect(moved.status == 0 && moved.output.contains("users: 7 created") && moved.output.contains("tenants: 1"), "\(moved.output)")
            let tenant = try #require(try await store.tenants(projectID: Self.targetProject, after: nil, limit: 10).first)
            #expect(tenant.displayName == "tenant-" + String(tenantID.prefix(13)), "\(String(describing: tenant.displayName))")
            let peter = try await Self.rest("POST", "\(target)/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                                            ["email": "peter@initech.example", "password": "initech-pw", "tenantId": tenant.id], owner: false)
            #expect(peter.json["idToken"] != nil, "\(peter.json)")
        }
    }

}

/// The claims of each assertion the stand-in token URI accepted.
final class Assertions: @unchecked Sendable {
    private let lock = NSLock()
    private var claims: [[String: Any]] = []
    var count: Int { lock.withLock { claims.count } }
    func add(_ accepted: [String: Any]) { lock.withLock { claims.append(accepted) } }
}
