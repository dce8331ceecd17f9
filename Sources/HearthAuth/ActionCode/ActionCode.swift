import Foundation
import HearthWire

/// Where an email link leads after the action, and whether the app opens it itself.
///
/// ```swift
/// let settings = ActionCodeSettings()
/// settings.url = URL(string: "https://example.com/finish")
/// settings.handleCodeInApp = true
/// settings.setIOSBundleID(Bundle.main.bundleIdentifier!)
/// try await Auth.auth().sendSignInLink(toEmail: email, actionCodeSettings: settings)
/// ```
public final class ActionCodeSettings: @unchecked Sendable {
    private let lock = NSLock()
    private var values: (url: URL?, handleCodeInApp: Bool, iOSBundleID: String?, androidPackageName: String?,
                         androidInstallIfNotAvailable: Bool, androidMinimumVersion: String?, linkDomain: String?)
        = (nil, false, nil, nil, false, nil, nil)

    public init() {}

    /// The continue URL (an authorized domain).
    public var url: URL? {
        get { lock.locked { values.url } }
        set { lock.locked { values.url = newValue } }
    }

    /// Open the link in the app rather than the hosted action page (required for email-link sign-in).
    public var handleCodeInApp: Bool {
        get { lock.locked { values.handleCodeInApp } }
        set { lock.locked { values.handleCodeInApp = newValue } }
    }

    public var iOSBundleID: String? { lock.locked { values.iOSBundleID } }
    public var androidPackageName: String? { lock.locked { values.androidPackageName } }
    public var androidInstallIfNotAvailable: Bool { lock.locked { values.androidInstallIfNotAvailable } }
    public var androidMinimumVersion: String? { lock.locked { values.androidMinimumVersion } }

    /// The domain of the link (Firebase Hosting's custom domain); Hearth links always use the server's own URL.
    public var linkDomain: String? {
        get { lock.locked { values.linkDomain } }
        set { lock.locked { values.linkDomain = newValue } }
    }

    public func setIOSBundleID(_ bundleID: String) { lock.locked { values.iOSBundleID = bundleID } }

    public func setAndroidPackageName(_ name: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        lock.locked {
            values.androidPackageName = name
            values.androidInstallIfNotAvailable = installIfNotAvailable
            values.androidMinimumVersion = minimumVersion
        }
    }

    func apply(to request: inout SendOobCodeRequest) {
        request.continueUrl = url?.absoluteString
        request.canHandleCodeInApp = handleCodeInApp ? true : nil
        request.iOSBundleId = iOSBundleID
        request.androidPackageName = androidPackageName
        request.androidInstallApp = androidPackageName == nil ? nil : androidInstallIfNotAvailable
        request.androidMinimumVersion = androidMinimumVersion
        request.linkDomain = linkDomain
    }
}

/// What an action code is for.
public enum ActionCodeOperation: Int, Sendable {
    case unknown = 0
    case passwordReset = 1
    case verifyEmail = 2
    case recoverEmail = 3
    case emailLink = 4
    case verifyAndChangeEmail = 5
    case revertSecondFactorAddition = 6

    init(requestType: String?) {
        switch requestType {
        case "PASSWORD_RESET": self = .passwordReset
        case "VERIFY_EMAIL": self = .verifyEmail
        case "RECOVER_EMAIL": self = .recoverEmail
        case "EMAIL_SIGNIN": self = .emailLink
        case "VERIFY_AND_CHANGE_EMAIL": self = .verifyAndChangeEmail
        case "REVERT_SECOND_FACTOR_ADDITION": self = .revertSecondFactorAddition
        default: self = .unknown
        }
    }
}

/// What ``Auth/checkActionCode(_:)`` learns about a code.
public struct ActionCodeInfo: Sendable {
    public let operation: ActionCodeOperation
    /// The address the code is for (the new address, for a change of email).
    public let email: String
    /// The address before a change, for recover-email and verify-and-change-email codes.
    public let previousEmail: String?
}

/// The parts of an email action link.
public struct ActionCodeURL: Sendable {
    public let apiKey: String?
    public let operation: ActionCodeOperation
    /// The one-time code (`oobCode`); optional as in FirebaseAuth, though a parsed link always has one.
    public let code: String?
    public let continueURL: URL?
    public let languageCode: String?

    /// Parses a link (directly, or nested in `link=` / `deep_link_id=` as dynamic links wrap it).
    public init?(link: String) {
        guard let items = Self.items(of: link), let code = items["oobCode"] else { return nil }
        self.code = code
        apiKey = items["apiKey"]
        operation = ActionCodeOperation(requestType: items["mode"].map { mode in
            ["resetPassword": "PASSWORD_RESET", "verifyEmail": "VERIFY_EMAIL", "recoverEmail": "RECOVER_EMAIL",
             "signIn": "EMAIL_SIGNIN", "verifyAndChangeEmail": "VERIFY_AND_CHANGE_EMAIL",
             "revertSecondFactorAddition": "REVERT_SECOND_FACTOR_ADDITION"][mode] ?? mode
        })
        continueURL = items["continueUrl"].flatMap(URL.init(string:))
        languageCode = items["lang"]
    }

    static func oobCode(in link: String) -> String? { items(of: link)?["oobCode"] }

    private static func items(of link: String) -> [String: String]? {
        guard let components = URLComponents(string: link) else { return nil }
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] { items[item.name] = item.value }
        if items["oobCode"] == nil, let nested = items["link"] ?? items["deep_link_id"] { return Self.items(of: nested) }
        return items
    }
}

extension Auth {
    /// Emails a sign-in link; finish with ``signIn(withEmail:link:)``. `handleCodeInApp` must be true.
    ///
    /// ```swift
    /// try await Auth.auth().sendSignInLink(toEmail: email, actionCodeSettings: settings)
    /// ```
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        guard actionCodeSettings.handleCodeInApp else {
            throw AuthErrorFactory.make(.invalidContinueURI, detail: "The action code settings must set handleCodeInApp to true.")
        }
        var request = SendOobCodeRequest(requestType: .emailSignIn, email: email)
        actionCodeSettings.apply(to: &request)
        _ = try await core.call(Endpoints.sendOobCode, request)
    }

    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings,
                               completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    /// Whether `link` is an email sign-in link.
    public func isSignIn(withEmailLink link: String) -> Bool {
        guard let url = ActionCodeURL(link: link) else { return false }
        return url.operation == .emailLink
    }

    /// Signs in with an email link (the email must be the one the link was sent to).
    ///
    /// ```swift
    /// if Auth.auth().isSignIn(withEmailLink: link) { try await Auth.auth().signIn(withEmail: email, link: link) }
    /// ```
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, link: link))
    }

    public func signIn(withEmail email: String, link: String, completion: AuthDataResultCallback? = nil) {
        deliver(completion) { try await self.signIn(withEmail: email, link: link) }
    }

    /// Emails a password-reset link.
    ///
    /// ```swift
    /// try await Auth.auth().sendPasswordReset(withEmail: "ada@example.com")
    /// ```
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        var request = SendOobCodeRequest(requestType: .passwordReset, email: email)
        actionCodeSettings?.apply(to: &request)
        _ = try await core.call(Endpoints.sendOobCode, request)
    }

    public func sendPasswordReset(withEmail email: String, completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendPasswordReset(withEmail: email) }
    }

    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings?,
                                  completion: UserProfileChangeCallback? = nil) {
        deliver(completion) { try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    /// Sets a new password with the code of a reset link.
    ///
    /// ```swift
    /// try await Auth.auth().confirmPasswordReset(withCode: oobCode, newPassword: "n3w-s3cret")
    /// ```
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await core.call(Endpoints.resetPassword, ResetPasswordRequest(oobCode: code, newPassword: newPassword))
    }

    public func confirmPasswordReset(withCode code: String, newPassword: String,
                                     completion: @escaping @MainActor @Sendable ((any Error)?) -> Void) {
        deliver(completion) { try await self.confirmPasswordReset(withCode: code, newPassword: newPassword) }
    }

    /// The email a password-reset code is for, without using the code up.
    ///
    /// ```swift
    /// let email = try await Auth.auth().verifyPasswordResetCode(oobCode)
    /// ```
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let info = try await checkActionCode(code)
        guard info.operation == .passwordReset else { throw AuthErrorFactory.make(.invalidActionCode) }
        return info.email
    }

    public func verifyPasswordResetCode(_ code: String,
                                        completion: @escaping @MainActor @Sendable (String?, (any Error)?) -> Void) {
        deliver(completion) { try await self.verifyPasswordResetCode(code) }
    }

    /// What a code is for, without using it up.
    ///
    /// ```swift
    /// let info = try await Auth.auth().checkActionCode(oobCode)
    /// if info.operation == .verifyAndChangeEmail { print(info.previousEmail ?? "", "→", info.email) }
    /// ```
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let reply = try await core.call(Endpoints.resetPassword, ResetPasswordRequest(oobCode: code))
        let operation = ActionCodeOperation(requestType: reply.requestType)
        let newEmail = reply.newEmail.flatMap { $0.isEmpty ? nil : $0 }
        let email = (operation == .verifyAndChangeEmail ? newEmail : nil) ?? reply.email ?? ""
        let previous = operation == .verifyAndChangeEmail || operation == .recoverEmail ? reply.email : nil
        return ActionCodeInfo(operation: operation, email: email, previousEmail: previous == email ? nil : previous)
    }

    public func checkActionCode(_ code: String,
                                completion: @escaping @MainActor @Sendable (ActionCodeInfo?, (any Error)?) -> Void) {
        deliver(completion) { try await self.checkActionCode(code) }
    }

    /// Applies an out-of-band code (email verification, change of email).
    ///
    /// ```swift
    /// try await Auth.auth().applyActionCode(oobCode)
    /// ```
    public func applyActionCode(_ code: String) async throws {
        var request = UpdateAccountRequest(idToken: nil)
        request.oobCode = code
        _ = try await core.call(Endpoints.update, request)
        if let user = core.user { try? await user.reload() }
    }

    public func applyActionCode(_ code: String, completion: @escaping @MainActor @Sendable ((any Error)?) -> Void) {
        deliver(completion) { try await self.applyActionCode(code) }
    }

    /// The sign-in methods of an email (empty when the project protects against email enumeration).
    ///
    /// ```swift
    /// let methods = try await Auth.auth().fetchSignInMethods(forEmail: "ada@example.com")   // ["password"]
    /// ```
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        var request = CreateAuthUriRequest(identifier: email, continueUri: "http://localhost")
        request.tenantId = tenantID
        return try await core.call(Endpoints.createAuthUri, request).signinMethods ?? []
    }

    public func fetchSignInMethods(forEmail email: String,
                                   completion: (@MainActor @Sendable ([String]?, (any Error)?) -> Void)? = nil) {
        deliver(completion) { try await self.fetchSignInMethods(forEmail: email) }
    }
}
