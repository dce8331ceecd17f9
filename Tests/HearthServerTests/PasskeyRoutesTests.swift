import Foundation
import HearthCore
import HearthServer
import HTTPTypes
import HearthWire
import Testing

/// Passkeys as Firebase's emulator serves them (a mock that checks no signature), in emulator mode; production
/// refuses them until the project has a relying party (PasskeyVerificationTests verifies them for real).
@Suite struct PasskeyRoutesTests {
    static let v2 = "/identitytoolkit.googleapis.com/v2/accounts"
    static let lookup = Endpoints.lookup.path

    static func passkeys(_ client: Client, _ idToken: Any) async throws -> [[String: Any]] {
        let reply = try await client.post(lookup, ["idToken": idToken])
        return ((reply["users"] as? [[String: Any]])?.first?["passkeyInfo"] as? [[String: Any]]) ?? []
    }

    @Test func enrollSignInAndRemoveInEmulatorMode() async throws {
        try await TestApp(mode: .emulator).run { client in
            let user = try await client.signUp("pk@example.com")
            let options = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": user["idToken"]!])
            let creation = try #require(options["credentialCreationOptions"] as? [String: Any], "\(options.text)")
            #expect((creation["rp"] as? [String: String])?["id"] == "localhost" && creation["challenge"] is String)

            for (id, name) in [("cred-a", "Key A"), ("cred-b", "Key B")] {
                let enrolled = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", [
                    "idToken": user["idToken"]!, "authenticatorRegistrationResponse": ["id": id], "name": name])
                #expect(enrolled["localId"] as? String == user["localId"] as? String && enrolled["idToken"] is String,
                        "\(enrolled.text)")
            }
            #expect(try await Self.passkeys(client, user["idToken"]!).map { $0["name"] as? String } == ["Key A", "Key B"])

            let signedIn = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "cred-b"]])
            #expect(signedIn["localId"] as? String == user["localId"] as? String, "\(signedIn.text)")
            let claims = try TenantRoutesTests.claims(try #require(signedIn["idToken"] as? String))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "passkey")

            let removed = try await client.post(Endpoints.update.path,
                                                ["idToken": user["idToken"]!, "deletePasskey": ["cred-a", "not-mine"]])
            #expect(removed.status == 200, "\(removed.text)")
            #expect(try await Self.passkeys(client, user["idToken"]!).map { $0["credentialId"] as? String } == ["cred-b"])
            let gone = try await client.post("\(Self.v2)/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "cred-a"]])
            #expect(gone.errorMessage == "PASSKEY_CREDENTIAL_NOT_FOUND")
        }
    }

    /// Names are bounded and printable, an account holds a bounded number of passkeys, and the ceremony's start is
    /// limited per address in production (each stores a challenge).
    @Test func namesAndCountsAreBounded() async throws {
        try await TestApp(mode: .emulator).run { client in
            let idToken = try #require(try await client.signUp("bounded@example.com")["idToken"] as? String)
            func enroll(_ id: String, _ name: String) async throws -> Reply {
                try await client.post("\(Self.v2)/passkeyEnrollment:finalize", [
                    "idToken": idToken, "authenticatorRegistrationResponse": ["id": id], "name": name])
            }
            for name in [String(repeating: "n", count: Passkeys.maximumNameLength + 1), "Key\nAdmin", "Key\u{202E}nimdA"] {
                let refused = try await enroll("cred-bad", name)
                #expect(refused.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(name.debugDescription): \(refused.text)")
            }
            #expect((try await enroll("cred-long", String(repeating: "é", count: Passkeys.maximumNameLength))).status == 200)
            for index in 1..<Passkeys.maximumPerAccount { #expect((try await enroll("cred-\(index)", "Key \(index)")).status == 200) }
            let full = try await enroll("cred-extra", "One too many")
            #expect(full.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true && full.text.contains("at most"), "\(full.text)")
            let start = try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken])
            #expect(start.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "no room for another: \(start.text)")
            #expect(try await Self.passkeys(client, idToken).count == Passkeys.maximumPerAccount)
        }
        var app = TestApp()
        app.configuration.rateLimits.passkeyChallengesPerAddress = .init(limit: 3, window: 600)
        try await app.run { client in
            let idToken = try #require(try await client.signUp("limited@example.com")["idToken"] as? String)
            var answers: [String] = []
            for _ in 0..<5 {
                answers.append(try await client.post("\(Self.v2)/passkeyEnrollment:start", ["idToken": idToken]).errorMessage ?? "ok")
            }
            #expect(answers.filter { $0.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") }.count == 2, "\(answers)")
        }
    }

    /// A credential id belongs to one account: enrolled again, by its owner or another account (even at the same
    /// moment), it is `CREDENTIAL_ALREADY_IN_USE`, and the other account is left as it was.
    @Test func aCredentialIsEnrolledOnceEvenWhenTwoAccountsRace() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let first = try #require(try await client.signUp("one@example.com")["idToken"] as? String)
            let second = try #require(try await client.signUp("two@example.com")["idToken"] as? String)
            @Sendable func enroll(_ idToken: String, _ id: String) async throws -> Reply {
                try await client.post("\(Self.v2)/passkeyEnrollment:finalize", [
                    "idToken": idToken, "authenticatorRegistrationResponse": ["id": id]])
            }
            async let a = enroll(first, "shared-cred")
            async let b = enroll(second, "shared-cred")
            let replies = try await [a, b]
            #expect(replies.filter { $0.status == 200 }.count == 1, "\(replies.map(\.text))")
            #expect(replies.contains { $0.errorMessage == "CREDENTIAL_ALREADY_IN_USE" })
            let owners = try await [Self.passkeys(client, first), Self.passkeys(client, second)]
            #expect(owners.map(\.count).sorted() == [0, 1])
            let winner = replies[0].status == 200 ? first : second
            #expect(try await enroll(winner, "shared-cred").errorMessage == "CREDENTIAL_ALREADY_IN_USE")
            let named = try #require(try await Self.passkeys(client, winner).first?["name"] as? String)
            #expect(named == "Unnamed Passkey")
        }
    }

    @Test func missingFieldsAreNamed() async throws {
        try await TestApp(mode: .emulator).run { client in
            #expect(try await client.post("\(Self.v2)/passkeyEnrollment:start", [String: Any]()).errorMessage == "MISSING_ID_TOKEN")
            let noToken = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["authenticatorRegistrationResponse": ["id": "x"]])
            #expect(noToken.errorMessage == "MISSING_ID_TOKEN")
            let noResponse = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", ["idToken": "some-token"])
            #expect(noResponse.errorMessage == "MISSING_AUTHENTICATOR_RESPONSE")
            let user = try await client.signUp("empty@example.com")
            let noID = try await client.post("\(Self.v2)/passkeyEnrollment:finalize", [
                "idToken": user["idToken"]!, "authenticatorRegistrationResponse": ["type": "public-key"]])
            #expect(noID.errorMessage == "INVALID_CREDENTIAL_ID")
            #expect(try await client.post("\(Self.v2)/passkeySignIn:finalize", [String: Any]()).errorMessage == "MISSING_AUTHENTICATOR_RESPONSE")
        }
    }

    /// Production verifies every ceremony against the project's relying party: without `passkeyConfig`, every
    /// passkey call is refused, saying what to set.
    @Test func productionRefusesPasskeysUntilARelyingPartyIsSet() async throws {
        try await TestApp(mode: .production).run { client in
            let user = try await client.signUp("prod@example.com")
            for (path, body) in [("passkeyEnrollment:start", ["idToken": user["idToken"]!]),
                                 ("passkeyEnrollment:finalize", ["idToken": user["idToken"]!, "authenticatorRegistrationResponse": ["id": "c"]]),
                                 ("passkeySignIn:start", [String: Any]()),
                                 ("passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "c"]])] {
                let reply = try await client.post("\(Self.v2)/\(path)", body)
                #expect(reply.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED : Passkeys need a relying party first: set passkeyConfig") == true,
                        "\(path): \(reply.text)")
            }
            #expect(try await Self.passkeys(client, user["idToken"]!).isEmpty)
        }
    }
}
