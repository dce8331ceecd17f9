import Foundation
import HearthWire

/// A project's or tenant's password policy, as the server enforces it: the JS SDK's `PasswordPolicy` (FirebaseAuth
/// for Apple platforms has none; this is HearthAuth's addition, with the JS SDK's names).
public struct PasswordPolicy: Sendable, Equatable {
    public struct CustomStrengthOptions: Sendable, Equatable {
        public let minPasswordLength: Int?
        public let maxPasswordLength: Int?
        public let containsLowercaseLetter: Bool?
        public let containsUppercaseLetter: Bool?
        public let containsNumericCharacter: Bool?
        public let containsNonAlphanumericCharacter: Bool?
    }

    /// What the policy requires.
    public let customStrengthOptions: CustomStrengthOptions
    /// The characters that count as non-alphanumeric.
    public let allowedNonAlphanumericCharacters: String
    /// `ENFORCE` or `OFF`.
    public let enforcementState: String
    /// Whether existing passwords must meet the policy to sign in.
    public let forceUpgradeOnSignin: Bool

    init(_ reply: PasswordPolicyResponse) {
        let options = reply.customStrengthOptions
        customStrengthOptions = CustomStrengthOptions(
            minPasswordLength: options.minPasswordLength ?? 6, maxPasswordLength: options.maxPasswordLength,
            containsLowercaseLetter: options.containsLowercaseCharacter, containsUppercaseLetter: options.containsUppercaseCharacter,
            containsNumericCharacter: options.containsNumericCharacter,
            containsNonAlphanumericCharacter: options.containsNonAlphanumericCharacter)
        allowedNonAlphanumericCharacters = reply.allowedNonAlphanumericCharacters.joined()
        enforcementState = reply.enforcementState == "ENFORCEMENT_STATE_UNSPECIFIED" ? "OFF" : reply.enforcementState
        forceUpgradeOnSignin = reply.forceUpgradeOnSignin
    }

    /// How `password` fares against the policy, requirement by requirement (`nil`: the policy does not ask).
    public func validate(_ password: String) -> PasswordValidationStatus {
        let length = password.utf16.count  // as the JS SDK and the server count
        let options = customStrengthOptions
        func requires(_ rule: Bool?, _ test: (Character) -> Bool) -> Bool? { rule == true ? password.contains(where: test) : nil }
        return PasswordValidationStatus(
            meetsMinPasswordLength: options.minPasswordLength.map { length >= $0 },
            meetsMaxPasswordLength: options.maxPasswordLength.map { length <= $0 },
            containsLowercaseLetter: requires(options.containsLowercaseLetter) { ("a"..."z").contains($0) },
            containsUppercaseLetter: requires(options.containsUppercaseLetter) { ("A"..."Z").contains($0) },
            containsNumericCharacter: requires(options.containsNumericCharacter) { ("0"..."9").contains($0) },
            containsNonAlphanumericCharacter: requires(options.containsNonAlphanumericCharacter) {
                allowedNonAlphanumericCharacters.contains($0)
            },
            passwordPolicy: self)
    }
}

/// The JS SDK's `PasswordValidationStatus`: each requirement the policy has, met or not, and whether all are.
public struct PasswordValidationStatus: Sendable, Equatable {
    public let meetsMinPasswordLength: Bool?
    public let meetsMaxPasswordLength: Bool?
    public let containsLowercaseLetter: Bool?
    public let containsUppercaseLetter: Bool?
    public let containsNumericCharacter: Bool?
    public let containsNonAlphanumericCharacter: Bool?
    public let passwordPolicy: PasswordPolicy

    public var isValid: Bool {
        [meetsMinPasswordLength, meetsMaxPasswordLength, containsLowercaseLetter, containsUppercaseLetter,
         containsNumericCharacter, containsNonAlphanumericCharacter].allSatisfy { $0 ?? true }
    }
}

extension Auth {
    /// Checks a password against the project's (or ``tenantID``'s) policy before sending it, as the JS SDK's
    /// `validatePassword` does. The policy is fetched once and read again after the server refuses a password
    /// (`passwordDoesNotMeetRequirements`): it changed meanwhile.
    ///
    /// ```swift
    /// let status = try await Auth.auth().validatePassword("hunter2")
    /// if !status.isValid { showHint(status.passwordPolicy.customStrengthOptions) }
    /// ```
    public func validatePassword(_ password: String) async throws -> PasswordValidationStatus {
        try await core.passwordPolicy(tenantID: tenantID).validate(password)
    }
}
