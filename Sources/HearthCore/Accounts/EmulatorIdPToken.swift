import Foundation

/// The fake IdP credentials Firebase's emulator accepts (reference §1.11): an `id_token` that is an unsigned JWT or
/// plain JSON carrying the profile (`sub`, `email`, `email_verified`, `name`, `picture`, `screen_name`). Emulator
/// mode only — nothing is verified.
public enum EmulatorIdPToken {
    public static func assertion(providerID: String, idToken: String, accessToken: String?, tokenSecret: String?)
        throws -> FederatedAssertion
    {
        guard let claims = parse(idToken) else {
            throw AuthFailure.invalidIDPResponse("Unable to parse id_token: \(idToken.prefix(64)) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
        }
        guard let sub = claims["sub"] as? String, !sub.isEmpty else {
            throw AuthFailure.invalidIDPResponse("The id_token has no sub")
        }
        let email = claims["email"] as? String
        let verified = claims["email_verified"] as? Bool ?? false
        var assertion = FederatedAssertion(providerID: providerID, rawID: sub, email: email, emailVerified: verified,
                                           displayName: claims["name"] as? String, photoURL: claims["picture"] as? String)
        assertion.screenName = claims["screen_name"] as? String
        assertion.oauthIdToken = idToken
        assertion.oauthAccessToken = accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(providerID)"
        assertion.oauthTokenSecret = tokenSecret
        if providerID == "google.com" {
            // Google's userinfo shape, as the emulator reports it.
            var info: [String: Any] = ["id": sub, "verified_email": verified, "locale": "en",
                                       "granted_scopes": "openid https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email"]
            if let email { info["email"] = email }
            if let name = assertion.displayName { info["name"] = name }
            if let picture = assertion.photoURL { info["picture"] = picture }
            assertion.rawUserInfo = json(info)
        } else {
            assertion.rawUserInfo = json(claims)
        }
        return assertion
    }

    static func parse(_ token: String) -> [String: Any]? {
        if let object = try? JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any] { return object }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        return try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
    }

    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
