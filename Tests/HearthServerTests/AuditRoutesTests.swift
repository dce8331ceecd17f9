import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// The audit log: what security events are kept, from where and by whom, and how an operator reads them.
@Suite struct AuditRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let events = "\(v1)/projects/demo-project/auditEvents"

    @Test func signInsPasswordChangesAndAdminChangesAreKeptWithAddressAndActor() async throws {
        var app = CredentialGuardsTests.productionApp()
        app.configuration.trustForwardedFor = true
        let signer = try await CredentialGuardsTests.register(app)
        let clock = app.clock
        try await app.run { client in
            let from = ["X-Forwarded-For": "198.51.100.7"]
            let headers = HTTPFields(from.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) })
            let user = try await client.post(Endpoints.signUp.path, ["email": "audit@example.com", "password": "secret1"],
                                             headers: headers).object()
            let localID = try #require(user["localId"] as? String)
            let idToken = try #require(user["idToken"] as? String)
            clock.advance(by: 1)
            _ = try await client.post(Endpoints.signInWithPassword.path,
                                      ["email": "audit@example.com", "password": "wrong-guess"], headers: headers)
            clock.advance(by: 1)
            _ = try await client.post(Endpoints.signInWithPassword.path,
                                      ["email": "audit@example.com", "password": "secret1"], headers: headers)
            clock.advance(by: 1)
            _ = try await client.post(Endpoints.update.path, ["idToken": idToken, "password": "secret2"], headers: headers)
            clock.advance(by: 1)
            let disable = try await client.post("\(Self.v1)/projects/demo-project/accounts:update",
                                                ["localId": localID, "disableUser": true], key: nil,
                                                headers: CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: clock.now())))
            #expect(disable.status == 200, "\(disable.text)")

            let listed = try await client.send(.get, Self.events, key: nil,
                                               headers: CredentialGuardsTests.bearer(try await signer.assertion(audience: CredentialGuardsTests.audience, now: clock.now())))
            #expect(listed.status == 200, "\(listed.text)")
            let events = try #require(try listed.object()["events"] as? [[String: Any]])
            let types = events.compactMap { $0["type"] as? String }
            // Newest first; the admin call and the change it made happen at the same instant.
            #expect(Set(types.prefix(2)) == ["admin-call", "account-disabled"], "\(types)")
            #expect(Array(types.dropFirst(2)) == ["password-changed", "sign-in", "sign-in-failed", "sign-up"], "\(types)")
            let failed = try #require(events.first { $0["type"] as? String == "sign-in-failed" })
            #expect(failed["outcome"] as? String == "FAILURE")
            #expect(failed["clientAddress"] as? String == "198.51.100.7")
            #expect(failed["localId"] as? String == localID)
            #expect((failed["details"] as? [String: String])?["reason"] == "wrong password")
            let disabled = try #require(events.first { $0["type"] as? String == "account-disabled" })
            #expect((disabled["details"] as? [String: String])?["actor"] == signer.email, "admin changes name their service account")
            #expect(!listed.text.contains("secret1") && !listed.text.contains("secret2") && !listed.text.contains(idToken),
                    "no password or token in the audit log")
        }
    }

    @Test func filtersAndPagesReadTheLogAsOperatorsNeed() async throws {
        var app = TestApp(mode: .emulator)
        app.configuration.projectID = "demo-project"
        let clock = app.clock
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            var ids: [String] = []
            for index in 0..<3 {
                let user = try await client.signUp("page\(index)@example.com")
                ids.append(try #require(user["localId"] as? String))
                clock.advance(by: 10)
            }
            let page1 = try await client.send(.get, Self.events + "?pageSize=2", key: nil, headers: owner).object()
            let token = try #require(page1["nextPageToken"] as? String)
            let page2 = try await client.send(.get, Self.events + "?pageSize=2&pageToken=\(token)", key: nil, headers: owner).object()
            let users = ((page1["events"] as? [[String: Any]] ?? []) + (page2["events"] as? [[String: Any]] ?? []))
                .compactMap { $0["localId"] as? String }
            #expect(users == ids.reversed(), "two pages, newest first, nothing twice: \(users)")
            let one = try await client.send(.get, Self.events + "?localId=\(ids[1])&type=sign-up", key: nil, headers: owner).object()
            #expect((one["events"] as? [[String: Any]])?.count == 1)
            for (query, named) in [("startTime=yesterday", "startTime"), ("pageSize=0", "pageSize"),
                                   ("pageSize=5000", "pageSize"), ("pageToken=not-a-cursor", "pageToken")] {
                let bad = try await client.send(.get, Self.events + "?" + query, key: nil, headers: owner)
                #expect(bad.status == 400 && bad.text.contains(named), "\(query): \(bad.text)")
            }
            let since = try await client.send(.get, Self.events + "?startTime=2000-01-01T00:00:00.5Z", key: nil, headers: owner)
            #expect(since.status == 200, "fractional seconds are RFC 3339 too: \(since.text)")
            let anonymous = try await client.send(.get, Self.events, key: TestApp.apiKey)
            #expect(anonymous.status >= 400, "an API key does not read the audit log")
        }
    }
}
