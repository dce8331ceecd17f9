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
    }

    @Test func theProjectsFieldsDecodeFromRecordsWrittenBeforeThem() throws {
        let old = Data(#"{"allowDuplicateEmails":false,"enableImprovedEmailPrivacy":true,"passwordSignInEnabled":true,"anonymousSignInEnabled":true}"#.utf8)
        var settings = try JSONDecoder().decode(ProjectSettings.self, from: old)
        #expect(settings.declared == DeclaredSettings())
        settings.declared[.disabledUserSignup] = .bool(true)
        let again = try JSONDecoder().decode(ProjectSettings.self, from: JSONEncoder().encode(settings))
        #expect(again.declared.bool(.disabledUserSignup))
        var tenant = TenantRecord(projectID: "p", id: "t")
        tenant.declared[.disabledUserDeletion] = .bool(true)
        #expect(try JSONDecoder().decode(TenantRecord.self, from: JSONEncoder().encode(tenant)).declared.bool(.disabledUserDeletion))
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
