import Foundation
import HearthCore
@testable import HearthServer
import HearthWire
import Testing

/// Firebase's user actions (`client.permissions`), the first settings declared once (``SignInSetting``): set on the
/// project and on a tenant through the admin API, each scope on its own, and answered `ADMIN_ONLY_OPERATION` as
/// Firebase does while administrators keep every power.
@Suite struct ClientPermissionsTests {
    static let tenantID = "acme-a1b2c"
    static let config = Endpoints.updateConfig.path(["project": "demo-project"])
    static let tenant = Endpoints.updateTenant.path(["project": "demo-project", "tenantID": tenantID])
    static let signUp = Endpoints.signUp.path
    static let delete = Endpoints.delete.path

    static func app() async throws -> (TestApp, ServiceAccountSigner) {
        let app = CredentialGuardsTests.productionApp()
        let signer = try await CredentialGuardsTests.register(app)
        try await app.store.insertTenant(TenantRecord(projectID: "demo-project", id: tenantID, allowPasswordSignup: true,
                                                      enableAnonymousUser: true))
        return (app, signer)
    }

    static func permissions(_ reply: Reply) -> [String: Bool]? {
        ((reply["client"] as? [String: Any])?["permissions"] as? [String: Bool])
    }

    @Test func disabledUserSignupRefusesEveryEndUserSignUpButNotTheAdministrators() async throws {
        let (app, signer) = try await Self.app()
        try await app.run { client in
            _ = try await client.signUp("before@example.com")
            let set = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                          Self.config + "?updateMask=client.permissions.disabledUserSignup",
                                                          ["client": ["permissions": ["disabledUserSignup": true]]])
            #expect(Self.permissions(set) == ["disabledUserSignup": true], "\(set.text)")
            #expect(try await app.store.project(id: "demo-project")?.settings.declared.bool(.disabledUserSignup) == true)
            let read = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get, Self.config, nil)
            #expect(Self.permissions(read) == ["disabledUserSignup": true], "\(read.text)")

            let password = try await client.post(Self.signUp, ["email": "new@example.com", "password": "secret1"])
            #expect(password.status == 400 && password.errorMessage == "ADMIN_ONLY_OPERATION", "\(password.text)")
            let anonymous = try await client.post(Self.signUp, [String: Any]())
            #expect(anonymous.errorMessage == "ADMIN_ONLY_OPERATION", "\(anonymous.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: nil, email: "new@example.com") == nil,
                    "nothing stored")

            // Who already has an account still signs in; an administrator still creates them, a custom token too.
            let signIn = try await client.post(Endpoints.signInWithPassword.path,
                                               ["email": "before@example.com", "password": "secret1"])
            #expect(signIn.status == 200, "\(signIn.text)")
            let created = try await PasswordPolicyRoutesTests.admin(client, app, signer, .post,
                                                              Endpoints.adminCreate.path(["project": "demo-project"]),
                                                              ["email": "by-admin@example.com", "password": "secret1"])
            #expect(created.status == 200, "\(created.text)")
            let custom = try await client.post(CredentialGuardsTests.customToken, ["token": try await signer.customToken(uid: "minted-1")])
            #expect(custom.status == 200, "a custom token is the administrator's doing: \(custom.text)")

            // A tenant holds its own: the project's switch does not reach it until the tenant sets it.
            let tenantUser = try await client.post(Self.signUp, ["email": "t@acme.example", "password": "secret1",
                                                                 "tenantId": Self.tenantID])
            #expect(tenantUser.status == 200, "\(tenantUser.text)")
            let tenantSet = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.tenant + "?updateMask=client.permissions",
                                                                ["client": ["permissions": ["disabledUserSignup": true]]])
            #expect(Self.permissions(tenantSet) == ["disabledUserSignup": true], "a parent path names the fields under it: \(tenantSet.text)")
            let tenantAnonymous = try await client.post(Self.signUp, ["tenantId": Self.tenantID])
            #expect(tenantAnonymous.errorMessage == "ADMIN_ONLY_OPERATION", "\(tenantAnonymous.text)")

            // Named in the mask, absent from the body: back to the default, and no longer shown.
            let cleared = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                              Self.config + "?updateMask=client.permissions.disabledUserSignup",
                                                              [String: Any]())
            #expect(Self.permissions(cleared) == nil, "\(cleared.text)")
            let again = try await client.post(Self.signUp, ["email": "new@example.com", "password": "secret1"])
            #expect(again.status == 200, "\(again.text)")
            let tenantStill = try await client.post(Self.signUp, ["tenantId": Self.tenantID])
            #expect(tenantStill.errorMessage == "ADMIN_ONLY_OPERATION", "the tenant's own switch stays: \(tenantStill.text)")
        }
    }

    /// Set on the tenant alone: its users cannot delete themselves, also with a token sent without its `tenantId`;
    /// the project's users and the administrator can.
    @Test func disabledUserDeletionHoldsATenantsUsersWithOrWithoutTenantId() async throws {
        let (app, signer) = try await Self.app()
        try await app.run { client in
            let set = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                          Self.tenant + "?updateMask=client.permissions.disabledUserDeletion",
                                                          ["client": ["permissions": ["disabledUserDeletion": true]]])
            #expect(Self.permissions(set) == ["disabledUserDeletion": true], "\(set.text)")
            let member = try await client.post(Self.signUp, ["email": "m@acme.example", "password": "secret1",
                                                             "tenantId": Self.tenantID])
            let token = try #require(member["idToken"] as? String, "\(member.text)")
            let localID = try #require(member["localId"] as? String)

            let withoutTenant = try await client.post(Self.delete, ["idToken": token])
            #expect(withoutTenant.status == 400, "\(withoutTenant.text)")
            #expect(["ADMIN_ONLY_OPERATION", "TENANT_ID_MISMATCH"].contains(withoutTenant.errorMessage ?? ""), "\(withoutTenant.text)")
            let withTenant = try await client.post(Self.delete, ["idToken": token, "tenantId": Self.tenantID])
            #expect(withTenant.errorMessage == "ADMIN_ONLY_OPERATION", "\(withTenant.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: Self.tenantID, localID: localID) != nil)

            let own = try await client.signUp("own@example.com")
            let ownDelete = try await client.post(Self.delete, ["idToken": try #require(own["idToken"] as? String)])
            #expect(ownDelete.status == 200, "the project's users are not held by the tenant's switch: \(ownDelete.text)")

            let byAdmin = try await PasswordPolicyRoutesTests.admin(
                client, app, signer, .post, Endpoints.adminDelete.path(["project": "demo-project", "tenant": Self.tenantID]),
                ["localId": localID])
            #expect(byAdmin.status == 200, "\(byAdmin.text)")
            #expect(try await app.store.user(projectID: "demo-project", tenantID: Self.tenantID, localID: localID) == nil)
        }
    }

    /// Only declared settings of the scope, of the declared kind: a typo or a wrong type is refused, nothing stored.
    @Test func aPatchNamesOnlyDeclaredSettingsOfTheirKind() async throws {
        let (app, signer) = try await Self.app()
        try await app.run { client in
            let typoMask = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch,
                                                               Self.config + "?updateMask=client.permissions.disabledUserSingup",
                                                               ["client": ["permissions": ["disabledUserSignup": true]]])
            #expect(typoMask.status == 400 && typoMask.text.contains("disabledUserSingup"), "\(typoMask.text)")
            let typoBody = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.tenant,
                                                               ["client": ["permissions": ["disabledUserSingup": true]]])
            #expect(typoBody.status == 400 && typoBody.text.contains("client.permissions.disabledUserSingup"), "\(typoBody.text)")
            let wrongType = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.config,
                                                                ["client": ["permissions": ["disabledUserSignup": "yes"]]])
            #expect(wrongType.status == 400 && wrongType.text.contains("must be a boolean"), "\(wrongType.text)")
            let permissions: [SignInSetting] = [.disabledUserSignup, .disabledUserDeletion]
            let project = try #require(try await app.store.project(id: "demo-project")).settings.declared
            let tenant = try #require(try await app.store.tenant(projectID: "demo-project", id: Self.tenantID)).declared
            #expect(!permissions.contains { project.isSet($0) || tenant.isSet($0) }, "nothing stored")

            // No mask: the fields present change, and only they.
            let present = try await PasswordPolicyRoutesTests.admin(client, app, signer, .patch, Self.tenant,
                                                              ["client": ["permissions": ["disabledUserDeletion": true]]])
            #expect(Self.permissions(present) == ["disabledUserDeletion": true], "\(present.text)")
            let listed = try await PasswordPolicyRoutesTests.admin(client, app, signer, .get,
                                                             Endpoints.listTenants.path(["project": "demo-project"]), nil)
            let first = try #require((listed["tenants"] as? [[String: Any]])?.first, "\(listed.text)")
            #expect(((first["client"] as? [String: Any])?["permissions"] as? [String: Bool]) == ["disabledUserDeletion": true])
        }
    }
}
