import Foundation
import HearthWire

/// Phone numbers: sends SMS codes and makes credentials from them, for sign-in, linking and second factors.
///
/// ```swift
/// let verificationID = try await PhoneAuthProvider.provider().verifyPhoneNumber("+16505550123", uiDelegate: nil)
/// let credential = PhoneAuthProvider.provider().credential(withVerificationID: verificationID,
///                                                          verificationCode: codeFromSMS)
/// try await Auth.auth().signIn(with: credential)
/// ```
///
/// Hearth needs no app check (APNs or reCAPTCHA) before sending: its per-number and per-address limits apply.
public final class PhoneAuthProvider: @unchecked Sendable {
    public static let id = "phone"
    private let auth: Auth

    init(auth: Auth) { self.auth = auth }

    public class func provider() -> PhoneAuthProvider { PhoneAuthProvider(auth: Auth.auth()) }
    public class func provider(auth: Auth) -> PhoneAuthProvider { PhoneAuthProvider(auth: auth) }

    /// Sends a code to `phoneNumber` (E.164). With a session, the code enrolls it as a second factor.
    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession? = nil) async throws -> String {
        guard !phoneNumber.isEmpty else { throw AuthErrorFactory.make(.missingPhoneNumber) }
        if let session = multiFactorSession {
            guard let idToken = session.idToken else {
                throw AuthErrorFactory.make(.invalidMultiFactorSession, detail: "Sign-in sessions take a PhoneMultiFactorInfo.")
            }
            let request = StartMFAEnrollmentRequest(idToken: idToken, phoneNumber: phoneNumber)
            let reply = try await auth.core.call(Endpoints.startMFAEnrollment, request)
            guard let info = reply.phoneSessionInfo, !info.sessionInfo.isEmpty else {
                throw AuthErrorFactory.make(.internalError, detail: "The server returned no session.")
            }
            return info.sessionInfo
        }
        let request = SendVerificationCodeRequest(phoneNumber: phoneNumber, tenantId: auth.tenantID)
        let reply = try await auth.core.call(Endpoints.sendVerificationCode, request)
        guard !reply.sessionInfo.isEmpty else {
            throw AuthErrorFactory.make(.internalError, detail: "The server returned no session.")
        }
        return reply.sessionInfo
    }

    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil,
                                  completion: (@MainActor @Sendable (String?, (any Error)?) -> Void)?) {
        verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: nil, completion: completion)
    }

    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession? = nil,
                                  completion: (@MainActor @Sendable (String?, (any Error)?) -> Void)?) {
        deliver(completion) {
            // The delegate is unused (no app verification), and not carried across: it may not be Sendable.
            try await self.verifyPhoneNumber(phoneNumber, uiDelegate: nil, multiFactorSession: multiFactorSession)
        }
    }

    /// Sends a code to an enrolled factor during a second-factor sign-in (`session` from the resolver).
    ///
    /// ```swift
    /// let hint = resolver.hints[0] as! PhoneMultiFactorInfo
    /// let id = try await PhoneAuthProvider.provider().verifyPhoneNumber(with: hint, multiFactorSession: resolver.session)
    /// ```
    public func verifyPhoneNumber(with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession?) async throws -> String {
        guard let pending = multiFactorSession?.pendingCredential else {
            throw AuthErrorFactory.make(.missingMultiFactorSession)
        }
        var request = StartMFASignInRequest(mfaPendingCredential: pending, mfaEnrollmentId: multiFactorInfo.uid)
        request.phoneSignInInfo = StartMFAEnrollmentRequest.PhoneStart(phoneNumber: nil)
        let reply = try await auth.core.call(Endpoints.startMFASignIn, request)
        guard !reply.phoneResponseInfo.sessionInfo.isEmpty else {
            throw AuthErrorFactory.make(.internalError, detail: "The server returned no session.")
        }
        return reply.phoneResponseInfo.sessionInfo
    }

    public func verifyPhoneNumber(with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession?,
                                  completion: (@MainActor @Sendable (String?, (any Error)?) -> Void)?) {
        deliver(completion) {
            try await self.verifyPhoneNumber(with: multiFactorInfo, uiDelegate: nil, multiFactorSession: multiFactorSession)
        }
    }

    /// A credential from the id ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`` returned and the code.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(verificationID: verificationID, verificationCode: verificationCode)
    }
}
