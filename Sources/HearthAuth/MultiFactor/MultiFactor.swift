import Foundation
#if canImport(UIKit) && os(iOS)
import UIKit
#endif
import HearthWire

/// Proof of a first factor for a second-factor call: the user's ID token (enrollment) or the pending credential of
/// an interrupted sign-in.
public final class MultiFactorSession: @unchecked Sendable {
    let idToken: String?
    let pendingCredential: String?
    private let lock = NSLock()
    private var _core: AuthCore?
    /// The app the session belongs to.
    var core: AuthCore? {
        get { lock.locked { _core } }
        set { lock.locked { _core = newValue } }
    }

    init(idToken: String) {
        self.idToken = idToken
        pendingCredential = nil
    }

    init(pendingCredential: String) {
        idToken = nil
        self.pendingCredential = pendingCredential
    }
}

/// An enrolled second factor.
open class MultiFactorInfo: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The enrollment id.
    public let uid: String
    public let displayName: String?
    public let enrollmentDate: Date
    /// `phone` or `totp`.
    public let factorID: String

    /// What the server said, kept for archiving.
    let wire: MFAInfoWire

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encodeJSON(wire, "wire")
        coder.encodeString(factorID, "factorID")
    }

    public required convenience init?(coder: NSCoder) {
        guard let wire = coder.decodeJSON(MFAInfoWire.self, "wire"), let factorID = coder.decodeString("factorID") else {
            return nil
        }
        self.init(wire, factorID: factorID)
    }

    init(_ wire: MFAInfoWire, factorID: String) {
        self.wire = wire
        uid = wire.mfaEnrollmentId ?? ""
        displayName = wire.displayName
        self.factorID = factorID
        enrollmentDate = wire.enrolledAt.flatMap {
            (try? Date($0, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
                ?? (try? Date($0, strategy: .iso8601))
        } ?? Date(timeIntervalSince1970: 0)
    }

    static func make(_ wire: MFAInfoWire) -> MultiFactorInfo {
        wire.phoneInfo != nil ? PhoneMultiFactorInfo(wire) : TOTPMultiFactorInfo(wire)
    }
}

/// An SMS second factor. `phoneNumber` is masked (`+*******1234`) in a sign-in challenge.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    public static let PhoneMultiFactorID = "phone"
    public static let TOTPMultiFactorID = "totp"
    public let phoneNumber: String

    init(_ wire: MFAInfoWire) {
        phoneNumber = wire.phoneInfo ?? ""
        super.init(wire, factorID: Self.PhoneMultiFactorID)
    }

    override init(_ wire: MFAInfoWire, factorID: String) {
        phoneNumber = wire.phoneInfo ?? ""
        super.init(wire, factorID: factorID)
    }
}

/// An authenticator-app (TOTP) second factor.
public final class TOTPMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    init(_ wire: MFAInfoWire) { super.init(wire, factorID: PhoneMultiFactorInfo.TOTPMultiFactorID) }

    override init(_ wire: MFAInfoWire, factorID: String) { super.init(wire, factorID: factorID) }
}

/// Proof of a second factor: from ``PhoneMultiFactorGenerator`` or ``TOTPMultiFactorGenerator``.
open class MultiFactorAssertion: @unchecked Sendable {
    public let factorID: String
    init(factorID: String) { self.factorID = factorID }
}

public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    let credential: PhoneAuthCredential

    /// `phoneVerificationInfo` of enrollment and sign-in finalization.
    var verificationInfo: PhoneVerificationInfo {
        PhoneVerificationInfo(sessionInfo: credential.verificationID ?? "", code: credential.verificationCode ?? "")
    }
    init(credential: PhoneAuthCredential) {
        self.credential = credential
        super.init(factorID: PhoneMultiFactorInfo.PhoneMultiFactorID)
    }
}

public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    let secret: TOTPSecret?
    let enrollmentID: String?
    let oneTimePassword: String
    init(secret: TOTPSecret?, enrollmentID: String?, oneTimePassword: String) {
        self.secret = secret
        self.enrollmentID = enrollmentID
        self.oneTimePassword = oneTimePassword
        super.init(factorID: PhoneMultiFactorInfo.TOTPMultiFactorID)
    }
}

/// Makes SMS assertions.
///
/// ```swift
/// let credential = PhoneAuthProvider.provider().credential(withVerificationID: id, verificationCode: code)
/// try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: "Phone")
/// ```
public enum PhoneMultiFactorGenerator {
    public static func assertion(with phoneAuthCredential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: phoneAuthCredential)
    }
}

/// A new TOTP secret, shown to the user (QR code or text) before enrolling.
public final class TOTPSecret: @unchecked Sendable {
    private let secretKey: String
    let hashingAlgorithm: String
    let codeLength: Int
    let codeIntervalSeconds: Int
    let sessionInfo: String
    /// Whose ``Auth/defaultUIDelegate`` opens the authenticator app.
    private let core: AuthCore?

    init(secretKey: String, hashingAlgorithm: String, codeLength: Int, codeIntervalSeconds: Int, sessionInfo: String,
         core: AuthCore? = nil) {
        self.core = core
        self.secretKey = secretKey
        self.hashingAlgorithm = hashingAlgorithm
        self.codeLength = codeLength
        self.codeIntervalSeconds = codeIntervalSeconds
        self.sessionInfo = sessionInfo
    }

    /// The base32 secret.
    public func sharedSecretKey() -> String { secretKey }

    /// An `otpauth://totp/…` URL for authenticator apps.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        let escape = { (s: String) in s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
        return "otpauth://totp/\(escape(issuer)):\(escape(accountName))?secret=\(secretKey)&issuer=\(escape(issuer))"
            + "&algorithm=\(hashingAlgorithm)&digits=\(codeLength)&period=\(codeIntervalSeconds)"
    }

    /// Hands the `otpauth://` URL to an authenticator app, as FirebaseAuth does: through the app's
    /// ``Auth/defaultUIDelegate`` if it has one, else the system (`UIApplication` on iOS, `open` on macOS, `$BROWSER`
    /// or `xdg-open` on Linux, which pass it to the registered handler). Fire and forget, as in Firebase.
    ///
    /// ```swift
    /// let url = secret.generateQRCodeURL(withAccountName: user.email ?? "", issuer: "My App")
    /// secret.openInOTPApp(withQRCodeURL: url)
    /// ```
    public func openInOTPApp(withQRCodeURL qrCodeURL: String) {
        guard let url = URL(string: qrCodeURL), url.scheme == "otpauth" else { return }
        if let opener = core?.defaultUIDelegate {
            Task { try? await opener.open(url) }
            return
        }
        #if canImport(UIKit) && os(iOS)
        Task { @MainActor in _ = await UIApplication.shared.open(url) }
        #else
        Task { try? await SystemBrowser().open(url) }
        #endif
    }
}

/// Makes TOTP secrets and assertions.
///
/// ```swift
/// let session = try await user.multiFactor.session()
/// let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
/// let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: codeFromApp)
/// try await user.multiFactor.enroll(with: assertion, displayName: "Authenticator")
/// ```
public enum TOTPMultiFactorGenerator {
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        guard let idToken = session.idToken, let core = session.core else {
            throw AuthErrorFactory.make(.invalidMultiFactorSession, detail: "A TOTP secret needs an enrollment session.")
        }
        let reply = try await core.call(Endpoints.startMFAEnrollment, StartMFAEnrollmentRequest(idToken: idToken, totp: true))
        guard let info = reply.totpSessionInfo, !info.sharedSecretKey.isEmpty else {
            throw AuthErrorFactory.make(.internalError, detail: "The server returned no TOTP secret.")
        }
        return TOTPSecret(secretKey: info.sharedSecretKey, hashingAlgorithm: info.hashingAlgorithm,
                          codeLength: info.verificationCodeLength, codeIntervalSeconds: info.periodSec,
                          sessionInfo: info.sessionInfo, core: core)
    }

    public static func generateSecret(with session: MultiFactorSession,
                                      completion: @escaping @MainActor @Sendable (TOTPSecret?, (any Error)?) -> Void) {
        deliver(completion) { try await generateSecret(with: session) }
    }

    public static func assertionForEnrollment(with secret: TOTPSecret, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(secret: secret, enrollmentID: nil, oneTimePassword: oneTimePassword)
    }

    public static func assertionForSignIn(withEnrollmentID enrollmentID: String,
                                          oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(secret: nil, enrollmentID: enrollmentID, oneTimePassword: oneTimePassword)
    }
}

/// The spellings of other Firebase SDKs.
public typealias TotpMultiFactorGenerator = TOTPMultiFactorGenerator
public typealias TotpMultiFactorInfo = TOTPMultiFactorInfo
public typealias TotpSecret = TOTPSecret
public typealias TotpMultiFactorAssertion = TOTPMultiFactorAssertion

/// A user's second factors.
///
/// ```swift
/// for factor in user.multiFactor.enrolledFactors { print(factor.factorID, factor.displayName ?? "") }
/// ```
public final class MultiFactor: NSObject, NSSecureCoding, @unchecked Sendable {
    private let user: User

    init(user: User) { self.user = user }

    public static let supportsSecureCoding = true

    public func encode(with coder: NSCoder) { coder.encode(user, forKey: "user") }

    public init?(coder: NSCoder) {
        guard let user = coder.decodeObjectIfPresent(of: User.self, forKey: "user") else { return nil }
        self.user = user
    }

    public var enrolledFactors: [MultiFactorInfo] { user.snapshot.mfa.map(MultiFactorInfo.make) }

    /// A session for enrolling a factor (the user's current ID token).
    ///
    /// ```swift
    /// let session = try await user.multiFactor.session()
    /// let id = try await PhoneAuthProvider.provider().verifyPhoneNumber("+16505550123", uiDelegate: nil,
    ///                                                                   multiFactorSession: session)
    /// ```
    public func session() async throws -> MultiFactorSession {
        let session = MultiFactorSession(idToken: try await user.getIDToken())
        session.core = user.core
        return session
    }

    public func getSessionWithCompletion(_ completion: (@MainActor @Sendable (MultiFactorSession?, (any Error)?) -> Void)?) {
        deliver(completion) { try await self.session() }
    }

    /// Enrolls the factor an assertion proves; the user gets new tokens.
    ///
    /// ```swift
    /// let credential = PhoneAuthProvider.provider().credential(withVerificationID: id, verificationCode: code)
    /// try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: "Work")
    /// ```
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        var request = FinalizeMFAEnrollmentRequest(idToken: try await user.getIDToken(), displayName: displayName)
        switch assertion {
        case let phone as PhoneMultiFactorAssertion:
            request.phoneVerificationInfo = phone.verificationInfo
        case let totp as TOTPMultiFactorAssertion:
            guard let secret = totp.secret else {
                throw AuthErrorFactory.make(.invalidMultiFactorSession, detail: "Enroll with assertionForEnrollment(with:oneTimePassword:).")
            }
            request.totpVerificationInfo = TOTPVerificationInfo(sessionInfo: secret.sessionInfo, verificationCode: totp.oneTimePassword)
        default:
            throw AuthErrorFactory.make(.internalError, detail: "Unsupported second factor.")
        }
        let reply = try await user.call(Endpoints.finalizeMFAEnrollment, request)
        try await user.adopt(reply.signIn)
    }

    public func enroll(with assertion: MultiFactorAssertion, displayName: String?,
                       completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.enroll(with: assertion, displayName: displayName) }
    }

    /// Removes a factor.
    ///
    /// ```swift
    /// try await user.multiFactor.unenroll(with: user.multiFactor.enrolledFactors[0])
    /// ```
    public func unenroll(with factorInfo: MultiFactorInfo) async throws { try await unenroll(withFactorUID: factorInfo.uid) }

    public func unenroll(withFactorUID factorUID: String) async throws {
        let request = WithdrawMFARequest(idToken: try await user.getIDToken(), mfaEnrollmentId: factorUID)
        let reply = try await user.call(Endpoints.withdrawMFA, request)
        try await user.adopt(reply.signIn)
    }

    public func unenroll(with factorInfo: MultiFactorInfo, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.unenroll(with: factorInfo) }
    }

    public func unenroll(withFactorUID factorUID: String, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.unenroll(withFactorUID: factorUID) }
    }
}

/// What a ``AuthErrorCode/secondFactorRequired`` error carries: the user's factors and how to finish.
///
/// ```swift
/// catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
///     let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
///     let hint = resolver.hints[0]
///     let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: code)
///     let result = try await resolver.resolveSignIn(with: assertion)
/// }
/// ```
public final class MultiFactorResolver: @unchecked Sendable {
    public let session: MultiFactorSession
    public let hints: [MultiFactorInfo]
    public let auth: Auth
    private let finish: @Sendable (SignInReply) async throws -> AuthDataResult

    init(auth: Auth, session: MultiFactorSession, hints: [MultiFactorInfo],
         finish: @escaping @Sendable (SignInReply) async throws -> AuthDataResult) {
        self.auth = auth
        self.session = session
        self.hints = hints
        self.finish = finish
        session.core = auth.core
    }

    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        var request = FinalizeMFASignInRequest(mfaPendingCredential: session.pendingCredential)
        switch assertion {
        case let phone as PhoneMultiFactorAssertion:
            request.phoneVerificationInfo = phone.verificationInfo
        case let totp as TOTPMultiFactorAssertion:
            request.mfaEnrollmentId = totp.enrollmentID
            request.totpVerificationInfo = TOTPVerificationInfo(verificationCode: totp.oneTimePassword)
        default:
            throw AuthErrorFactory.make(.internalError, detail: "Unsupported second factor.")
        }
        let reply = try await auth.core.call(Endpoints.finalizeMFASignIn, request)
        return try await finish(reply.signIn)
    }

    public func resolveSignIn(with assertion: MultiFactorAssertion, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.resolveSignIn(with: assertion) }
    }
}
