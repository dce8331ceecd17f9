import Foundation
import HearthCore
import HearthWire

extension SignInWithIdpResponse {
    /// The IdP's side of the answer: profile and credential.
    init(_ assertion: FederatedAssertion) {
        self.init(providerId: assertion.providerID, federatedId: assertion.federatedID)
        displayName = assertion.displayName
        fullName = assertion.displayName
        firstName = assertion.firstName
        lastName = assertion.lastName
        screenName = assertion.screenName
        email = assertion.email
        emailVerified = assertion.email == nil ? nil : assertion.emailVerified
        photoUrl = assertion.photoURL
        rawUserInfo = assertion.rawUserInfo
        oauthAccessToken = assertion.oauthAccessToken
        oauthIdToken = assertion.oauthIdToken
        oauthTokenSecret = assertion.oauthTokenSecret
        oauthRefreshToken = assertion.oauthRefreshToken
        oauthExpireIn = assertion.oauthExpiresIn
    }
}
