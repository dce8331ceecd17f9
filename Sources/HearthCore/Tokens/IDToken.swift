import Foundation

/// Mints and reads Firebase ID tokens (RS256 JWTs, one hour).
///
/// ```swift
/// let issuer = IDTokenIssuer(issuerPrefix: "https://securetoken.google.com/")
/// let token = try issuer.mint(for: user, session: session, projectID: "demo", keys: ring, now: clock.now())
/// let claims = try issuer.verify(token, projectID: "demo", keys: ring, now: clock.now())
/// ```
public struct IDTokenIssuer: Sendable {
    /// `iss` is this prefix followed by the project id (Firebase verifiers expect Google's).
    public var issuerPrefix: String
    public var lifetime: TimeInterval

    public init(issuerPrefix: String = "https://securetoken.google.com/", lifetime: TimeInterval = 3600) {
        self.issuerPrefix = issuerPrefix
        self.lifetime = lifetime
    }

    /// Claims Firebase forbids in `customAttributes`: they can never be overridden.
    public static let reservedClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    /// Signs an ID token for `user` in the sign-in `session`.
    public func mint(for user: UserRecord, session: SignInSession, projectID: String, keys: KeyRing, now: Date) throws -> String {
        var claims: [String: Any] = [:]
        if let custom = user.customAttributes, let data = custom.data(using: .utf8),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            for (name, value) in object where !Self.reservedClaims.contains(name) { claims[name] = value }
        }
        let iat = now.epochSeconds
        claims["iss"] = issuerPrefix + projectID
        claims["aud"] = projectID
        claims["auth_time"] = session.authTime.epochSeconds
        claims["user_id"] = user.localID
        claims["sub"] = user.localID
        claims["iat"] = iat
        claims["exp"] = iat + Int64(lifetime)
        if let email = user.email {
            claims["email"] = email
            claims["email_verified"] = user.emailVerified
        }
        if let phone = user.phoneNumber { claims["phone_number"] = phone }
        if let name = user.displayName { claims["name"] = name }
        if let picture = user.photoURL { claims["picture"] = picture }
        if session.signInProvider == "anonymous" { claims["provider_id"] = "anonymous" }
        var firebase: [String: Any] = [
            "identities": user.identities.mapValues { $0 as [Any] }, "sign_in_provider": session.signInProvider,
        ]
        if let tenant = user.tenantID { firebase["tenant"] = tenant }
        if let factor = session.secondFactor {
            firebase["sign_in_second_factor"] = factor
            if let id = session.secondFactorID { firebase["second_factor_identifier"] = id }
        }
        claims["firebase"] = firebase
        return try JWS.sign(claims: claims, with: keys.active)
    }

    /// Verifies signature, issuer, audience and expiry, and returns the claims Hearth acts on.
    public func verify(_ token: String, projectID: String, keys: KeyRing, now: Date) throws(TokenError) -> IDTokenClaims {
        let payload = try JWS.verify(token, keys: keys)
        guard let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: payload), !claims.sub.isEmpty else {
            throw .malformed
        }
        guard claims.aud == projectID else { throw .wrongAudience }
        guard claims.iss == issuerPrefix + projectID else { throw .wrongIssuer }
        let seconds = now.epochSeconds
        guard claims.exp > seconds else { throw .expired }
        guard claims.iat <= seconds + 300 else { throw .issuedInFuture }
        return claims
    }
}

/// What a sign-in established, carried by refresh tokens into every ID token minted from them.
public struct SignInSession: Sendable, Equatable {
    public var signInProvider: String
    public var authTime: Date
    public var secondFactor: String?
    public var secondFactorID: String?

    public init(signInProvider: String, authTime: Date, secondFactor: String? = nil, secondFactorID: String? = nil) {
        self.signInProvider = signInProvider
        self.authTime = authTime
        self.secondFactor = secondFactor
        self.secondFactorID = secondFactorID
    }
}

/// The verified claims of an ID token that Hearth needs.
public struct IDTokenClaims: Sendable, Decodable, Equatable {
    public var iss: String
    public var aud: String
    public var sub: String
    public var iat: Int64
    public var exp: Int64
    public var authTime: Int64
    public var firebase: Firebase?

    public struct Firebase: Sendable, Decodable, Equatable {
        public var signInProvider: String?
        public var tenant: String?
        public var signInSecondFactor: String?
        public var secondFactorIdentifier: String?

        enum CodingKeys: String, CodingKey {
            case signInProvider = "sign_in_provider", tenant
            case signInSecondFactor = "sign_in_second_factor", secondFactorIdentifier = "second_factor_identifier"
        }
    }

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, authTime = "auth_time", firebase
    }
}
