import Foundation
import HearthCore
import Testing

/// Declared settings: what a tenant works under, how they are stored, and what values each takes.
struct SignInSettingTests {
    static let inherited = SignInSetting("test.inherited", inheritedByTenants: true)

    @Test func aTenantHasItsOwnUnlessTheSettingIsInherited() {
        var project = DeclaredSettings()
        project[.disabledUserSignup] = .bool(true)
        let tenantUnset = DeclaredSettings.inForce(project: project, tenant: DeclaredSettings())
        #expect(!tenantUnset.bool(.disabledUserSignup), "Identity Platform's tenants hold their own user actions")

        var tenant = DeclaredSettings()
        tenant[.disabledUserDeletion] = .bool(true)
        let inForce = DeclaredSettings.inForce(project: project, tenant: tenant)
        #expect(inForce.bool(.disabledUserDeletion) && !inForce.bool(.disabledUserSignup))

        // An inherited setting a tenant may also set: the project's until the tenant sets its own.
        project[Self.inherited] = .bool(true)
        #expect(DeclaredSettings.inForce(project: project, tenant: tenant, of: [Self.inherited]).bool(Self.inherited))
        tenant[Self.inherited] = .bool(false)
        #expect(!DeclaredSettings.inForce(project: project, tenant: tenant, of: [Self.inherited]).bool(Self.inherited))
    }

    @Test func recordsWrittenBeforeTheDeclarationsKeepTheirSwitches() throws {
        let old = Data(#"{"allowDuplicateEmails":true,"enableImprovedEmailPrivacy":true,"passwordSignInEnabled":false,"anonymousSignInEnabled":true,"autodeleteAnonymousUsers":true}"#.utf8)
        var settings = try JSONDecoder().decode(ProjectSettings.self, from: old)
        #expect(settings[.allowDuplicateEmails] && settings[.enableImprovedEmailPrivacy] && !settings[.passwordSignIn])
        #expect(settings[.anonymousSignIn] && settings[.autodeleteAnonymousUsers])
        // Switches that did not exist then: email links and phone numbers stay on, as Hearth served them.
        #expect(!settings.declared.isSet(.phoneSignIn) && settings[.phoneSignIn] && settings[.emailLinkSignIn])
        settings[.disabledUserSignup] = true
        let again = try JSONDecoder().decode(ProjectSettings.self, from: JSONEncoder().encode(settings))
        #expect(again == settings && again[.disabledUserSignup])

        let oldTenant = Data(#"{"projectID":"p","id":"t","allowPasswordSignup":true,"enableEmailLinkSignin":false,"enableAnonymousUser":true,"disableAuth":true,"mfa":{"state":"DISABLED","providers":[]},"testPhoneNumbers":{},"version":3}"#.utf8)
        var tenant = try JSONDecoder().decode(TenantRecord.self, from: oldTenant)
        #expect(tenant[.passwordSignIn] && !tenant[.emailLinkSignIn] && tenant[.anonymousSignIn] && tenant[.disableAuth])
        #expect(tenant[.enableImprovedEmailPrivacy], "a tenant stored before email privacy existed keeps protection on")
        tenant[.disabledUserDeletion] = true
        #expect(try JSONDecoder().decode(TenantRecord.self, from: JSONEncoder().encode(tenant)) == tenant)
    }

    @Test func aTenantHasATenantsDefaultsAndItsProjectsInheritedSettings() {
        var project = ProjectSettings(enableImprovedEmailPrivacy: true)
        project[.allowDuplicateEmails] = true
        let tenant = TenantRecord(projectID: "p", id: "t")
        let inForce = DeclaredSettings.inForce(project: project.declared, tenant: tenant.declared)
        #expect(project[.passwordSignIn] && !inForce.bool(.passwordSignIn), "a new tenant has every sign-in method off")
        #expect(!inForce.bool(.enableImprovedEmailPrivacy), "a tenant holds its own email privacy")
        #expect(inForce.bool(.allowDuplicateEmails) && inForce.bool(.phoneSignIn), "tenants follow these of their project")
    }

    @Test func eachSettingTakesOnlyItsKind() {
        #expect(SignInSetting.disabledUserSignup.accepts(.bool(true)))
        #expect(!SignInSetting.disabledUserSignup.accepts(.int(1)))
        let ranged = SignInSetting("test.count", kind: .int(0...10), default: .int(0))
        #expect(ranged.accepts(.int(10)) && !ranged.accepts(.int(11)) && !ranged.accepts(.bool(true)))
        #expect(SignInSetting.settable(in: .tenant).contains(.disabledUserSignup))
    }

    /// A value set to the default is kept until reset: a tenant that sets an inherited setting to its default
    /// means it, rather than following its project.
    @Test func aValueSetToTheDefaultIsKeptUntilReset() {
        var values = DeclaredSettings()
        values[Self.inherited] = .bool(false)
        #expect(values.isSet(Self.inherited) && !values.bool(Self.inherited))
        values.reset(Self.inherited)
        #expect(!values.isSet(Self.inherited))
    }
}
