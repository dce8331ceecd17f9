import Foundation
import HearthCore
import Testing

/// Regions of numbers as libphonenumber's metadata has them (codes one region holds, NANP's area codes, the
/// crown dependencies in +44, Kazakhstan in +7), and `smsRegionConfig`'s two forms over them.
@Suite struct PhoneRegionTests {
    @Test(arguments: [
        ("+16505550100", "US"), ("+14165550100", "CA"), ("+18765550100", "JM"), ("+17875550100", "PR"),
        ("+442071234567", "GB"), ("+441481123456", "GG"), ("+447700900123", "GB"), ("+79161234567", "RU"),
        ("+77011234567", "KZ"), ("+33612345678", "FR"), ("+4915112345678", "DE"), ("+819012345678", "JP"),
        ("+61412345678", "AU"), ("+5511912345678", "BR"),
    ])
    func regionsComeFromTheNumber(_ number: String, _ region: String) {
        #expect(PhoneNumber.region(of: number) == region, "\(number)")
    }

    /// One number, however it is written, is one E.164 number: what limits key and the store keeps.
    @Test(arguments: [
        ("+44 07700 900123", "+447700900123"), ("+44 (0)7700 900123", "+447700900123"), ("+447700900123", "+447700900123"),
        ("+1 (650) 555-0100", "+16505550100"), ("+33 6 12 34 56 78", "+33612345678"), ("+33 06 12 34 56 78", "+33612345678"),
        ("+39 06 1234 5678", "+390612345678"), ("+49.151.12345678", "+4915112345678"),
    ])
    func numbersAreNormalizedToE164(_ written: String, _ e164: String) {
        #expect(PhoneNumber.normalized(written) == e164, "\(written)")
    }

    @Test(arguments: ["07700 900123", "+", "+44 7700 9001x3", "+0 123 4567", "+1 2", "+４４7700900123"])
    func notNumbersAreRefused(_ written: String) {
        #expect(PhoneNumber.normalized(written) == nil, "\(written)")
    }

    @Test func unknownCodesHaveNoRegion() {
        #expect(PhoneNumber.region(of: "+9991234567") == nil)
    }

    @Test func bothFormsOfThePolicy() {
        let deny = SMSRegionPolicy.allowByDefault(disallowed: ["RU", "KZ"])
        #expect(deny.allows("+16505550100") && !deny.allows("+79161234567") && !deny.allows("+77011234567"))
        #expect(deny.allows("+9991234567"), "an unknown region is not on a deny list")
        let allow = SMSRegionPolicy.allowlistOnly(allowed: ["US"])
        #expect(allow.allows("+16505550100") && !allow.allows("+14165550100"), "Canada shares +1 but not the list")
        #expect(!allow.allows("+9991234567"), "an unknown region is not on an allow list")
    }
}
