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
    /// Verified tokens, so a token reused for its hour is checked cryptographically once (capacity 0 disables).
    public let cache: VerifiedTokenCache

    public init(issuerPrefix: String = "https://securetoken.google.com/", lifetime: TimeInterval = 3600,
                cache: VerifiedTokenCache = VerifiedTokenCache()) {
        self.issuerPrefix = issuerPrefix
        self.lifetime = lifetime
        self.cache = cache
    }

    /// Claims Firebase forbids in `customAttributes`: they can never be overridden.
    public static let reservedClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    /// Signs an ID token for `user` in the sign-in `session`.
    public func mint(for user: UserRecord, session: SignInSession, projectID: String, keys: KeyRing, now: Date) throws -> String {
        var claims = JSONWriter()
        // Developer claims first, at the top level: the user's `customAttributes`, then the session's (a custom
        // token's `claims`), which win on a clash. Reserved and standard names are never taken from them.
        var developer: [String: Any] = [:]
        for source in [user.customAttributes, session.extraClaims] {
            if let source, let object = try? JSONSerialization.jsonObject(with: Data(source.utf8)) as? [String: Any] {
                developer.merge(object) { _, new in new }
            }
        }
        for (name, value) in developer.sorted(by: { $0.key < $1.key }) where !Self.reservedClaims.contains(name)
            && !Self.standardClaims.contains(name) {
            if let json = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                claims.raw(name, json)
            }
        }
        let iat = now.epochSeconds
        claims.string("iss", issuerPrefix + projectID)
        claims.string("aud", projectID)
        claims.int("auth_time", session.authTime.epochSeconds)
        claims.string("user_id", user.localID)
        claims.string("sub", user.localID)
        claims.int("iat", iat)
        claims.int("exp", iat + Int64(lifetime))
        if let email = user.email {
            claims.string("email", email)
            claims.bool("email_verified", user.emailVerified)
        }
        if let phone = user.phoneNumber { claims.string("phone_number", phone) }
        if let name = user.displayName { claims.string("name", name) }
        if let picture = user.photoURL { claims.string("picture", picture) }
        if session.signInProvider == "anonymous" { claims.string("provider_id", "anonymous") }
        var firebase = JSONWriter()
        firebase.stringLists("identities", user.identities)
        firebase.string("sign_in_provider", session.signInProvider)
        if let tenant = user.tenantID { firebase.string("tenant", tenant) }
        if let factor = session.secondFactor {
            firebase.string("sign_in_second_factor", factor)
            if let id = session.secondFactorID { firebase.string("second_factor_identifier", id) }
        }
        if let attributes = session.signInAttributes,
           (try? JSONSerialization.jsonObject(with: Data(attributes.utf8))) is [String: Any] {
            firebase.raw("sign_in_attributes", Data(attributes.utf8))
        }
        claims.raw("firebase", firebase.finish())
        return try JWS.sign(payload: claims.finish(), with: keys.active)
    }

    /// Claims Hearth sets itself; a custom claim of the same name would produce a duplicate key.
    static let standardClaims: Set<String> = [
        "user_id", "email", "email_verified", "phone_number", "name", "picture", "provider_id",
    ]

    /// Verifies signature, issuer, audience and expiry, and returns the claims Hearth acts on.
    public func verify(_ token: String, projectID: String, keys: KeyRing, now: Date) throws(TokenError) -> IDTokenClaims {
        let seconds = now.epochSeconds
        if let cached = cache.claims(for: token, projectID: projectID, keys: keys) {
            guard cached.exp > seconds else { throw .expired }
            return cached
        }
        let (payload, kid) = try JWS.verifyReturningKey(token, keys: keys)
        guard let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: payload), !claims.sub.isEmpty else {
            throw .malformed
        }
        guard claims.aud == projectID else { throw .wrongAudience }
        guard claims.iss == issuerPrefix + projectID else { throw .wrongIssuer }
        guard claims.exp > seconds else { throw .expired }
        guard claims.iat <= seconds + 300 else { throw .issuedInFuture }
        // Hearth never mints a longer token, whatever key signed it; and a retired key signs nothing after its
        // retirement, so a token claiming otherwise was made with a copy of the key.
        guard claims.exp - claims.iat <= Int64(lifetime) else { throw .badSignature }
        if let retired = keys.byKid[kid]?.retiredAt, claims.iat > retired.epochSeconds { throw .badSignature }
        cache.remember(claims, for: token, kid: kid)
        return claims
    }
}

/// What a sign-in established, carried by refresh tokens into every ID token minted from them.
public struct SignInSession: Sendable, Equatable {
    public var signInProvider: String
    public var authTime: Date
    public var secondFactor: String?
    public var secondFactorID: String?
    /// Claims of the sign-in itself (a custom token's `claims`): a JSON object repeated in every ID token of the
    /// session, refreshes included, but not stored on the user.
    public var extraClaims: String?
    /// A SAML sign-in's attribute statements (a JSON object), in this sign-in's ID token only
    /// (`firebase.sign_in_attributes`).
    public var signInAttributes: String?

    public init(signInProvider: String, authTime: Date, secondFactor: String? = nil, secondFactorID: String? = nil,
                extraClaims: String? = nil, signInAttributes: String? = nil) {
        self.signInAttributes = signInAttributes
        self.signInProvider = signInProvider
        self.authTime = authTime
        self.secondFactor = secondFactor
        self.secondFactorID = secondFactorID
        self.extraClaims = extraClaims
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
