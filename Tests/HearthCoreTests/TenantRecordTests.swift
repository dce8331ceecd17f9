import Foundation
import HearthCore
import Testing

/// Tenant records written before a field existed read with safe defaults.
@Suite struct TenantRecordTests {
    @Test func aRecordFromBeforeTheEmailSettingsKeepsProtectionOnAndUsesTheBuiltInText() throws {
        let old = #"""
            {"projectID":"p","id":"t-old","allowPasswordSignup":true,"enableEmailLinkSignin":false,
             "enableAnonymousUser":false,"disableAuth":false,"mfa":{"state":"DISABLED","providers":[]},
             "testPhoneNumbers":{},"version":3}
            """#
        let tenant = try JSONDecoder().decode(TenantRecord.self, from: Data(old.utf8))
        #expect(tenant[.enableImprovedEmailPrivacy], "email-enumeration protection stays on")
        #expect(!tenant[.inheritsEmailSending] && tenant.identityProviders.isEmpty && tenant.version == 3)
        let again = try JSONDecoder().decode(TenantRecord.self, from: JSONEncoder().encode(tenant))
        #expect(again == tenant, "what is written reads back the same")
    }
}
