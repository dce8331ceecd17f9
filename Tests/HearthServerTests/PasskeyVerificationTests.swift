import Foundation
import HearthCore
@testable import HearthServer
import HearthTestSupport
import HearthWire
import Testing

/// Passkeys in production, verified as WebAuthn asks, with a software authenticator (fido2 and cryptography) making
/// genuine registrations and assertions; each abuse an attacker would try is refused.
@Suite(.enabled(if: SoftwareAuthenticator.unavailableReason() == nil, "\(SoftwareAuthenticator.unavailableReason() ?? "")"))
struct PasskeyVerificationTests {
    static let v2 = "/identitytoolkit.googleapis.com/v2/accounts"
    static let origin = "https://example.com"
    static let config = "/identitytoolkit.googleapis.com/v2/projects/demo-project/passkeyConfig"

    /// A production app with `example.com` as its relying party, and a signed-up user.
    static func withUser(_ body: @escaping @Sendable (TestApp, ServiceAccountSigner, Client, _ idToken: String, _ localID: String) async throws -> Void)
        async throws {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: "acme-a1b2c", allowPasswordSignup: true))
        try await app.run { client in
            let set = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.config,
                                                          ["rpId": "example.com", "expectedOrigins": [Self.origin]])
            #expect(set["rpId"] as? String == "example.com", "\(set.text)")
            let user = try await client.signUp("pk@example.com")
            try await body(app, signer, client, try #require(user["idToken"] as? String), try #require(user["localId"] as? String))
        }
    }

    static func enroll(_ client: Client, _ authenticator: SoftwareAuthenticator, _ idToken: String,
                       _ tweaks: [String: Any] = [:], name: String? = nil) async throws -> (Reply, [String: Any]) {
        let start = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
        let made = try authenticator.create(try start.object(), origin: Self.origin, tweaks)
        var body: [String: Any] = ["idToken": idToken, "authenticatorRegistrationResponse": made]
        if let name { body["name"] = name }
        return (try await client.post("\(Self.v2)/passkeyEnrollment:finalize", body), made)
    }

    static func signIn(_ client: Client, _ authenticator: SoftwareAuthenticator, _ tweaks: [String: Any] = [:])
        async throws -> (Reply, [String: Any]) {
        let start = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
        let assertion = try authenticator.get(try start.object(), origin: Self.origin, tweaks)
        return (try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": assertion]), assertion)
    }

    @Test(arguments: [("es256", "none"), ("eddsa", "packed"), ("rs256", "packed"), ("es256", "packed")])
    func enrollAndSignIn(_ algorithm: String, _ attestation: String) async throws {
        try await Self.withUser { _, _, client, idToken, localID in
            let authenticator = try SoftwareAuthenticator()
            let start = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
            let options = try #require(start["credentialCreationOptions"] as? [String: Any], "\(start.text)")
            #expect((options["rp"] as? [String: String])?["id"] == "example.com")
            #expect((options["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
            #expect((options["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-7, -8, -257])
            let made = try authenticator.create(try start.object(), origin: Self.origin, ["alg": algorithm, "attestation": attestation])
            let enrolled = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", [
                "idToken": idToken, "authenticatorRegistrationResponse": made, "name": "Laptop"])
            #expect(enrolled["localId"] as? String == localID, "\(enrolled.text)")
            let listed = try await PasskeyRoutesTests.passkeys(client, idToken)
            #expect(listed.map { $0["credentialId"] as? String } == [made["id"] as? String] && listed.first?["name"] as? String == "Laptop")

            let (signedIn, _) = try await Self.signIn(client, authenticator)
            #expect(signedIn["localId"] as? String == localID, "\(signedIn.text)")
            let claims = try TenantRoutesTests.claims(try #require(signedIn["idToken"] as? String))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "passkey" && claims["sub"] as? String == localID)
            let (again, _) = try await Self.signIn(client, authenticator)
            #expect(again["idToken"] != nil, "the counter grows: \(again.text)")
        }
    }

    /// Every way in an attacker would try: each refused, with the reason in `INVALID_AUTHENTICATOR_RESPONSE`.
    @Test func abusesAreRefused() async throws {
        try await Self.withUser { app, _, client, idToken, localID in
            let authenticator = try SoftwareAuthenticator()
            let (enrolled, made) = try await Self.enroll(client, authenticator, idToken)
            #expect(enrolled["idToken"] != nil, "\(enrolled.text)")
            let credential = try #require(made["id"] as? String)

            // A replayed assertion: its challenge is used up.
            let (first, assertion) = try await Self.signIn(client, authenticator)
            #expect(first["idToken"] != nil, "\(first.text)")
            let replay = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": assertion])
            #expect(replay.errorMessage?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE : The challenge is unknown, used or expired") == true,
                    "\(replay.text)")
            // A phishing origin, another relying party, no user verification, no presence.
            let refusals: [([String: Any], String)] = [
                (["origin": "https://examp1e.com"], "The origin https://examp1e.com is not among passkeyConfig.expectedOrigins."),
                (["rpId": "evil.example"], "The authenticator data is for another relying party id."),
                (["userVerified": false], "The authenticator did not verify the user, and this project requires it."),
                (["userPresent": false], "The authenticator did not confirm user presence."),
            ]
            for (tweaks, reason) in refusals {
                let start = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
                var forged = try authenticator.get(try start.object(), origin: tweaks["origin"] as? String ?? Self.origin, tweaks)
                forged["id"] = credential
                let reply = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": forged])
                #expect(reply.errorMessage == "INVALID_AUTHENTICATOR_RESPONSE : \(reason)", "\(tweaks): \(reply.text)")
            }
            // A counter lower than the last one seen: a cloned key.
            let (low, _) = try await Self.signIn(client, authenticator, ["counter": 1])
            #expect(low.errorMessage?.contains("The signature counter went backwards (1 after") == true, "\(low.text)")

            // Someone else's challenge: another user's enrollment challenge, or a sign-in challenge, for an enrollment.
            let other = try #require(try await client.signUp("other@example.com")["idToken"] as? String)
            let theirs = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": other])
            let stolen = try authenticator.create(try theirs.object(), origin: Self.origin)
            let misuse = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["idToken": idToken, "authenticatorRegistrationResponse": stolen])
            #expect(misuse.errorMessage?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE : The challenge is unknown") == true, "\(misuse.text)")
            let signInStart = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
            let mine = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
            let crossed = try authenticator.create(try mine.object(), origin: Self.origin,
                                                   ["challenge": (signInStart["credentialRequestOptions"] as? [String: Any])?["challenge"] ?? ""])
            let crossedReply = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["idToken": idToken, "authenticatorRegistrationResponse": crossed])
            #expect(crossedReply.errorMessage?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE : The challenge is unknown") == true,
                    "a sign-in challenge cannot enroll: \(crossedReply.text)")

            // Another user's credential: theirs answers with my user handle, or my id is signed with their key.
            let (theirEnrollment, theirCredential) = try await Self.enroll(client, authenticator, other)
            #expect(theirEnrollment["idToken"] != nil)
            let (wrongHandle, _) = try await Self.signIn(client, authenticator, [
                "credentialId": theirCredential["id"]!, "userHandle": Base64URL.encode(Data(localID.utf8))])
            #expect(wrongHandle.errorMessage == "INVALID_AUTHENTICATOR_RESPONSE : The user handle is not the credential's account.",
                    "\(wrongHandle.text)")
            let (wrongKey, _) = try await Self.signIn(client, authenticator, ["credentialId": credential, "signWith": theirCredential["id"]!])
            #expect(wrongKey.errorMessage == "INVALID_AUTHENTICATOR_RESPONSE : The signature does not verify.", "\(wrongKey.text)")

            // An enrollment whose response names another credential id than its authenticator data.
            let start = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
            var renamed = try authenticator.create(try start.object(), origin: Self.origin)
            renamed["id"] = credential
            let renamedReply = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["idToken": idToken, "authenticatorRegistrationResponse": renamed])
            #expect(renamedReply.errorMessage == "INVALID_AUTHENTICATOR_RESPONSE : The credential id does not match the authenticator data.",
                    "\(renamedReply.text)")
            // Garbage where CBOR belongs is refused as malformed, never a crash or a 500.
            let junk = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
            var broken = try authenticator.create(try junk.object(), origin: Self.origin)
            var response = try #require(broken["response"] as? [String: Any])
            response["attestationObject"] = Base64URL.encode(Data([0xbf, 0x61, 0x61, 0x01, 0xff]))
            broken["response"] = response
            let brokenReply = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["idToken": idToken, "authenticatorRegistrationResponse": broken])
            #expect(brokenReply.errorMessage?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE : Malformed response: attestationObject is not CBOR") == true,
                    "\(brokenReply.text)")
            // An expired challenge.
            let late = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
            app.clock.advance(by: 301)
            let lateAssertion = try authenticator.get(try late.object(), origin: Self.origin, ["credentialId": credential])
            let lateReply = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": lateAssertion])
            #expect(lateReply.errorMessage?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE : The challenge is unknown") == true, "\(lateReply.text)")
            #expect(try await PasskeyRoutesTests.passkeys(client, idToken).count == 1, "nothing refused was stored")
        }
    }

    /// A cloned key: two assertions with one counter value, sent at the same moment (each verified against the
    /// stored counter before either writes). The counter is written compare-and-set, so exactly one signs in.
    @Test func racingAssertionsWithOneCounterSignInOnce() async throws {
        try await Self.withUser { _, _, client, idToken, _ in
            let authenticator = try SoftwareAuthenticator()
            _ = try await Self.enroll(client, authenticator, idToken)
            var assertions: [[String: Any]] = []
            for _ in 0..<2 {
                let start = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
                assertions.append(try authenticator.get(try start.object(), origin: Self.origin, ["counter": 7]))
            }
            let bodies = try assertions.map { try JSONSerialization.data(withJSONObject: ["authenticatorAuthenticationResponse": $0]) }
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for body in bodies {
                    group.addTask {
                        try await client.post("\(Self.v2)/passkeySignIn:finalize", raw: String(decoding: body, as: UTF8.self))
                    }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.filter { $0["idToken"] != nil }.count == 1, "\(replies.map(\.text))")
            #expect(replies.contains { $0.errorMessage?.contains("The signature counter went backwards (7 after 7)") == true })
        }
    }

    /// User verification as the relying party says; a tenant's own relying party; Apple's standard base64 ids.
    @Test func policyTenantsAndAppleEncodings() async throws {
        try await Self.withUser { app, signer, client, idToken, _ in
            _ = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.config + "?updateMask=requireUserVerification",
                                                    ["requireUserVerification": false])
            let authenticator = try SoftwareAuthenticator()
            let (enrolled, made) = try await Self.enroll(client, authenticator, idToken, ["userVerified": false])
            #expect(enrolled["idToken"] != nil, "UV not required: \(enrolled.text)")
            let start = try await client.post("\(Self.v2)/passkeySignIn:start", [String: Any]())
            #expect((start["credentialRequestOptions"] as? [String: Any])?["userVerification"] as? String == "preferred")
            // Apple's platforms send ids and handles in standard base64.
            var assertion = try authenticator.get(try start.object(), origin: Self.origin, ["userVerified": false])
            let raw = try #require(Base64URL.decode(made["id"] as! String))
            assertion["id"] = raw.base64EncodedString()
            let signedIn = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": assertion])
            #expect(signedIn["idToken"] != nil, "\(signedIn.text)")
            let removed = try await client.post(Endpoints.update.path,
                                                ["idToken": try #require(signedIn["idToken"] as? String), "deletePasskey": [raw.base64EncodedString()]])
            let left = try await PasskeyRoutesTests.passkeys(client, idToken)
            #expect(removed.status == 200 && left.isEmpty, "\(removed.text)")

            // A tenant with its own relying party (its id kept in one spelling: lower case, as it is hashed); an origin
            // outside the rp id is refused as config.
            let tenantConfig = Self.config.replacingOccurrences(of: "/passkeyConfig", with: "/tenants/acme-a1b2c/passkeyConfig")
            let bad = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, tenantConfig,
                                                          ["rpId": "acme.example", "expectedOrigins": ["https://evil.example"]])
            #expect(bad.errorMessage?.hasPrefix("INVALID_CONFIG") == true, "\(bad.text)")
            // A browser reads this one's host as evil.example (Foundation as acme.example): refused too.
            let tricked = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, tenantConfig,
                                                              ["rpId": "acme.example", "expectedOrigins": [#"https://evil.example\@login.acme.example"#]])
            #expect(tricked.errorMessage?.hasPrefix("INVALID_CONFIG") == true, "\(tricked.text)")
            let good = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, tenantConfig,
                                                           ["rpId": "ACME.example", "expectedOrigins": ["HTTPS://Login.acme.example:443"]])
            #expect(good["name"] as? String == "projects/demo-project/tenants/acme-a1b2c/passkeyConfig", "\(good.text)")
            let tenantStart = try await client.post("\(Self.v2)/passkeySignIn:start", ["tenantId": "acme-a1b2c"])
            #expect((tenantStart["credentialRequestOptions"] as? [String: Any])?["rpId"] as? String == "acme.example", "\(tenantStart.text)")
            let read = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get, Self.config, nil)
            #expect(read["rpId"] as? String == "example.com" && read["requireUserVerification"] as? Bool == false, "\(read.text)")
            let whole = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get,
                                                            Self.config.replacingOccurrences(of: "/passkeyConfig", with: "/config"), nil)
            #expect((whole["passkeyConfig"] as? [String: Any])?["rpId"] as? String == "example.com", "the config shows it: \(whole.text)")
            let tenant = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get,
                                                             tenantConfig.replacingOccurrences(of: "/passkeyConfig", with: ""), nil)
            #expect((tenant["passkeyConfig"] as? [String: Any])?["rpId"] as? String == "acme.example", "and the tenant: \(tenant.text)")
            #expect((tenant["passkeyConfig"] as? [String: Any])?["expectedOrigins"] as? [String] == ["https://login.acme.example"],
                    "kept as a browser serializes the origin: \(tenant.text)")
        }
    }
}
