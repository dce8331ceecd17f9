import Foundation
@testable import HearthAdmin
import HearthCore
import HearthTestSupport
import HearthWire
import Testing

/// HearthAdmin against a real Hearth server: tokens, cookies, custom tokens, user management.
@Suite struct HearthAdminTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    @Test func customTokenSignInVerifyClaimsRevocationAndCookies() async throws {
        try await LiveHearth.run { hearth in
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile))
            let created = try await admin.createUser(AdminCreateAccountRequest(localId: "sdk-user", email: "sdk@example.com",
                                                                              password: "secret123"))
            #expect(created.localId == "sdk-user" && created.email == "sdk@example.com")

            let custom = try await admin.createCustomToken(uid: "sdk-user", claims: ["plan": .string("pro")])
            let signedIn = try await hearth.client(Endpoints.signInWithCustomToken.path, ["token": custom])
            let idToken = try #require(signedIn["idToken"] as? String, "\(signedIn)")
            let verified = try await admin.verifyIDToken(idToken, checkRevoked: true)
            #expect(verified.uid == "sdk-user" && verified.signInProvider == "custom")
            #expect(verified.claims["plan"] == .string("pro"))

            try await admin.setCustomUserClaims(uid: "sdk-user", claims: ["role": .string("admin")])
            let refreshed = try await hearth.client("/securetoken.googleapis.com/v1/token",
                                                    ["grant_type": "refresh_token", "refresh_token": signedIn["refreshToken"]!])
            let withRole = try await admin.verifyIDToken(try #require(refreshed["id_token"] as? String))
            #expect(withRole.claims["role"] == .string("admin"), "custom claims reach the next ID token")

            let cookie = try await admin.createSessionCookie(idToken: idToken, expiresIn: 3600 * 24)
            let session = try await admin.verifySessionCookie(cookie, checkRevoked: true)
            #expect(session.uid == "sdk-user" && session.expiresAt.timeIntervalSince(session.issuedAt) == 86400)
            await #expect(throws: HearthAdminError.self) { try await admin.verifySessionCookie(idToken) }
            await #expect(throws: HearthAdminError.self) { try await admin.verifyIDToken(cookie) }
            await #expect(throws: HearthAdminError.self) { try await admin.verifyIDToken(custom) }

            let nextSecond = nextWholeSecond(after: Date())  // revocation is to the second, as Firebase's
            await eventually { Date() >= nextSecond }
            try await admin.revokeRefreshTokens(uid: "sdk-user")
            _ = try await admin.verifyIDToken(idToken)  // still a valid signature without the check
            await #expect(throws: HearthAdminError.tokenRevoked) { try await admin.verifyIDToken(idToken, checkRevoked: true) }
            await #expect(throws: HearthAdminError.tokenRevoked) { try await admin.verifySessionCookie(cookie, checkRevoked: true) }

            let disabled = try await admin.updateUser(uid: "sdk-user", UserChanges(displayName: "Off", disabled: true))
            #expect(disabled.disabled == true && disabled.displayName == "Off")
            let fresh = try await admin.createCustomToken(uid: "other-user")
            let other = try await hearth.client(Endpoints.signInWithCustomToken.path, ["token": fresh])
            #expect(other["idToken"] is String)
            await #expect(throws: HearthAdminError.userDisabled) {
                try await admin.verifyIDToken(try #require(signedIn["idToken"] as? String), checkRevoked: true)
            }
        }
    }

    @Test func listGetDeleteAndLinks() async throws {
        try await LiveHearth.run { hearth in
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile))
            for index in 1...5 {
                _ = try await admin.createUser(AdminCreateAccountRequest(localId: "u\(index)", email: "u\(index)@example.com",
                                                                        password: "secret123"))
            }
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try await admin.listUsers(maxResults: 2, pageToken: token)
                seen += page.users.map(\.localId)
                token = page.nextPageToken
            } while token != nil
            #expect(seen == ["u1", "u2", "u3", "u4", "u5"])
            #expect(try await admin.getUser(email: "U3@example.com").localId == "u3")
            let link = try await admin.generateEmailActionLink(.passwordReset, email: "u2@example.com")
            #expect(link.hasPrefix(hearth.baseURL + "/__/auth/action?mode=resetPassword"))
            try await admin.deleteUser(uid: "u1")
            do {
                _ = try await admin.getUser(uid: "u1")
                Issue.record("a deleted user was found")
            } catch HearthAdminError.server(_, let code, _) {
                #expect(code == "USER_NOT_FOUND")
            }
            do {
                _ = try await admin.createUser(AdminCreateAccountRequest(localId: "u2"))
                Issue.record("a duplicate uid was accepted")
            } catch HearthAdminError.server(let status, let code, _) {
                #expect(status == 400 && code == "DUPLICATE_LOCAL_ID")
            }
            await #expect(throws: HearthAdminError.invalidArgument("firebase is a reserved claim name")) {
                try await admin.createCustomToken(uid: "x", claims: ["firebase": .null])
            }
        }
    }

    @Test func keysAreCachedForMaxAgeAndTimesAllowTheClockSkew() async throws {
        try await LiveHearth.run { hearth in
            let clock = TestClock()
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile),
                                    now: { clock.now() })
            let signIn = try await hearth.client(Endpoints.signInWithCustomToken.path,
                                                 ["token": try await admin.createCustomToken(uid: "cache-user")])
            let idToken = try #require(signIn["idToken"] as? String)
            for _ in 0..<3 { _ = try await admin.verifyIDToken(idToken) }
            #expect(await admin.idTokenKeys.fetches == 1, "one fetch serves until max-age")
            clock.advance(3601)  // past max-age (3600), within exp + 300 s skew
            _ = try await admin.verifyIDToken(idToken)
            #expect(await admin.idTokenKeys.fetches == 2, "stale keys are fetched again")
            clock.advance(300)
            await #expect(throws: HearthAdminError.tokenExpired) { try await admin.verifyIDToken(idToken) }

            // A token signed by a key Hearth never published, with a kid it did: refused.
            let parts = idToken.split(separator: ".").map(String.init)
            let forged = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
            await #expect(throws: HearthAdminError.self) { try await admin.verifyIDToken(forged) }
        }
    }

    /// A token signed with Hearth's own published key but living longer than its kind (an ID token over an hour) was
    /// not made by Hearth's rules: refused, whatever signed it.
    @Test func tokensLongerThanTheirKindAreRefused() async throws {
        try await LiveHearth.run { hearth in
            let admin = HearthAdmin(baseURL: hearth.baseURL, credentials: try ServiceAccountCredentials(keyFile: hearth.keyFile))
            let signIn = try await hearth.client(Endpoints.signInWithCustomToken.path,
                                                 ["token": try await admin.createCustomToken(uid: "long-user")])
            _ = try await admin.verifyIDToken(try #require(signIn["idToken"] as? String))
            let record = try #require(try await hearth.store.project(id: LiveHearth.projectID))
            let user = try #require(try await hearth.store.user(projectID: LiveHearth.projectID, tenantID: nil, localID: "long-user"))
            let long = try IDTokenIssuer(lifetime: 30 * 86400).mint(
                for: user, session: SignInSession(signInProvider: "custom", authTime: Date()), projectID: LiveHearth.projectID,
                keys: try KeyRing(record.signingKeys), now: Date())
            await #expect(throws: HearthAdminError.self) { try await admin.verifyIDToken(long) }
        }
    }
}
