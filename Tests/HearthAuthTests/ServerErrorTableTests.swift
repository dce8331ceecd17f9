import Foundation
@testable import HearthAuth
import HearthWire
import Testing

/// The server-code table, entry by entry, through the real decoding path (an HTTP 400 in Google's envelope).
@Suite struct ServerErrorTableTests {
    static let entries = ServerErrorTable.codes.sorted { $0.key < $1.key }

    @Test(arguments: entries)
    func eachServerCodeBecomesItsAuthErrorCode(_ entry: (key: String, value: AuthErrorCode)) throws {
        let (status, json) = errorBody("\(entry.key) : detail for \(entry.key)")
        let response = AuthHTTPResponse(status: status, body: try JSONSerialization.data(withJSONObject: json))
        do {
            _ = try AuthBackend.interpret(response, as: NoBody.self)
            Issue.record("\(entry.key) was not an error")
        } catch let error as NSError {
            #expect(error.domain == "FIRAuthErrorDomain")
            #expect(error.code == entry.value.rawValue, "\(entry.key)")
            #expect(error.userInfo[AuthErrorUserInfoNameKey] as? String == entry.value.errorName)
            #expect(error.localizedDescription == "detail for \(entry.key)", "the server's detail is the description")
        }
    }

    @Test func firebaseRawValuesAndNames() {
        #expect(AuthErrorCode.invalidCustomToken.rawValue == 17000)
        #expect(AuthErrorCode.credentialAlreadyInUse.rawValue == 17025)
        #expect(AuthErrorCode.secondFactorRequired.rawValue == 17078)
        #expect(AuthErrorCode.internalError.rawValue == 17999)
        #expect(AuthErrorCode.wrongPassword.errorName == "ERROR_WRONG_PASSWORD")
        #expect(AuthErrorCode.invalidAPIKey.errorName == "ERROR_INVALID_APIKEY")
        #expect(Set(AuthErrorCode.allCases.map(\.rawValue)).count == AuthErrorCode.allCases.count)
    }

    @Test func codesWithoutDetailGetFirebaseMessages() throws {
        let error = ServerErrorTable.error(message: "EMAIL_EXISTS")
        #expect(error.code == AuthErrorCode.emailAlreadyInUse.rawValue)
        #expect(error.localizedDescription == "The email address is already in use by another account.")
    }

    @Test func apiKeyUnknownCodesNetworkAndGarbage() async throws {
        let key = ServerErrorTable.error(message: "API key not valid. Please pass a valid API key.", reasons: ["keyInvalid"])
        #expect(key.code == AuthErrorCode.invalidAPIKey.rawValue)
        let unknown = ServerErrorTable.error(message: "SOMETHING_NEW : what")
        #expect(unknown.code == AuthErrorCode.internalError.rawValue)

        let garbage = AuthHTTPResponse(status: 502, body: Data("<html>bad gateway</html>".utf8))
        #expect(throws: NSError.self) { try AuthBackend.interpret(garbage, as: NoBody.self) }
        do { _ = try AuthBackend.interpret(garbage, as: NoBody.self) } catch let error as NSError {
            #expect(error.code == AuthErrorCode.internalError.rawValue)
        }

        struct Down: AuthTransport {
            func send(_ request: AuthHTTPRequest) async throws -> AuthHTTPResponse { throw URLError(.cannotConnectToHost) }
        }
        let auth = Auth.auth(options: AuthOptions(apiKey: "k", endpoints: .emulator(host: "127.0.0.1", port: 1),
                                                  appName: UUID().uuidString, persistence: .memory, transport: Down()))
        do {
            _ = try await auth.signIn(withEmail: "a@b.c", password: "x")
            Issue.record("no error")
        } catch let error as NSError {
            #expect(error.code == AuthErrorCode.networkError.rawValue && error.userInfo[NSUnderlyingErrorKey] != nil)
        }
    }

    @Test func aCredentialInUseCarriesTheUpdatedCredentialAndTheSameObjectSignsInWithIt() async throws {
        let transport = standardServer(uid: "owner") { path, body in
            guard path.hasSuffix("accounts:signInWithIdp") else { return nil }
            if body["idToken"] != nil {
                return (200, ["providerId": "google.com", "federatedId": "g-1", "email": "owner@example.com",
                              "errorMessage": "FEDERATED_USER_ID_ALREADY_LINKED", "pendingToken": "PENDING-1"])
            }
            guard body["pendingToken"] as? String == "PENDING-1", body["postBody"] as? String == "providerId=google.com" else {
                return errorBody("INVALID_IDP_RESPONSE : the ID token was already used")
            }
            return (200, ["providerId": "google.com", "federatedId": "g-1", "idToken": fakeIDToken(uid: "owner"),
                          "refreshToken": "r", "expiresIn": "3600", "localId": "owner"])
        }
        let auth = makeAuth(transport)
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user
        let credential = GoogleAuthProvider.credential(withIDToken: "single.use.token", accessToken: "at")
        do {
            _ = try await user.link(with: credential)
            Issue.record("linking succeeded")
        } catch let error as NSError {
            #expect(error.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
            #expect(error.userInfo[AuthErrorUserInfoEmailKey] as? String == "owner@example.com")
            let updated = try #require(error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            #expect(updated.provider == "google.com" && updated.pendingToken == "PENDING-1")
        }
        let merged = try await auth.signIn(with: credential)
        #expect(merged.user.uid == "owner", "the guide's merge path: the same credential signs in to the owner")
    }

    @Test func needConfirmationIsAccountExistsWithDifferentCredential() async throws {
        let transport = standardServer { path, _ in
            guard path.hasSuffix("accounts:signInWithIdp") else { return nil }
            return (200, ["providerId": "facebook.com", "federatedId": "f", "email": "ada@example.com",
                          "needConfirmation": true, "pendingToken": "P2"])
        }
        let auth = makeAuth(transport)
        do {
            _ = try await auth.signIn(with: FacebookAuthProvider.credential(withAccessToken: "fb"))
            Issue.record("no error")
        } catch let error as NSError {
            #expect(error.code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue)
            #expect(error.userInfo[AuthErrorUserInfoEmailKey] as? String == "ada@example.com")
            #expect((error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)?.pendingToken == "P2")
        }
    }
}
