import Foundation

/// A provider that signs in through a web page, as FirebaseAuth's `FederatedAuthProvider`: ``OAuthProvider``.
///
/// ```swift
/// let provider = OAuthProvider(providerID: .custom("oidc.acme"))
/// let result = try await Auth.auth().signIn(with: provider, uiDelegate: nil)
/// ```
public protocol FederatedAuthProvider: AnyObject, Sendable {
    /// Runs the web sign-in and returns its credential.
    func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential
}

/// Carries a delegate (a view controller on UIKit platforms, not `Sendable`) into a completion form's task: the
/// provider is called once, from that task only.
struct UncheckedDelegate: @unchecked Sendable {
    let value: (any AuthUIDelegate)?
}

extension Auth {
    /// Signs in through the provider's web page.
    ///
    /// ```swift
    /// let result = try await Auth.auth().signIn(with: OAuthProvider(providerID: .gitHub), uiDelegate: nil)
    /// ```
    public func signIn(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws
        -> AuthDataResult
    {
        try await signIn(with: try await provider.credential(with: uiDelegate))
    }

    public func signIn(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
                       completion: AuthDataResultCallback?) {
        let delegate = UncheckedDelegate(value: uiDelegate)
        deliver(completion) { try await self.signIn(with: provider, uiDelegate: delegate.value) }
    }
}

extension User {
    /// Links the provider's account, signed in through its web page.
    ///
    /// ```swift
    /// try await user.link(with: OAuthProvider(providerID: .gitHub), uiDelegate: nil)
    /// ```
    public func link(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws
        -> AuthDataResult
    {
        try await link(with: try await provider.credential(with: uiDelegate))
    }

    public func link(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
                     completion: AuthDataResultCallback?) {
        let delegate = UncheckedDelegate(value: uiDelegate)
        deliver(completion) { try await self.link(with: provider, uiDelegate: delegate.value) }
    }

    /// Proves a recent sign-in again through the provider's web page.
    public func reauthenticate(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws
        -> AuthDataResult
    {
        try await reauthenticate(with: try await provider.credential(with: uiDelegate))
    }

    public func reauthenticate(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
                               completion: AuthDataResultCallback?) {
        let delegate = UncheckedDelegate(value: uiDelegate)
        deliver(completion) { try await self.reauthenticate(with: provider, uiDelegate: delegate.value) }
    }
}
