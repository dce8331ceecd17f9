import Foundation

/// The fake IdP credentials Firebase's emulator accepts (reference §1.11), for emulator mode only — nothing is
/// verified. The profile is read from `id_token`, else from `access_token` (what the JS SDK's Twitter and
/// `OAuthProvider.credential({accessToken})` send): an unsigned (or any) JWT, or plain JSON, with `sub`, `email`,
/// `email_verified`, `name`, `given_name`, `family_name`, `picture`, `screen_name`. A `saml.*` provider also takes a
/// plain-JSON `SAMLResponse` whose `assertion.subject.nameId` is the address.
///
/// ```swift
/// let fields = try EmulatorIdPToken.fields(requestURI: "http://localhost", postBody: ["providerId": "google.com", "id_token": #"{"sub":"1"}"#])
/// let assertion = try EmulatorIdPToken.assertion(fields)
/// ```
public enum EmulatorIdPToken {
    /// The credential's fields as the emulator reads them: `requestUri`'s query, then `postBody`'s fields, then the
    /// URI's fragment, each overriding the one before. `requestUri` must be absolute.
    public static func fields(requestURI: String, postBody: [String: String]) throws -> [String: String] {
        guard let components = URLComponents(string: requestURI), components.scheme != nil else {
            throw AuthFailure.invalidRequestURI
        }
        var fields = components.percentEncodedQuery.map { FormEncoding.decode($0) } ?? [:]
        fields.merge(postBody) { $1 }
        if let fragment = components.percentEncodedFragment { fields.merge(FormEncoding.decode(fragment)) { $1 } }
        return fields
    }

    public static func assertion(_ fields: [String: String]) throws -> FederatedAssertion {
        guard let providerID = fields["providerId"]?.lowercased(), !providerID.isEmpty else {
            throw AuthFailure.invalidCredentialOrProviderID(FormEncoding.encode(fields))
        }
        let idToken = fields["id_token"].flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = fields["access_token"].flatMap { $0.isEmpty ? nil : $0 }
        guard let claims = try claims(idToken) ?? claims(accessToken) else {
            if let idToken {
                throw AuthFailure.invalidIDPResponse("Unable to parse id_token: \(idToken.prefix(64)) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
            }
            throw AuthFailure.invalidIDPResponse(accessToken == nil
                ? "The Auth Emulator only supports sign-in with credentials (id_token required)."
                : "The Auth Emulator reads a fake access_token only as strict JSON or a JWT with a sub.")
        }
        let sub = claims["sub"] as! String  // checked by claims(_:)
        let email = (claims["email"] as? String).map(EmailAddress.normalized)
        let verified = claims["email_verified"] as? Bool ?? false
        var assertion = FederatedAssertion(providerID: providerID, rawID: sub, email: email, emailVerified: verified,
                                           displayName: claims["name"] as? String, photoURL: claims["picture"] as? String)
        assertion.screenName = claims["screen_name"] as? String
        assertion.oauthIdToken = idToken
        assertion.oauthAccessToken = accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(providerID)"
        assertion.oauthTokenSecret = fields["oauth_token_secret"]
        if providerID == "google.com" {
            // Google's userinfo shape, as the emulator reports it; the email scope only when there is an email.
            assertion.firstName = claims["given_name"] as? String
            assertion.lastName = claims["family_name"] as? String
            var info: [String: Any] = ["id": sub, "verified_email": verified, "locale": "en",
                                       "granted_scopes": "openid https://www.googleapis.com/auth/userinfo.profile"
                                           + (email == nil ? "" : " https://www.googleapis.com/auth/userinfo.email")]
            info["email"] = email
            info["name"] = assertion.displayName
            info["given_name"] = assertion.firstName
            info["family_name"] = assertion.lastName
            info["picture"] = assertion.photoURL
            assertion.rawUserInfo = json(info)
        } else if providerID.hasPrefix("saml.") {
            let response = try samlResponse(fields["SAMLResponse"])
            if let nameID = response.nameID, EmailAddress.isValid(nameID) { assertion.email = nameID }
            assertion.emailVerified = true
            assertion.rawUserInfo = response.attributes.map(json) ?? "null"
            assertion.signInAttributes = response.attributes.map(json)
        } else {
            assertion.rawUserInfo = json(claims)
        }
        return assertion
    }

    /// The claims of a fake token: plain JSON (when it starts with `{`) or a JWT's payload, which must have a
    /// string `sub`; `nil` when the text is neither.
    static func claims(_ token: String?) throws -> [String: Any]? {
        guard let token else { return nil }
        let claims: [String: Any]
        if token.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any] else {
                throw AuthFailure.invalidIDPResponse("Unable to parse id_token: \(token.prefix(64)) ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            claims = object
        } else {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
                  let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
            claims = object
        }
        guard let sub = claims["sub"] else {
            throw AuthFailure.invalidIDPResponse("Invalid Idp Response: id_token missing required fields. ((Missing \"sub\" field. This field is required and must be a unique identifier.))")
        }
        guard sub is String else { throw AuthFailure.invalidIDPResponse("((The \"sub\" field must be a string.))") }
        return claims
    }

    /// The emulator's stand-in for SAML: a JSON `SAMLResponse` with `assertion.subject.nameId` and, optionally,
    /// `assertion.attributeStatements`.
    static func samlResponse(_ text: String?) throws -> (nameID: String?, attributes: [String: Any]?) {
        guard let text else { return (nil, nil) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw AuthFailure.invalidIDPResponse("((SAMLResponse must be JSON in the Auth Emulator.))")
        }
        guard let assertion = object["assertion"] as? [String: Any] else {
            throw AuthFailure.invalidIDPResponse("((Missing assertion in SAMLResponse.))")
        }
        guard let subject = assertion["subject"] as? [String: Any] else {
            throw AuthFailure.invalidIDPResponse("((Missing assertion.subject in SAMLResponse.))")
        }
        guard let nameID = subject["nameId"] as? String, !nameID.isEmpty else {
            throw AuthFailure.invalidIDPResponse("((Missing assertion.subject.nameId in SAMLResponse.))")
        }
        return (nameID, assertion["attributeStatements"] as? [String: Any])
    }

    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
