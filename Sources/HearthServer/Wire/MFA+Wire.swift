import Foundation
import HearthCore
import HearthWire

// Second factors on the wire: stored enrolments as lookups and challenges show them, and a request's entries.

extension MFAInfoWire {
    /// A stored factor on the wire; `obfuscated` hides the number (sign-in challenges).
    init(_ enrollment: MFAEnrollment, obfuscated: Bool) {
        self.init(mfaEnrollmentId: enrollment.id, displayName: enrollment.displayName,
                  phoneInfo: obfuscated ? enrollment.obfuscatedPhoneNumber : enrollment.phoneNumber,
                  totpInfo: enrollment.totpSecret == nil ? nil : [:], enrolledAt: rfc3339(enrollment.enrolledAt))
        if !obfuscated { unobfuscatedPhoneInfo = enrollment.phoneNumber }
    }
}

extension MFAEnrollmentInput {
    /// A request's `mfaInfo` entry; an unreadable `enrolledAt` counts as now.
    init(_ wire: MFAInfoWire) {
        self.init(id: wire.mfaEnrollmentId, displayName: wire.displayName, phoneNumber: wire.phoneInfo,
                  enrolledAt: wire.enrolledAt.flatMap { try? Date($0, strategy: .iso8601) })
    }
}
