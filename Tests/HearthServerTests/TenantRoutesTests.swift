import Foundation
import HearthCore
import Hummingbird
import HearthWire
import Testing

/// Tenants: the `v2/projects/{p}/tenants` resource, and client calls acting inside the tenant they name.
@Suite struct TenantRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let tenants = "/identitytoolkit.googleapis.com/v2/projects/demo-project/tenants"
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    /// The JSON payload of an ID token (no verification: the server's tests do that).
    static func claims(_ token: String) throws -> [String: Any] {
        var part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return try #require(JSONSerialization.jsonObject(with: Data(base64Encoded: part)!) as? [String: Any])
    }

    static func seed(_ app: TestApp, _ tenants: TenantRecord...) async throws {
        for tenant in tenants { try await app.store.insertTenant(tenant) }
    }

    @Test func tenantsAreCreatedReadListedPatchedAndDeleted() async throws {
        try await TestApp(mode: .emulator).run { client in
            var ids: [String] = []
            for name in ["Acme", "Globex", "Initech"] {
                let created = try await client.post(Self.tenants, ["displayName": name, "allowPasswordSignup": true],
                                                    key: nil, headers: Self.owner)
                #expect(created.status == 200, "\(created.text)")
                let id = try #require(created["tenantId"] as? String)
                #expect(id.hasPrefix(name.lowercased() + "-") && created["name"] as? String == "projects/demo-project/tenants/\(id)")
                #expect(created["enableAnonymousUser"] as? Bool == false, "production's defaults: off unless asked")
                ids.append(id)
            }
            let first = try await client.send(.get, Self.tenants + "?pageSize=2", key: nil, headers: Self.owner)
            let firstPage = try #require(first["tenants"] as? [[String: Any]]).compactMap { $0["tenantId"] as? String }
            #expect(firstPage == Array(ids.sorted().prefix(2)))
            let token = try #require(first["nextPageToken"] as? String)
            let second = try await client.send(.get, Self.tenants + "?pageSize=2&pageToken=\(token)", key: nil, headers: Self.owner)
            #expect((second["tenants"] as? [[String: Any]])?.compactMap { $0["tenantId"] as? String } == [ids.sorted()[2]])
            #expect(second["nextPageToken"] == nil)

            let path = Self.tenants + "/" + ids[0]
            let patched = try await client.send(.patch, path + "?updateMask=displayName,mfaConfig", [
                "displayName": "Acme-Corp", "disableAuth": true,
                "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]],
            ], key: nil, headers: Self.owner)
            #expect(patched["displayName"] as? String == "Acme-Corp", "\(patched.text)")
            #expect(patched["disableAuth"] as? Bool == false, "not in the mask: unchanged")
            #expect((patched["mfaConfig"] as? [String: Any])?["state"] as? String == "ENABLED")
            #expect(try await client.send(.get, path, key: nil, headers: Self.owner)["displayName"] as? String == "Acme-Corp")
            let badName = try await client.send(.patch, path, ["displayName": "Acme Corp"], key: nil, headers: Self.owner)
            #expect(badName.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "Firebase's display-name rule: \(badName.text)")

            #expect(try await client.send(.delete, path, key: nil, headers: Self.owner).status == 200)
            // (A GET would make it again: emulator mode creates tenants on first use, as Firebase's emulator.)
            let listed = try await client.send(.get, Self.tenants, key: nil, headers: Self.owner)
            #expect((listed["tenants"] as? [[String: Any]])?.contains { $0["tenantId"] as? String == ids[0] } == false)
            let again = try await client.send(.delete, path, key: nil, headers: Self.owner)
            #expect(again.errorMessage?.hasPrefix("TENANT_NOT_FOUND") == true)
            let anonymous = try await client.send(.get, Self.tenants, key: TestApp.apiKey)
            #expect(anonymous.status >= 400 && anonymous["tenants"] == nil, "tenants are an administrator's: \(anonymous.text)")
        }
    }

    /// Two administrators patching one tenant at once, each a different field: every change lands.
    @Test func racingPatchesKeepEveryChange() async throws {
        let app = TestApp(mode: .emulator)
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-race"))
        try await app.run { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let number = "+1555555030\(index)"
                        let reply = try await client.send(.patch, Self.tenants + "/t-race?updateMask=testPhoneNumbers", [
                            "testPhoneNumbers": [number: "12345\(index)"],
                        ], key: nil, headers: Self.owner)
                        #expect(reply.status == 200, "\(reply.text)")
                    }
                    group.addTask {
                        _ = try await client.send(.patch, Self.tenants + "/t-race?updateMask=enableAnonymousUser",
                                                  ["enableAnonymousUser": true], key: nil, headers: Self.owner)
                    }
                }
                try await group.waitForAll()
            }
        }
        let final = try #require(try await app.store.tenant(projectID: "demo-project", id: "t-race"))
        // Each patch replaces the map (Firebase's semantics), so the last one's number stands; none was lost
        // half-written, and the other field's writes all landed.
        #expect(final.testPhoneNumbers.count == 1 && final[.anonymousSignIn], "\(final)")
        #expect(final.version == 12, "every one of the 12 patches wrote once: \(final.version)")
    }

    /// Production: naming a tenant that does not exist is an error, never a sign-up in the project.
    @Test func anUnknownTenantIsRefusedInProduction() async throws {
        let app = TestApp()
        try await app.run { client in
            let reply = try await client.post(Self.v1 + "/accounts:signUp",
                                              ["email": "ada@example.com", "password": "secret1", "tenantId": "nope"])
            #expect(reply.errorMessage?.hasPrefix("TENANT_NOT_FOUND") == true, "\(reply.text)")
        }
        #expect(try await app.store.users(projectID: "demo-project", after: nil, limit: 10).isEmpty)
        #expect(try await app.store.tenant(projectID: "demo-project", id: "nope") == nil)
    }

    /// Emulator mode creates a tenant on first use, with every sign-in method on, as Firebase's emulator does.
    @Test func emulatorModeCreatesATenantOnFirstUse() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let reply = try await client.post(Self.v1 + "/accounts:signUp",
                                              ["email": "ada@example.com", "password": "secret1", "tenantId": "implicit-1"])
            #expect(reply.status == 200, "\(reply.text)")
        }
        let tenant = try #require(try await app.store.tenant(projectID: "demo-project", id: "implicit-1"))
        #expect(tenant[.passwordSignIn] && tenant[.anonymousSignIn] && tenant[.emailLinkSignIn])
    }

    /// ...but reading a tenant deleted through the API answers `TENANT_NOT_FOUND`, as the Admin SDKs expect; an
    /// account call naming it makes it again, as Firebase's emulator does (its own tests reuse tenant ids).
    @Test func aDeletedTenantStaysDeletedInEmulatorMode() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let path = "/identitytoolkit.googleapis.com/v2/projects/demo-project/tenants/gone-1"
            #expect(try await client.send(.get, path, key: nil, headers: owner).status == 200, "made on first use")
            #expect(try await client.send(.delete, path, key: nil, headers: owner).status == 200)
            #expect(try await client.send(.get, path, key: nil, headers: owner).errorMessage == "TENANT_NOT_FOUND")
            let signUp = try await client.post(Self.v1 + "/accounts:signUp",
                                               ["email": "ada@example.com", "password": "secret1", "tenantId": "gone-1"])
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(try await client.send(.get, path, key: nil, headers: owner).status == 200, "made again by use")
        }
    }

    /// One email in the project and two tenants: three accounts, each with its own password; tokens carry their
    /// tenant, refreshes keep it, and a token of one tenant is refused by a call naming another.
    @Test func tenantsKeepTheirUsersAndTokensApart() async throws {
        let app = TestApp()
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true),
                            TenantRecord(projectID: "demo-project", id: "t-b", allowPasswordSignup: true))
        try await app.run { client in
            var sessions: [String: [String: Any]] = [:]
            for tenant in ["t-a", "t-b", ""] {
                var body: [String: Any] = ["email": "ada@example.com", "password": "secret-\(tenant)", "returnSecureToken": true]
                if !tenant.isEmpty { body["tenantId"] = tenant }
                let reply = try await client.post(Self.v1 + "/accounts:signUp", body)
                #expect(reply.status == 200, "\(tenant): \(reply.text)")
                sessions[tenant] = try reply.object()
            }
            let tokenA = try #require(sessions["t-a"]?["idToken"] as? String)
            #expect((try Self.claims(tokenA)["firebase"] as? [String: Any])?["tenant"] as? String == "t-a")
            #expect((try Self.claims(try #require(sessions[""]?["idToken"] as? String))["firebase"] as? [String: Any])?["tenant"] == nil)

            let wrongPassword = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                                      ["email": "ada@example.com", "password": "secret-t-b", "tenantId": "t-a"])
            #expect(wrongPassword.status == 400, "t-b's password does not open t-a's account")
            let signedIn = try await client.post(Self.v1 + "/accounts:signInWithPassword",
                                                 ["email": "ada@example.com", "password": "secret-t-a", "tenantId": "t-a"])
            #expect(signedIn["localId"] as? String == sessions["t-a"]?["localId"] as? String)

            let mismatch = try await client.post(Self.v1 + "/accounts:lookup", ["idToken": tokenA, "tenantId": "t-b"])
            #expect(mismatch.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(mismatch.text)")
            let own = try await client.post(Self.v1 + "/accounts:lookup", ["idToken": tokenA])
            let user = try #require((own["users"] as? [[String: Any]])?.first, "\(own.text)")
            #expect(user["tenantId"] as? String == "t-a" && user["localId"] as? String == sessions["t-a"]?["localId"] as? String)

            let refreshToken = try #require(sessions["t-a"]?["refreshToken"] as? String)
            let refreshed = try await client.post("/securetoken.googleapis.com/v1/token",
                                                  ["grant_type": "refresh_token", "refresh_token": refreshToken])
            let refreshedToken = try #require(refreshed["id_token"] as? String, "\(refreshed.text)")
            #expect((try Self.claims(refreshedToken)["firebase"] as? [String: Any])?["tenant"] as? String == "t-a")
            let crossRefresh = try await client.post("/securetoken.googleapis.com/v1/token",
                                                     ["grant_type": "refresh_token", "refresh_token": refreshToken, "tenantId": "t-b"])
            #expect(crossRefresh.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(crossRefresh.text)")
        }
    }

    /// A tenant's switches decide what its clients may do; `disableAuth` stops them all.
    @Test func aTenantsSwitchesAreEnforced() async throws {
        let app = TestApp()
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-closed"),
                            TenantRecord(projectID: "demo-project", id: "t-off", allowPasswordSignup: true, disableAuth: true))
        try await app.run { client in
            let password = try await client.post(Self.v1 + "/accounts:signUp",
                                                 ["email": "ada@example.com", "password": "secret1", "tenantId": "t-closed"])
            #expect(password.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(password.text)")
            let anonymous = try await client.post(Self.v1 + "/accounts:signUp", ["tenantId": "t-closed"])
            #expect(anonymous.errorMessage?.hasPrefix("ADMIN_ONLY_OPERATION") == true, "\(anonymous.text)")
            let wrongType = try await client.post(Self.v1 + "/accounts:signUp",
                                                  ["email": "ada@example.com", "password": "secret1", "tenantId": 7])
            #expect(wrongType.status == 400, "never the project instead: \(wrongType.text)")
            let off = try await client.post(Self.v1 + "/accounts:signUp",
                                            ["email": "ada@example.com", "password": "secret1", "tenantId": "t-off"])
            #expect(off.errorMessage?.hasPrefix("PROJECT_DISABLED") == true, "\(off.text)")
            // The switch is checked before the fields, as Firebase does: an empty sign-in learns only that.
            let empty = try await client.post(Self.v1 + "/accounts:signInWithPassword", ["tenantId": "t-closed"])
            #expect(empty.errorMessage?.hasPrefix("PASSWORD_LOGIN_DISABLED") == true, "\(empty.text)")
            let mfa = try await client.post(Endpoints.startMFAEnrollment.path, ["tenantId": "t-closed"])
            #expect(mfa.errorMessage?.hasPrefix("OPERATION_NOT_ALLOWED") == true, "\(mfa.text)")
        }
        #expect(try await app.store.users(projectID: "demo-project", tenantID: "t-closed", after: nil, limit: 5).isEmpty)
        #expect(try await app.store.users(projectID: "demo-project", after: nil, limit: 5).isEmpty, "nothing fell to the project")
    }

    /// Administrators too: a disabled tenant's users cannot be managed, and a tenant path refuses another tenant's
    /// ID token.
    @Test func tenantPathsHoldAdministratorsToTheTenant() async throws {
        let app = TestApp(mode: .emulator)
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true),
                            TenantRecord(projectID: "demo-project", id: "t-b", allowPasswordSignup: true),
                            TenantRecord(projectID: "demo-project", id: "t-off", disableAuth: true))
        try await app.run { client in
            let made = try await client.post(Self.v1 + "/accounts:signUp",
                                             ["email": "ada@example.com", "password": "secret1", "tenantId": "t-a", "returnSecureToken": true])
            let token = try #require(made["idToken"] as? String, "\(made.text)")
            let scope = Self.v1 + "/projects/demo-project/tenants"
            let own = try await client.post(scope + "/t-a/accounts:lookup", ["idToken": token], key: nil, headers: Self.owner)
            #expect((own["users"] as? [[String: Any]])?.count == 1, "\(own.text)")
            let other = try await client.post(scope + "/t-b/accounts:lookup", ["idToken": token], key: nil, headers: Self.owner)
            #expect(other.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "\(other.text)")
            let body = try await client.post(scope + "/t-a/accounts:lookup", ["localId": ["x"], "tenantId": "t-b"],
                                             key: nil, headers: Self.owner)
            #expect(body.errorMessage?.hasPrefix("TENANT_ID_MISMATCH") == true, "path and body disagree: \(body.text)")
            let disabled = try await client.post(scope + "/t-off/accounts:query", [:], key: nil, headers: Self.owner)
            #expect(disabled.errorMessage?.hasPrefix("PROJECT_DISABLED") == true, "\(disabled.text)")
            // A bearer on a client path names the tenant in the body, as firebase-admin does.
            let byBody = try await client.post(Self.v1 + "/accounts:lookup", ["email": ["ada@example.com"], "tenantId": "t-a"],
                                               key: nil, headers: Self.owner)
            #expect((byBody["users"] as? [[String: Any]])?.first?["tenantId"] as? String == "t-a", "\(byBody.text)")
        }
    }

    /// A call that names no tenant but carries a tenant's ID token acts in that tenant: an email the project's own
    /// users hold is free in the tenant, and one the tenant's users hold is not.
    @Test func aTokenWithoutATenantIdActsInItsTenant() async throws {
        let app = TestApp(protection: false)  // direct email changes (with protection, only by a verified link)
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true))
        try await app.run { client in
            _ = try await client.signUp("taken@example.com", "secret1")  // a project user
            let made = try await client.post(Self.v1 + "/accounts:signUp",
                                             ["email": "ada@example.com", "password": "secret1", "tenantId": "t-a", "returnSecureToken": true])
            _ = try await client.post(Self.v1 + "/accounts:signUp",
                                      ["email": "bob@example.com", "password": "secret1", "tenantId": "t-a"])
            let token = try #require(made["idToken"] as? String, "\(made.text)")
            let free = try await client.post(Self.v1 + "/accounts:update", ["idToken": token, "email": "taken@example.com"])
            #expect(free.status == 200, "the project's address is free in the tenant: \(free.text)")
            let renewed = try #require(free["idToken"] as? String)
            let taken = try await client.post(Self.v1 + "/accounts:update", ["idToken": renewed, "email": "bob@example.com"])
            #expect(taken.errorMessage?.hasPrefix("EMAIL_EXISTS") == true, "the tenant's own address is taken: \(taken.text)")
        }
    }

    /// Disabling a tenant ends its users' sessions: an ID token alone (no `tenantId`) and a refresh are refused.
    @Test func disablingATenantEndsItsSessions() async throws {
        let app = TestApp()
        try await Self.seed(app, TenantRecord(projectID: "demo-project", id: "t-a", allowPasswordSignup: true))
        try await app.run { client in
            let made = try await client.post(Self.v1 + "/accounts:signUp",
                                             ["email": "ada@example.com", "password": "secret1", "tenantId": "t-a", "returnSecureToken": true])
            let token = try #require(made["idToken"] as? String, "\(made.text)")
            let refreshToken = try #require(made["refreshToken"] as? String)
            #expect(try await client.post(Self.v1 + "/accounts:lookup", ["idToken": token]).status == 200)
            var tenant = try #require(try await app.store.tenant(projectID: "demo-project", id: "t-a"))
            tenant[.disableAuth] = true
            _ = try await app.store.updateTenant(tenant)
            let lookup = try await client.post(Self.v1 + "/accounts:lookup", ["idToken": token])
            #expect(lookup.errorMessage?.hasPrefix("PROJECT_DISABLED") == true, "\(lookup.text)")
            let refresh = try await client.post("/securetoken.googleapis.com/v1/token",
                                                ["grant_type": "refresh_token", "refresh_token": refreshToken])
            #expect(refresh.errorMessage?.hasPrefix("PROJECT_DISABLED") == true, "\(refresh.text)")
        }
    }
}
