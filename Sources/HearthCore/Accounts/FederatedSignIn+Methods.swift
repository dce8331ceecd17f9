import Foundation

extension FederatedSignIn {
    /// What `createAuthUri` reveals about an email: whether an account has it and how it can sign in.
    public struct SignInMethods: Sendable, Equatable {
        public var registered: Bool
        /// Provider ids, Firebase's `allProviders`.
        public var allProviders: [String]
        /// Sign-in methods, Firebase's `signinMethods` (what `fetchSignInMethods(forEmail:)` returns).
        public var signInMethods: [String]
    }

    /// `createAuthUri` for an email identifier. Returns `nil` under email-enumeration protection, where Firebase
    /// reveals nothing but a session id.
    ///
    /// - Throws: `MISSING_IDENTIFIER` / `INVALID_IDENTIFIER` for an absent or malformed email, `MISSING_CONTINUE_URI` / `INVALID_CONTINUE_URI`
    ///   when the continue URI is absent or not an absolute http(s) URL.
    public func signInMethods(in project: ProjectContext, identifier: String?, continueURI: String?) async throws
        -> SignInMethods?
    {
        // Firebase's order: what is missing, then what is malformed.
        guard let identifier, !identifier.isEmpty else { throw AuthFailure.missingIdentifier }
        guard let continueURI, !continueURI.isEmpty else { throw AuthFailure.missingContinueURI }
        guard EmailAddress.isValid(identifier) else { throw AuthFailure.invalidIdentifier }
        guard let url = URL(string: continueURI), ["http", "https"].contains(url.scheme?.lowercased()),
              url.host?.isEmpty == false
        else { throw AuthFailure.invalidContinueURI }
        guard !project.settings[.enableImprovedEmailPrivacy] else { return nil }
        // The account with this email, else one with a linked identity that has it, as Firebase looks.
        var found = try await store.user(projectID: project.id, tenantID: project.tenantID, email: identifier)
        if found == nil {
            found = try await store.users(projectID: project.id, tenantID: project.tenantID, identityEmail: identifier, limit: 1).first
        }
        guard let user = found else { return SignInMethods(registered: false, allProviders: [], signInMethods: []) }
        var methods: [String] = user.passwordHash != nil ? ["password"] : []
        var providers = user.hasEmailCredential ? ["password"] : []
        if user.emailLinkSignin == true { methods.append("emailLink") }
        // With several accounts per email an identity's address says nothing about this account: password only.
        for provider in user.providers where !project.settings[.allowDuplicateEmails]
            && provider.providerID != "phone" && !methods.contains(provider.providerID) {
            methods.append(provider.providerID)
            providers.append(provider.providerID)
        }
        return SignInMethods(registered: true, allProviders: providers, signInMethods: methods)
    }
}
