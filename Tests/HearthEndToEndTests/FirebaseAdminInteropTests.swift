import Foundation
import HearthCore
import HearthServer
import HearthSQLite
import HearthTestSupport
import Hummingbird
import Testing

/// Why the Python Admin SDK cannot run here, or `nil`.
let firebaseAdminUnavailable: String? = {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import firebase_admin"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return "python3 is not installed" }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? nil : "pip install firebase-admin (.ci/run does)"
}()

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

        let scriptFile = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString).py")
        try Self.script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", scriptFile.path]
        python.environment = ProcessInfo.processInfo.environment.merging(
            ["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(port)"], uniquingKeysWith: { _, new in new })
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
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(errorText)")
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
}
