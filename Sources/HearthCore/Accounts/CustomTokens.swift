import Foundation

/// What a custom token asserts, once checked.
public struct CustomTokenClaims: Sendable, Equatable {
    public var uid: String
    /// The `claims` object as JSON, if any.
    public var claims: String?
    public var tenantID: String?
}

/// Custom tokens as the Admin SDKs make them (`createCustomToken`): an RS256 JWT signed by a service account with
/// `iss = sub = client_email`, Firebase's audience, `uid`, optional `claims` and `tenant_id`, at most one hour long.
///
/// ```swift
/// let asserted = try CustomToken.verify(token, project: project.record, allowUnsigned: false, now: Date())
/// ```
public enum CustomToken {
    /// The audience every custom token names (Google's Identity Toolkit service).
    public static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    public static let maximumLifetime: Int64 = 3600
    static let clockSkew: Int64 = 300

    /// Checks signature (or, with `allowUnsigned`, accepts `alg: none` and plain-JSON claims as Firebase's emulator
    /// does), audience, times, uid and claims.
    public static func verify(_ token: String, project: ProjectRecord, allowUnsigned: Bool, now: Date) throws
        -> CustomTokenClaims
    {
        if allowUnsigned, token.hasPrefix("{") {
            // The emulator's plain-JSON tokens (the JS SDK's signInWithCustomToken(auth, JSON.stringify({uid}))):
            // the claims themselves, no audience or times.
            guard let object = try? JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any] else {
                throw AuthFailure.invalidCustomToken("((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            return try asserted(object, allowUnsigned: true)
        }
        // A token for another audience (an ID token, a third party's) is named as such before its signature is
        // checked, as Firebase's emulator orders it: its claims are read only to choose the error.
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3,
           let claims = Base64URL.decode(String(parts[1])).flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }),
           let audience = claims["aud"] as? String, audience != Self.audience {
            throw AuthFailure.invalidCustomToken(Self.wrongAudience(audience))
        }
        let payload: Data
        if allowUnsigned, let unsigned = ServiceAccountJWT.unsignedPayload(token) {
            payload = unsigned
        } else {
            do {
                payload = try ServiceAccountJWT.verify(token, accounts: project.serviceAccounts).payload
            } catch .unknownKey {
                throw AuthFailure.credentialMismatch
            } catch .malformed {
                throw AuthFailure.invalidCustomToken("Invalid assertion format")
            } catch .unsupportedAlgorithm {
                throw AuthFailure.invalidCustomToken("Custom tokens must be signed with RS256")
            } catch {
                throw AuthFailure.invalidCustomToken("The custom token's signature does not verify")
            }
        }
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw AuthFailure.invalidCustomToken("Invalid assertion format")
        }
        let audience = object["aud"] as? String ?? ""
        guard audience == Self.audience else {
            throw AuthFailure.invalidCustomToken(Self.wrongAudience(audience))
        }
        // The emulator's unsigned tokens are not time-checked (Firebase's emulator does not check them either).
        if !(allowUnsigned && ServiceAccountJWT.unsignedPayload(token) != nil) {
            guard let iat = (object["iat"] as? NSNumber)?.int64Value, let exp = (object["exp"] as? NSNumber)?.int64Value
            else { throw AuthFailure.invalidCustomToken("The custom token has no iat or exp") }
            let seconds = now.epochSeconds
            guard exp > seconds else { throw AuthFailure.invalidCustomToken("The custom token has expired") }
            guard iat <= seconds + clockSkew else { throw AuthFailure.invalidCustomToken("The custom token is not valid yet") }
            guard exp - iat <= maximumLifetime else {
                throw AuthFailure.invalidCustomToken("The custom token's lifetime is longer than one hour")
            }
        }
        return try asserted(object, allowUnsigned: allowUnsigned)
    }

    static func wrongAudience(_ audience: String) -> String {
        "((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
    }

    /// The uid (`uid`, or the emulator's `user_id`; a number counts as its text), claims and tenant of a payload.
    /// A token without one is `MISSING_IDENTIFIER` in emulator mode (Firebase's emulator) and `INVALID_CUSTOM_TOKEN`
    /// in production (Firebase's answer).
    static func asserted(_ object: [String: Any], allowUnsigned: Bool) throws -> CustomTokenClaims {
        let given = object["uid"] ?? object["user_id"]
        guard let given, !(given is NSNull) else {
            throw allowUnsigned ? AuthFailure.missingIdentifier : AuthFailure.invalidCustomToken("The custom token has no uid")
        }
        let text = (given as? String) ?? ((given as? NSNumber).map { "\($0)" })
        guard let uid = text, !uid.isEmpty, uid.count <= 128 else {
            throw AuthFailure.invalidCustomToken("The uid must be a non-empty string of at most 128 characters")
        }
        var claimsJSON: String?
        if let claims = object["claims"], !(claims is NSNull) {
            guard let dictionary = claims as? [String: Any] else { throw AuthFailure.invalidClaims }
            if let reserved = dictionary.keys.sorted().first(where: IDTokenIssuer.reservedClaims.contains) {
                throw AuthFailure.forbiddenClaim(reserved)
            }
            let data = try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
            guard data.count <= CustomClaims.maximumBytes else { throw AuthFailure.claimsTooLarge }
            if !dictionary.isEmpty { claimsJSON = String(decoding: data, as: UTF8.self) }
        }
        return CustomTokenClaims(uid: uid, claims: claimsJSON, tenantID: object["tenant_id"] as? String)
    }
}

/// Sign-in with a custom token minted by the app's server.
public struct CustomTokens: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// `accounts:signInWithCustomToken`: signs in the token's `uid`, creating the account on first use. The token's
    /// claims go into this session's ID tokens (refreshes included), not onto the user.
    public func signInWithCustomToken(in project: ProjectContext, token: String?, tenantID: String? = nil,
                                      allowUnsigned: Bool) async throws -> SignInOutcome {
        guard let token, !token.isEmpty else { throw AuthFailure.missingCustomToken }
        let tenantID = tenantID ?? project.tenantID
        let now = clock.now()
        let asserted = try CustomToken.verify(token, project: project.record, allowUnsigned: allowUnsigned, now: now)
        guard asserted.tenantID == tenantID else { throw AuthFailure.tenantIDMismatch }
        if let found = try await store.user(projectID: project.id, tenantID: tenantID, localID: asserted.uid) {
            guard !found.disabled else { throw AuthFailure.userDisabled }
            var stamp = SignInStamp(projectID: project.id, tenantID: found.tenantID, localID: found.localID, at: now,
                                    signedIn: true)
            stamp.customToken = true  // a credential: an anonymous account signed into this way is anonymous no more
            return try await completeSignIn(found, provider: "custom", in: project, now: now, .firstFactor(stamp: stamp),
                                            extraClaims: asserted.claims)
        }
        var user = UserRecord(projectID: project.id, tenantID: tenantID, localID: asserted.uid,
                              validSince: now.epochSeconds, createdAt: now, lastLoginAt: now, lastRefreshAt: now)
        user.tenantID = tenantID
        user.customAuth = true
        user = try await create(user, origin: .customToken, in: project)
        do {
            return try await completeSignIn(user, provider: "custom", in: project, now: now, .created,
                                            extraClaims: asserted.claims)
        } catch StoreError.duplicateLocalID {
            // Created by a concurrent first sign-in with the same uid: sign in to that account.
            return try await signInWithCustomToken(in: project, token: token, tenantID: tenantID,
                                                   allowUnsigned: allowUnsigned)
        }
    }
}
