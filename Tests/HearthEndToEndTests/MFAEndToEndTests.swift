import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthServer
import HearthSQLite
import HearthTestSupport
import Testing

/// Why pyotp cannot run here, or `nil`.
let pyotpUnavailable: String? = Python.has("pyotp") ? nil : "python3 with pyotp is missing (pip install pyotp; .ci/run does)"

/// Both second factors end to end over HTTP, on SQLite and on PostgreSQL: a Python client enrolls an authenticator
/// (codes from `pyotp`, a TOTP library we did not write) and a phone (codes from the emulator's SMS outbox), then
/// signs in with each.
@Suite(.enabled(if: pyotpUnavailable == nil, "pyotp unavailable: \(pyotpUnavailable ?? "")"))
struct MFAEndToEndTests {
    static let script = #"""
import json, os, time, urllib.request, urllib.error
import pyotp

base = os.environ["HEARTH_URL"]

def call(path, body, headers=None, method="POST"):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", **(headers or {})}, method=method)
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)

v1 = "/identitytoolkit.googleapis.com/v1"
v2 = "/identitytoolkit.googleapis.com/v2"
key = "?key=any"
user = call(v1 + "/accounts:signUp" + key, {"email": "both@example.com", "password": "secret123"})
call(v1 + "/projects/demo-mfa/accounts:update", {"localId": user["localId"], "emailVerified": True},
     {"Authorization": "Bearer owner"})
token = call(v1 + "/accounts:signInWithPassword" + key, {"email": "both@example.com", "password": "secret123"})["idToken"]

start = call(v2 + "/accounts/mfaEnrollment:start" + key, {"idToken": token, "totpEnrollmentInfo": {}})["totpSessionInfo"]
totp = pyotp.TOTP(start["sharedSecretKey"], digits=start["verificationCodeLength"], interval=start["periodSec"])
enrolled = call(v2 + "/accounts/mfaEnrollment:finalize" + key, {"idToken": token, "displayName": "Authenticator",
    "totpVerificationInfo": {"sessionInfo": start["sessionInfo"], "verificationCode": totp.now()}})
token = enrolled["idToken"]

def last_sms():
    codes = call("/emulator/v1/projects/demo-mfa/verificationCodes", None, method="GET")["verificationCodes"]
    return codes[-1]

call(v2 + "/accounts/mfaEnrollment:start" + key, {"idToken": token, "phoneEnrollmentInfo": {"phoneNumber": "+15555550188"}})
sms = last_sms()
phone = call(v2 + "/accounts/mfaEnrollment:finalize" + key, {"idToken": token, "displayName": "Phone",
    "phoneVerificationInfo": {"sessionInfo": sms["sessionInfo"], "code": sms["code"]}})

first = call(v1 + "/accounts:signInWithPassword" + key, {"email": "both@example.com", "password": "secret123"})
factors = {f.get("displayName"): f for f in first["mfaInfo"]}
# The enrollment code's time step is used up; the next step's code is within the window.
by_totp = call(v2 + "/accounts/mfaSignIn:finalize" + key, {"mfaPendingCredential": first["mfaPendingCredential"],
    "mfaEnrollmentId": factors["Authenticator"]["mfaEnrollmentId"],
    "totpVerificationInfo": {"verificationCode": totp.at(time.time() + 30)}})

second = call(v1 + "/accounts:signInWithPassword" + key, {"email": "both@example.com", "password": "secret123"})
call(v2 + "/accounts/mfaSignIn:start" + key, {"mfaPendingCredential": second["mfaPendingCredential"],
    "mfaEnrollmentId": factors["Phone"]["mfaEnrollmentId"], "phoneSignInInfo": {}})
sms = last_sms()
by_phone = call(v2 + "/accounts/mfaSignIn:finalize" + key, {"mfaPendingCredential": second["mfaPendingCredential"],
    "phoneVerificationInfo": {"sessionInfo": sms["sessionInfo"], "code": sms["code"]}})
print(json.dumps({"enrolled": "idToken" in enrolled, "phone": "idToken" in phone,
    "factors": sorted(factors), "masked": factors["Phone"].get("phoneInfo"),
    "by_totp": by_totp.get("idToken"), "by_phone": by_phone.get("idToken"), "errors": [by_totp.get("error"), by_phone.get("error")]}))
"""#

    static func run(on store: any IdentityStore) async throws {
        let port = try freePort()
        let app = try await buildApplication(
            configuration: ServerConfiguration(mode: .emulator, port: port, projectID: "demo-mfa"),
            store: store, hashing: ThreadPoolWorkRunner(threads: 2), hashParameters: { .generate(memoryCost: 12) })
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        try await ActionPageBrowserTests.waitUntilListening("http://127.0.0.1:\(port)")
        let result = try await FirebaseAdminInteropTests.runPython(Self.script, environment: ["HEARTH_URL": "http://127.0.0.1:\(port)"])
        #expect(result["enrolled"] as? Bool == true && result["phone"] as? Bool == true, "\(result)")
        #expect(result["factors"] as? [String] == ["Authenticator", "Phone"])
        #expect(result["masked"] as? String == "+*******0188")
        for (name, factor) in [("by_totp", "totp"), ("by_phone", "phone")] {
            let token = try #require(result[name] as? String, "\(name): \(result)")
            let payload = try #require(Base64URL.decode(token.split(separator: ".")[1]))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect((claims["firebase"] as? [String: Any])?["sign_in_second_factor"] as? String == factor)
        }
        server.cancel()
        _ = await server.result
    }

    @Test func bothFactorsOnSQLite() async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        try await Self.run(on: store)
        try await store.close()
    }

    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"))
    func bothFactorsOnPostgreSQL() async throws {
        let url = try #require(try await TemporaryPostgres.freshSchemaURL())
        let store = try PostgresStore(url: url)
        try await store.migrate()
        try await Self.run(on: store)
        try await store.close()
    }
}
