import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// Why the Python Admin SDK cannot run here, or `nil`.
let firebaseAdminUnavailable: String? =
    Python.has("firebase_admin") ? nil : "python3 with firebase-admin is missing (pip install firebase-admin; .ci/run does)"

/// The official `firebase-admin` Python SDK (PyPI), in emulator mode, against a live Hearth: user import with
/// Firebase-scrypt and bcrypt hashes, then a REST sign-in with the plaintext passwords.
@Suite(.enabled(if: firebaseAdminUnavailable == nil, "firebase-admin unavailable: \(firebaseAdminUnavailable ?? "")"))
struct FirebaseAdminInteropTests {
    static let script = #"""
import base64, json, os, sys, urllib.request, urllib.error
import firebase_admin
from firebase_admin import auth

firebase_admin.initialize_app(options={"projectId": "demo-interop"})
host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]

def sign_in(email, password):
    request = urllib.request.Request(
        f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any-key",
        data=json.dumps({"email": email, "password": password, "returnSecureToken": True}).encode(),
        headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)

scrypt = auth.UserImportHash.scrypt(
    key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
    salt_separator=base64.b64decode("Bw=="), rounds=8, memory_cost=14)
first = auth.import_users([auth.ImportUserRecord(
    uid="scrypt-1", email="scrypt1@example.com", display_name="Imported",
    password_hash=base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
    password_salt=base64.b64decode("42xEC+ixf3L2lw=="))], hash_alg=scrypt)
second = auth.import_users([auth.ImportUserRecord(
    uid="bcrypt-1", email="bcrypt1@example.com",
    password_hash=b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")],
    hash_alg=auth.UserImportHash.bcrypt())
third = auth.import_users([auth.ImportUserRecord(uid="fresh-1", email="fresh@example.com"),
                           auth.ImportUserRecord(uid="dupe-1", email="scrypt1@example.com")])
auth.set_custom_user_claims("bcrypt-1", {"role": "admin"})
status, body = sign_in("bcrypt1@example.com", "U*U")
payload = body["idToken"].split(".")[1]
claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
renamed = auth.update_user("bcrypt-1", display_name="Renamed", disabled=True)
disabled_sign_in = sign_in("bcrypt1@example.com", "U*U")
fetched = auth.get_user("scrypt-1")
by_email = auth.get_user_by_email("fresh@example.com")
auth.delete_user("fresh-1")
try:
    auth.get_user("fresh-1")
    gone = False
except auth.UserNotFoundError:
    gone = True
print(json.dumps({
    "fetched": [fetched.uid, fetched.email, fetched.display_name],
    "claims": [claims.get("role"), auth.get_user("bcrypt-1").custom_claims],
    "renamed": [renamed.display_name, renamed.disabled],
    "disabled_sign_in": [disabled_sign_in[0], disabled_sign_in[1]["error"]["message"]],
    "by_email": by_email.uid,
    "deleted": gone,
    "first": [first.success_count, first.failure_count],
    "second": [second.success_count, second.failure_count],
    "third": [third.success_count, third.failure_count, [[e.index, e.reason] for e in third.errors]],
    "scrypt_ok": sign_in("scrypt1@example.com", "user1password")[0],
    "scrypt_wrong": sign_in("scrypt1@example.com", "user2password")[0],
    "bcrypt_ok": sign_in("bcrypt1@example.com", "U*U")[0],
}))
"""#

    @Test func importUsersWithScryptAndBcryptThenSignIn() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let port = try freePort()
        let app = try await buildApplication(
            configuration: ServerConfiguration(mode: .emulator, port: port, projectID: "demo-interop"),
            store: store, hashing: ThreadPoolWorkRunner(threads: 2), hashParameters: { .generate(memoryCost: 12) })
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        try await ActionPageBrowserTests.waitUntilListening("http://127.0.0.1:\(port)")

        let result = try await Self.runPython(Self.script, environment: ["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(port)"])
        #expect(result["first"] as? [Int] == [1, 0])
        #expect(result["second"] as? [Int] == [1, 0])
        let third = try #require(result["third"] as? [Any])
        #expect(third[0] as? Int == 1 && third[1] as? Int == 1)
        #expect((third[2] as? [[Any]])?.first?.first as? Int == 1, "the duplicate email is reported at index 1")
        #expect(result["fetched"] as? [String] == ["scrypt-1", "scrypt1@example.com", "Imported"])
        #expect(result["by_email"] as? String == "fresh-1")
        let claims = try #require(result["claims"] as? [Any])
        #expect(claims[0] as? String == "admin", "set_custom_user_claims shows at the top level of the next ID token")
        #expect((claims[1] as? [String: String]) == ["role": "admin"])
        #expect((result["renamed"] as? [Any])?.first as? String == "Renamed")
        #expect((result["renamed"] as? [Any])?.last as? Bool == true)
        #expect((result["disabled_sign_in"] as? [Any])?.last as? String == "USER_DISABLED")
        #expect(result["deleted"] as? Bool == true, "get_user after delete_user raises UserNotFoundError")
        #expect(result["scrypt_ok"] as? Int == 200)
        #expect(result["scrypt_wrong"] as? Int == 400)
        #expect(result["bcrypt_ok"] as? Int == 400, "bcrypt-1 was disabled by update_user before this sign-in")
        let rehashed = try #require(try await store.user(projectID: "demo-interop", tenantID: nil, localID: "scrypt-1"))
        let project = try #require(try await store.project(id: "demo-interop"))
        #expect(rehashed.passwordHash.map { PasswordHash.needsRehash($0, for: project.hashConfig) } == false,
                "signing in re-hashed the imported password with the project's scrypt")
        server.cancel()
        _ = await server.result
        try await store.close()
    }

    /// Runs a Python script and returns the JSON object it prints.
    static func runPython(_ script: String, environment: [String: String]) async throws -> [String: Any] {
        let scriptFile = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString).py")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: scriptFile) }
        let python = ChildProcess()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", scriptFile.path]
        python.environment = ProcessInfo.processInfo.environment.merging(environment, uniquingKeysWith: { _, new in new })
        let output = Pipe()
        let errors = Pipe()
        python.standardOutput = output
        python.standardError = errors
        try python.run()
        // Both pipes are drained on their own threads (a full stderr pipe would stall Python otherwise).
        async let outputData = blocking { output.fileHandleForReading.readDataToEndOfFile() }
        async let errorData = blocking { errors.fileHandleForReading.readDataToEndOfFile() }
        let data = try await outputData
        let errorText = String(decoding: try await errorData, as: UTF8.self)
        try await blocking { python.waitUntilExit() }
        #expect(python.terminationStatus == 0, "python failed: \(errorText)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(errorText)")
    }

    /// Starts Hearth on a free port and SQLite, runs `body` with the port, stops.
    static func withServer(mode: ServerConfiguration.Mode, prepare: (SQLiteStore) async throws -> Void = { _ in },
                           _ body: (Int, SQLiteStore) async throws -> Void) async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        try await prepare(store)
        let port = try freePort()
        let app = try await buildApplication(
            configuration: ServerConfiguration(mode: mode, port: port, projectID: "demo-interop", initialAPIKey: "interop-key"),
            store: store, hashing: ThreadPoolWorkRunner(threads: 2), hashParameters: { .generate(memoryCost: 12) })
        let server = Task { try await app.runService() }
        do {
            try await ActionPageBrowserTests.waitUntilListening("http://127.0.0.1:\(port)")
            try await body(port, store)
        } catch {
            server.cancel()
            _ = await server.result
            try? await store.close()
            throw error
        }
        server.cancel()
        _ = await server.result
        try await store.close()
    }

    /// `call(path, body)`: a client REST call to the server at `host`, answering the JSON body, error or not.
    static let callHelper = #"""
def call(path, body):
    request = urllib.request.Request(f"http://{host}/identitytoolkit.googleapis.com/v1/{path}?key=any-key",
        data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)
"""#

    static let sessionScript = #"""
import base64, json, os, time, urllib.request, urllib.error
import firebase_admin
from firebase_admin import auth

firebase_admin.initialize_app(options={"projectId": "demo-interop"})
host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]

\#(callHelper)
for index in range(5):
    auth.create_user(uid=f"user-{index}", email=f"user{index}@example.com", password="secret123")
pages = []
page = auth.list_users(max_results=2)
while page:
    pages.append([user.uid for user in page.users])
    page = page.get_next_page()
everyone = [user.uid for user in auth.list_users().iterate_all()]
link = auth.generate_password_reset_link("user1@example.com")
token = auth.create_custom_token("user-2", {"tier": 3}).decode()
signed_in = call("accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
decoded = auth.verify_id_token(signed_in["idToken"], check_revoked=True)
cookie = auth.create_session_cookie(signed_in["idToken"], expires_in=3600)
cookie_claims = auth.verify_session_cookie(cookie, check_revoked=True)
time.sleep(1.1)
auth.revoke_refresh_tokens("user-2")
try:
    auth.verify_id_token(signed_in["idToken"], check_revoked=True)
    revoked = False
except auth.RevokedIdTokenError:
    revoked = True
auth.delete_users(["user-3", "user-4"])
created = auth.create_oidc_provider_config("oidc.acme", client_id="hearth", issuer="https://login.acme.example",
                                           display_name="Acme", enabled=True)
updated = auth.update_oidc_provider_config("oidc.acme", enabled=False)
listed = [p.provider_id for p in auth.list_oidc_provider_configs().iterate_all()]
auth.delete_oidc_provider_config("oidc.acme")
try:
    auth.get_oidc_provider_config("oidc.acme")
    provider_gone = False
except auth.ConfigurationNotFoundError:
    provider_gone = True
print(json.dumps({
    "oidc": [created.provider_id, created.issuer, created.enabled, updated.enabled, listed, provider_gone],
    "pages": pages, "everyone": everyone, "link": link,
    "decoded": [decoded["uid"], decoded.get("tier"), decoded["firebase"]["sign_in_provider"]],
    "cookie": cookie_claims["uid"], "revoked": revoked,
    "left": [user.uid for user in auth.list_users().iterate_all()],
}))
"""#

    @Test func listUsersLinksCustomTokensCookiesAndRevocation() async throws {
        try await Self.withServer(mode: .emulator) { port, _ in
            let result = try await Self.runPython(Self.sessionScript, environment: ["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(port)"])
            #expect(result["pages"] as? [[String]] == [["user-0", "user-1"], ["user-2", "user-3"], ["user-4"]])
            #expect(result["everyone"] as? [String] == ["user-0", "user-1", "user-2", "user-3", "user-4"])
            #expect((result["link"] as? String)?.contains("mode=resetPassword") == true)
            let decoded = try #require(result["decoded"] as? [Any])
            #expect(decoded[0] as? String == "user-2" && decoded[1] as? Int == 3 && decoded[2] as? String == "custom")
            #expect(result["cookie"] as? String == "user-2")
            #expect(result["revoked"] as? Bool == true, "verify_id_token(check_revoked=True) after revoke_refresh_tokens")
            #expect(result["left"] as? [String] == ["user-0", "user-1", "user-2"])
            let oidc = try #require(result["oidc"] as? [Any])
            #expect(oidc[0] as? String == "oidc.acme" && oidc[1] as? String == "https://login.acme.example")
            #expect(oidc[2] as? Bool == true && oidc[3] as? Bool == false && (oidc[4] as? [String]) == ["oidc.acme"])
            #expect(oidc[5] as? Bool == true, "get after delete raises ConfigurationNotFoundError")
        }
    }

    static let tenantScript = #"""
import json, os, urllib.request, urllib.error
import firebase_admin
from firebase_admin import _utils, auth, credentials, tenant_mgt

# The SDK's tenant_mgt ignores FIREBASE_AUTH_EMULATOR_HOST (it always calls Google, with real credentials): the
# two lines below point it at Hearth with the emulator's credential, as its auth module does by itself.
class EmulatorCredential(credentials.Base):
    def get_credential(self):
        return _utils.EmulatorAdminCredentials()

firebase_admin.initialize_app(EmulatorCredential(), options={"projectId": "demo-interop"})
host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
tenant_mgt._TenantManagementService.TENANT_MGT_URL = f"http://{host}/identitytoolkit.googleapis.com/v2"

\#(callHelper)
acme = tenant_mgt.create_tenant(display_name="Acme", allow_password_sign_up=True)
globex = tenant_mgt.create_tenant(display_name="Globex", allow_password_sign_up=True)
updated = tenant_mgt.update_tenant(acme.tenant_id, display_name="Acme-Corp", enable_email_link_sign_in=True)
listed = sorted(t.tenant_id for t in tenant_mgt.list_tenants().iterate_all())
client_a = tenant_mgt.auth_for_tenant(acme.tenant_id)
client_b = tenant_mgt.auth_for_tenant(globex.tenant_id)
user_a = client_a.create_user(email="ada@example.com", password="secret-a")
user_b = client_b.create_user(email="ada@example.com", password="secret-b")
signed_in = call("accounts:signInWithPassword", {"email": "ada@example.com", "password": "secret-a",
                                                 "tenantId": acme.tenant_id, "returnSecureToken": True})
decoded = client_a.verify_id_token(signed_in["idToken"])
try:
    client_b.verify_id_token(signed_in["idToken"])
    cross = False
except tenant_mgt.TenantIdMismatchError:
    cross = True
custom = call("accounts:signInWithCustomToken", {"token": client_a.create_custom_token("custom-a").decode(),
                                                 "tenantId": acme.tenant_id, "returnSecureToken": True})
custom_elsewhere = call("accounts:signInWithCustomToken", {"token": client_a.create_custom_token("custom-x").decode(),
                                                           "tenantId": globex.tenant_id, "returnSecureToken": True})
imported = client_b.import_users([auth.ImportUserRecord(uid="imported-b", email="imported@example.com")])
auth.create_user(uid="project-user", email="ada@example.com")
# Provider configs per tenant, through the tenant's client: its own, not the project's nor another tenant's.
client_a.create_oidc_provider_config("oidc.partner", client_id="partner", issuer="https://partner.example", enabled=True)
client_a.update_oidc_provider_config("oidc.partner", enabled=False)
providers = [[p.provider_id, p.enabled] for p in client_a.list_oidc_provider_configs().iterate_all()]
def has_partner(client):
    try:
        client.get_oidc_provider_config("oidc.partner")
        return True
    except auth.ConfigurationNotFoundError:
        return False
provider_scope = [has_partner(client_a), has_partner(client_b), has_partner(auth)]
tenant_mgt.delete_tenant(globex.tenant_id)
try:
    tenant_mgt.delete_tenant(globex.tenant_id)
    gone = False
except tenant_mgt.TenantNotFoundError:
    gone = globex.tenant_id not in [t.tenant_id for t in tenant_mgt.list_tenants().iterate_all()]
print(json.dumps({
    "names": [acme.display_name, updated.display_name, updated.enable_email_link_sign_in, acme.tenant_id in listed,
              len(listed)],
    "users": [user_a.tenant_id, user_b.tenant_id, user_a.uid != user_b.uid],
    "signed_in": [signed_in.get("localId") == user_a.uid, decoded["firebase"]["tenant"] == acme.tenant_id, cross],
    "custom": [client_a.verify_id_token(custom["idToken"])["uid"], client_a.get_user("custom-a").tenant_id == acme.tenant_id,
               custom_elsewhere.get("error", {}).get("message", "")],
    "imported": imported.success_count,
    "project_users": [u.uid for u in auth.list_users().iterate_all()],
    "acme_users": sorted(u.uid for u in client_a.list_users().iterate_all()),
    "gone": gone,
    "providers": providers,
    "provider_scope": provider_scope,
}))
"""#

    /// firebase-admin's `tenant_mgt`: tenants created, updated, listed and deleted; users made, imported and listed
    /// per tenant; one email in two tenants and the project; ID tokens and custom tokens kept to their tenant; a
    /// tenant's own provider configs.
    @Test func tenantManagementAndTenantScopedUsers() async throws {
        try await Self.withServer(mode: .emulator) { port, _ in
            let result = try await Self.runPython(Self.tenantScript, environment: ["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(port)"])
            let names = try #require(result["names"] as? [Any], "\(result)")
            #expect(names[0] as? String == "Acme" && names[1] as? String == "Acme-Corp" && names[2] as? Bool == true)
            #expect(names[3] as? Bool == true && names[4] as? Int == 2)
            let users = try #require(result["users"] as? [Any])
            #expect(users[0] is String && users[1] is String && users[0] as? String != users[1] as? String)
            #expect(users[2] as? Bool == true, "one email, two accounts")
            #expect(result["signed_in"] as? [Bool] == [true, true, true], "\(result)")
            let custom = try #require(result["custom"] as? [Any])
            #expect(custom[0] as? String == "custom-a" && custom[1] as? Bool == true)
            #expect((custom[2] as? String)?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(custom)")
            #expect(result["imported"] as? Int == 1)
            #expect(result["project_users"] as? [String] == ["project-user"], "tenants' users stay out of the project's list")
            #expect((result["acme_users"] as? [String])?.count == 2, "\(result)")
            #expect(result["gone"] as? Bool == true)
            #expect((result["providers"] as? [[Any]])?.first?.first as? String == "oidc.partner"
                    && (result["providers"] as? [[Any]])?.first?.last as? Bool == false, "\(result)")
            #expect(result["provider_scope"] as? [Bool] == [true, false, false], "the tenant's provider is its own: \(result)")
        }
    }

    static let productionScript = #"""
import json, os, urllib.request, urllib.error
import firebase_admin
from firebase_admin import auth, credentials

firebase_admin.initialize_app(credentials.Certificate(os.environ["HEARTH_KEY_FILE"]))
token = auth.create_custom_token("prod-user", {"plan": "pro"}).decode()
request = urllib.request.Request(
    os.environ["HEARTH_URL"] + "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=interop-key",
    data=json.dumps({"token": token, "returnSecureToken": True}).encode(), headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(request) as response:
        body = json.load(response)
except urllib.error.HTTPError as error:
    raise SystemExit(f"HTTP {error.code}: {error.read().decode()}")
print(json.dumps({"isNewUser": body["isNewUser"], "idToken": body["idToken"]}))
"""#

    @Test func productionAcceptsCustomTokensFirebaseAdminSignsWithAHearthKeyFile() async throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try await Self.withServer(mode: .production, prepare: { store in
            let directory = ProjectDirectory(store: store, clock: SystemClock(),
                                             defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                             hashParameters: { .generate(memoryCost: 12) })
            var record = try await directory.contextCreatingIfNeeded(for: "demo-interop", apiKey: "interop-key").record
            let key = try ServiceAccountKey.generate(name: "python-backend", projectID: "demo-interop", now: Date())
            try key.keyFileJSON.write(to: keyFile)
            record.serviceAccounts.append(key.record)
            try await store.updateProject(record)
        }) { port, store in
            let result = try await Self.runPython(Self.productionScript, environment: [
                "HEARTH_KEY_FILE": keyFile.path, "HEARTH_URL": "http://127.0.0.1:\(port)",
            ])
            #expect(result["isNewUser"] as? Bool == true)
            let token = try #require(result["idToken"] as? String)
            let payload = try #require(Base64URL.decode(token.split(separator: ".")[1]))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["sub"] as? String == "prod-user" && claims["plan"] as? String == "pro")
            #expect(try await store.user(projectID: "demo-interop", tenantID: nil, localID: "prod-user") != nil)
        }
    }
}
