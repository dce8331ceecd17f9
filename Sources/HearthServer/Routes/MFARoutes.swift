import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `v2/accounts/mfaEnrollment:start|finalize|withdraw` and `v2/accounts/mfaSignIn:start|finalize`, SMS and TOTP.
enum MFARoutes {
    /// A first-factor sign-in that needs a second factor: a 200 with a pending credential and the factors
    /// (obfuscated), no tokens — what every sign-in route answers in that case.
    static func startEnrollment(_ call: Call, _ request: StartMFAEnrollmentRequest) async throws -> any ResponseGenerator {
        let project = try call.clientProject
        let accounts = call.services.accounts
        if request.hasTOTP {
            let started = try await accounts.secondFactors.startTOTPEnrollment(in: project, idToken: request.idToken)
            return StartMFAEnrollmentResponse(totpSessionInfo: .init(
                sharedSecretKey: started.sharedSecretKey, verificationCodeLength: TOTP.digits, hashingAlgorithm: "SHA1",
                periodSec: Int(TOTP.period), sessionInfo: started.sessionInfo,
                finalizeEnrollmentTime: rfc3339(started.finalizeBy)))
        }
        // Firebase answers for the token and the account before the missing factor.
        let (user, claims) = try await accounts.authenticate(request.idToken, in: project)
        guard request.hasPhone else {
            if !user.emailVerified { throw AuthFailure.unverifiedEmail }
            throw AuthFailure.invalidArgument("phoneEnrollmentInfo or totpEnrollmentInfo is required")
        }
        let number = request.phoneNumber.flatMap(call.phoneNumber) ?? request.phoneNumber ?? ""
        try accounts.secondFactors.checkPhoneEnrollment(user, number: number, in: project, session: claims)
        let sessionInfo = try await accounts.phone.sendPhoneCode(to: number, purpose: .enrollment, localID: user.localID,
                                                                 in: project, locale: call.locale, sender: call.services.sms)
        return StartMFAEnrollmentResponse(phoneSessionInfo: .init(sessionInfo: sessionInfo))
    }

    static func finalizeEnrollment(_ call: Call, _ request: FinalizeMFAEnrollmentRequest) async throws -> any ResponseGenerator {
        let result = try await call.services.accounts.secondFactors.finalizeEnrollment(
            in: try call.clientProject, idToken: request.idToken, displayName: request.displayName,
            phone: request.phone.map { ($0.sessionInfo, $0.code) }, totp: request.totp.map { ($0.sessionInfo, $0.code) })
        return MFATokensResponse(idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken)
    }

    static func withdraw(_ call: Call, _ request: WithdrawMFARequest) async throws -> any ResponseGenerator {
        let result = try await call.services.accounts.secondFactors.withdrawEnrollment(
            in: try call.clientProject, idToken: request.idToken, enrollmentID: request.mfaEnrollmentId)
        return MFATokensResponse(idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                                      expiresIn: String(result.tokens.expiresIn))
    }

    static func startSignIn(_ call: Call, _ request: StartMFASignInRequest) async throws -> any ResponseGenerator {
        let project = try call.clientProject
        let accounts = call.services.accounts
        let sessionInfo = try await accounts.secondFactors.startPhoneSecondFactor(
            in: project, pendingCredential: request.mfaPendingCredential, enrollmentID: request.mfaEnrollmentId,
            locale: call.locale, sender: call.services.sms)
        return StartMFASignInResponse(sessionInfo: sessionInfo)
    }

    static func finalizeSignIn(_ call: Call, _ request: FinalizeMFASignInRequest) async throws -> any ResponseGenerator {
        // Firebase names this one differently from mfaSignIn:start's MISSING_MFA_PENDING_CREDENTIAL.
        guard let pending = request.mfaPendingCredential, !pending.isEmpty else { throw AuthFailure.missingCredential }
        let proof: SecondFactorProof
        if let totp = request.totp {
            proof = .totp(enrollmentID: request.mfaEnrollmentId, code: totp.code)
        } else if let phone = request.phone {
            proof = .phone(sessionInfo: phone.sessionInfo, code: phone.code)
        } else {
            throw AuthFailure.invalidArgument("phoneVerificationInfo or totpVerificationInfo is required")
        }
        let result = try await call.services.accounts.secondFactors.finalizeSecondFactor(
            in: try call.clientProject, pendingCredential: request.mfaPendingCredential, proof: proof)
        return MFATokensResponse(idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken)
    }
}
