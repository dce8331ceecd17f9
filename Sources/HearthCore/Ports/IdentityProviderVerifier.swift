import Foundation

/// Turns an IdP credential (the fields of `signInWithIdp`'s `postBody`) into a verified ``FederatedAssertion``:
/// checks signatures, audiences, nonces, or calls the provider's profile API. Implemented outside the core (it
/// speaks HTTP); throws ``AuthFailure/invalidIDPResponse(_:)`` or ``AuthFailure/providerNotEnabled(_:)``.
public protocol IdentityProviderVerifier: Sendable {
    func assertion(providerID: String, fields: [String: String], requestURI: String, project: ProjectContext)
        async throws -> FederatedAssertion
}
