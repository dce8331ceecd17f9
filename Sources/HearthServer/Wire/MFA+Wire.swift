import Foundation
import HearthCore
import HearthWire
import Hummingbird

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

extension SecondFactorRequiredResponse {
    /// A first factor proved on an account with second factors: Firebase's 200 with `mfaPendingCredential` and the
    /// factors to pick from (numbers obfuscated). Every sign-in route answers a challenge with this.
    init(_ required: SecondFactorRequired) {
        let user = required.user
        self.init(localId: user.localID, email: user.email, displayName: user.displayName,
                  mfaPendingCredential: required.pendingCredential,
                  mfaInfo: user.enrollments.map { MFAInfoWire($0, obfuscated: true) })
    }
}

extension PhoneSignInOutcome {
    /// `accounts:signInWithPhoneNumber`'s answer: the tokens, the proof that the number belongs to another account,
    /// or a second-factor challenge.
    var wire: any ResponseGenerator {
        var response = SignInWithPhoneNumberResponse()
        switch self {
        case .signedIn(let result):
            response.localId = result.user.localID
            response.phoneNumber = result.user.phoneNumber
            response.isNewUser = result.isNewUser
            response.idToken = result.tokens.idToken
            response.refreshToken = result.tokens.refreshToken
            response.expiresIn = String(result.tokens.expiresIn)
        case .numberTaken(let proof, let number, let expiresIn):
            response.temporaryProof = proof
            response.phoneNumber = number
            response.temporaryProofExpiresIn = String(expiresIn)
        case .secondFactorRequired(let required):
            return SecondFactorRequiredResponse(required)
        }
        return response
    }
}

extension PasskeyTokensResponse {
    /// A passkey enrolled or signed in with: the account and its fresh tokens.
    init(_ result: AccountContext.SignInResult) {
        self.init(localId: result.user.localID, idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken)
    }
}
