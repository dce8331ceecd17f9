import Foundation
import HearthCore
import Testing

/// Second factors (`SecondFactors`) as requests give them.
@Suite struct SecondFactorsTests {
    /// Second factors given in a request: a number given twice counts once; ids are generated on creation, kept on
    /// update (generated when missing, unless required as in emulator mode) and must differ.
    @Test func secondFactorInputsAsFirebaseReadsThem() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let inputs = [MFAEnrollmentInput(id: "a", phoneNumber: "+15555550100"), MFAEnrollmentInput(id: "b", phoneNumber: "+15555550100"),
                      MFAEnrollmentInput(phoneNumber: "+15555550101")]
        let created = try MFAEnrollmentInput.resolve(inputs, existing: [], now: now, ids: .generated)
        #expect(created.count == 2 && !created.map(\.id).contains("a"))
        let updated = try MFAEnrollmentInput.resolve(inputs, existing: [], now: now)
        #expect(updated.count == 2 && updated[0].id == "a" && !updated[1].id.isEmpty)
        #expect(throws: AuthFailure.invalidMFAEnrollmentID) {
            try MFAEnrollmentInput.resolve(inputs, existing: [], now: now, ids: .given(required: true))
        }
        #expect(throws: AuthFailure.duplicateMFAEnrollmentID) {
            try MFAEnrollmentInput.resolve([MFAEnrollmentInput(id: "a", phoneNumber: "+15555550100"),
                                            MFAEnrollmentInput(id: "a", phoneNumber: "+15555550101")], existing: [], now: now)
        }
        let phone = MFAEnrollment(id: "p", displayName: nil, phoneNumber: "+15555550100", enrolledAt: now)
        #expect(throws: AuthFailure.invalidMFAPhoneNumber, "a phone factor named without its number") {
            try MFAEnrollmentInput.resolve([MFAEnrollmentInput(id: "p")], existing: [phone], now: now)
        }
    }
}
