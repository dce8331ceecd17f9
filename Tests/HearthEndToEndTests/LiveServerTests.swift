import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthServer
import HearthSQLite
import Hummingbird
import HummingbirdTesting
import HearthWire
import Testing

/// A real server on an ephemeral loopback port, on a real SQLite file, driven over HTTP.
@Suite struct LiveServerTests {
    static let apiKey = "e2e-api-key"

    func withServer(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteStore) async throws -> Void) async throws {
        let store = try await SQLiteStore.temporary()
        try await store.migrate()
        let configuration = ServerConfiguration(port: 0, projectID: "e2e-project", initialAPIKey: Self.apiKey)
        let hashing = ThreadPoolWorkRunner(threads: 2)
        let app = try await buildApplication(configuration: configuration, store: store, hashing: hashing,
                                             hashParameters: { .generate(memoryCost: 12) })
        do {
            try await app.test(.live) { client in try await body(client, store) }
        } catch {
            try await hashing.shutdown()
            try await store.close()
            throw error
        }
        try await hashing.shutdown()
        try await store.close()
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: [String: Any]) async throws
        -> (status: Int, json: [String: Any])
    {
        let response = try await client.execute(
            uri: path + "?key=" + apiKey, method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }

    @Test func signUpSignInRefreshLookupDelete() async throws {
        try await withServer { client, store in
            let v1 = "/identitytoolkit.googleapis.com/v1"
            let signUp = try await Self.post(client, Endpoints.signUp.path,
                                             ["email": "e2e@example.com", "password": "secret123"])
            #expect(signUp.status == 200)
            let localID = try #require(signUp.json["localId"] as? String)
            let stored = try #require(try await store.user(projectID: "e2e-project", tenantID: nil, localID: localID))
            #expect(stored.passwordHash?.hasPrefix("$fbscrypt$v=1,n=4096,r=8,p=1,") == true, "hash at rest, never the password")

            let signIn = try await Self.post(client, Endpoints.signInWithPassword.path,
                                             ["email": "E2E@example.com", "password": "secret123"])
            #expect(signIn.status == 200)
            let refresh = try await Self.post(client, "/securetoken.googleapis.com/v1/token",
                                              ["grant_type": "refresh_token", "refresh_token": signIn.json["refreshToken"]!])
            #expect(refresh.status == 200)
            #expect(refresh.json["user_id"] as? String == localID)
            let lookup = try await Self.post(client, Endpoints.lookup.path, ["idToken": refresh.json["id_token"]!])
            #expect((lookup.json["users"] as? [[String: Any]])?.first?["localId"] as? String == localID)
            let delete = try await Self.post(client, Endpoints.delete.path, ["idToken": signIn.json["idToken"]!])
            #expect(delete.status == 200)
            #expect(try await store.user(projectID: "e2e-project", tenantID: nil, localID: localID) == nil)
            let afterDelete = try await Self.post(client, "/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": signIn.json["refreshToken"]!])
            #expect(afterDelete.status == 400)
        }
    }

    @Test func concurrentSignUpsWithOneEmailHaveExactlyOneWinner() async throws {
        try await withServer { client, store in
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                // Each on a connection of its own, with a patient timeout: pipelined on the test client's one
                // connection, six sign-ups waited past its 20 s read timeout on a busy machine.
                let url = URL(string: "http://127.0.0.1:\(client.port!)/identitytoolkit.googleapis.com/v1/accounts:signUp?key=\(Self.apiKey)")!
                for _ in 0..<6 {
                    group.addTask {
                        var request = URLRequest(url: url)
                        request.httpMethod = "POST"
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.httpBody = try JSONSerialization.data(withJSONObject: ["email": "race@example.com", "password": "secret123"])
                        request.timeoutInterval = 300
                        let (data, response) = try await URLSession.shared.data(for: request)
                        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (json["error"] as? [String: Any])?["message"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            #expect(statuses.filter { $0.1 == "EMAIL_EXISTS" }.count == 5)
        }
    }
}
