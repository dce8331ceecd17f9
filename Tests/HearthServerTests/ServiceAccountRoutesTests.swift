import Foundation
import HTTPTypes
import HearthCore
import Testing

/// Service accounts (`v1/projects/{project}/serviceAccounts`, `hearth service-accounts`): a new account's key works
/// at once, on every name of the routes it may call.
@Suite struct ServiceAccountRoutesTests {
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    /// A service account created while the server runs (by `hearth service-accounts create`, straight into the
    /// store) signs custom tokens every name accepts at once, without waiting for the project cache.
    @Test func aNewServiceAccountsCustomTokensWorkOnEveryNameAtOnce() async throws {
        let app = CredentialGuardsTests.productionApp()
        try await app.run { client in
            _ = try await client.signUp("warm@example.com")  // the project is cached now
            let signer = try await CredentialGuardsTests.register(app, name: "minted-later")
            for (index, path) in [Self.v3 + "/verifyCustomToken", Self.v1 + "/accounts:signInWithCustomToken"].enumerated() {
                let token = try await signer.customToken(uid: "custom-\(index)")
                let reply = try await client.post(path, ["token": token, "returnSecureToken": true])
                #expect(reply.status == 200, "\(path): \(reply.text)")
            }
            let stranger = try await ServiceAccountSigner(
                keyFile: try ServiceAccountKey.generate(name: "stranger", projectID: "demo-project", now: Date()).keyFileJSON)
            let refused = try await client.post(Self.v3 + "/verifyCustomToken", ["token": try await stranger.customToken(uid: "x")])
            #expect(refused.errorMessage?.hasPrefix("CREDENTIAL_MISMATCH") == true, "\(refused.text)")
        }
    }
}
