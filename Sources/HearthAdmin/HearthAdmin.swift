import AsyncHTTPClient
import Foundation
import HearthWire
import JWTKit
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Server-side access to a Hearth project: verify ID tokens and session cookies, mint custom tokens, manage users
/// over the admin API. Depends on HearthWire, jwt-kit and async-http-client — not on the server.
///
/// ```swift
/// let admin = try HearthAdmin(baseURL: "https://auth.example.com",
///                             credentials: ServiceAccountCredentials(keyFile: keyFileData))
/// let token = try await admin.verifyIDToken(bearer, checkRevoked: true)
/// print(token.uid, token.claims["role"] ?? .null)
/// let custom = try await admin.createCustomToken(uid: "user-42", claims: ["plan": .string("pro")])
/// ```
public struct HearthAdmin: Sendable {
    /// Where Hearth is reached, e.g. `https://auth.example.com` (also the `aud` of admin assertions).
    public let baseURL: String
    public let credentials: ServiceAccountCredentials
    public var projectID: String { credentials.projectID }
    /// `iss` prefix of ID tokens (Hearth's default is Google's, so that Firebase verifiers accept them).
    public var idTokenIssuerPrefix = "https://securetoken.google.com/"
    /// Allowed difference between this machine's clock and Hearth's, on `iat`, `exp` and `auth_time`.
    public var clockSkew: TimeInterval = 300
    /// The tenant this handle manages (see ``forTenant(_:)``); `nil`: the project's own users.
    public internal(set) var tenantID: String?

    let http: HTTPClient
    let now: @Sendable () -> Date
    let idTokenKeys: PublicKeyCache
    let sessionCookieKeys: PublicKeyCache

    public init(baseURL: String, credentials: ServiceAccountCredentials, httpClient: HTTPClient = .shared,
                now: @escaping @Sendable () -> Date = { Date() }) {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.baseURL = base
        self.credentials = credentials
        self.http = httpClient
        self.now = now
        idTokenKeys = PublicKeyCache(
            url: base + "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
            http: httpClient, now: now)
        sessionCookieKeys = PublicKeyCache(
            url: base + "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys", http: httpClient, now: now)
    }

    // MARK: Tokens

    /// Verifies an ID token: RS256 signature by a published key, `iss`, `aud`, `sub`, times (with ``clockSkew``);
    /// with `checkRevoked`, also that the user exists, is enabled and has not revoked sessions since it signed in.
    public func verifyIDToken(_ token: String, checkRevoked: Bool = false) async throws -> VerifiedToken {
        try await verify(token, keys: idTokenKeys, issuer: idTokenIssuerPrefix + projectID, checkRevoked: checkRevoked)
    }

    /// As ``verifyIDToken(_:checkRevoked:)`` for a session cookie (issuer `https://session.firebase.google.com/`).
    public func verifySessionCookie(_ cookie: String, checkRevoked: Bool = false) async throws -> VerifiedToken {
        try await verify(cookie, keys: sessionCookieKeys, issuer: "https://session.firebase.google.com/" + projectID,
                         lifetime: 14 * 86400, checkRevoked: checkRevoked)
    }

    /// A session cookie for a recently signed-in user's ID token, valid for `expiresIn` (5 minutes to 14 days).
    public func createSessionCookie(idToken: String, expiresIn: TimeInterval) async throws -> String {
        let reply = try await call(Endpoints.createSessionCookie,
                                   CreateSessionCookieRequest(idToken: idToken, validDuration: Int64(expiresIn)))
        return reply.sessionCookie
    }

    /// A custom token for `signInWithCustomToken`, signed with this service account (one hour).
    public func createCustomToken(uid: String, claims: [String: JSONValue] = [:]) async throws -> String {
        guard !uid.isEmpty, uid.count <= 128 else { throw HearthAdminError.invalidArgument("uid must be 1 to 128 characters") }
        if let reserved = claims.keys.sorted().first(where: Self.reservedClaims.contains) {
            throw HearthAdminError.invalidArgument("\(reserved) is a reserved claim name")
        }
        let iat = Int(now().timeIntervalSince1970)
        let payload = CustomTokenPayload(
            iss: credentials.clientEmail, sub: credentials.clientEmail,
            aud: "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
            iat: iat, exp: iat + 3600, uid: uid, claims: claims.isEmpty ? nil : claims, tenant_id: tenantID)
        return try await credentials.signingKeys().sign(payload, kid: JWKIdentifier(string: credentials.privateKeyID))
    }

    static let reservedClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    /// `lifetime`: the longest a token of this kind lives (`exp - iat`); a longer one was not made by Hearth's rules,
    /// whatever key signed it.
    private func verify(_ token: String, keys cache: PublicKeyCache, issuer: String, lifetime: Double = 3600,
                        checkRevoked: Bool) async throws
        -> VerifiedToken
    {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = WireObject.base64(String(parts[0])),
              let payloadData = WireObject.base64(String(parts[1])),
              let header = try? JSONDecoder().decode([String: JSONValue].self, from: headerData),
              let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payloadData)
        else { throw HearthAdminError.invalidToken("not a JWT") }
        guard case .string("RS256")? = header["alg"] else { throw HearthAdminError.invalidToken("alg must be RS256") }
        guard case .string(let kid)? = header["kid"] else {
            throw HearthAdminError.invalidToken("the token has no kid (a custom token is not an ID token)")
        }
        let standard: StandardClaims
        do {
            standard = try await cache.keys(for: kid).verify(token, as: StandardClaims.self)
        } catch let error as HearthAdminError {
            throw error
        } catch {
            throw HearthAdminError.invalidToken("signature does not verify with Hearth's published keys")
        }
        guard standard.aud == projectID else { throw HearthAdminError.invalidToken("aud is \(standard.aud), expected \(projectID)") }
        guard standard.iss == issuer else { throw HearthAdminError.invalidToken("iss is \(standard.iss), expected \(issuer)") }
        guard !standard.sub.isEmpty, standard.sub.count <= 128 else { throw HearthAdminError.invalidToken("sub is empty or too long") }
        let current = now().timeIntervalSince1970
        guard standard.exp + clockSkew > current else { throw HearthAdminError.tokenExpired }
        guard standard.iat - clockSkew <= current else { throw HearthAdminError.invalidToken("issued in the future") }
        guard standard.exp - standard.iat <= lifetime else {
            throw HearthAdminError.invalidToken("exp - iat is longer than this kind of token lives (\(Int(lifetime)) s)")
        }
        let authTime = standard.auth_time ?? standard.iat
        guard authTime - clockSkew <= current else { throw HearthAdminError.invalidToken("auth_time is in the future") }
        var signInProvider: String?
        var tenant: String?
        if case .object(let firebase)? = claims["firebase"] {
            if case .string(let provider)? = firebase["sign_in_provider"] { signInProvider = provider }
            if case .string(let name)? = firebase["tenant"] { tenant = name }
        }
        // A tenant's handle accepts only its tenant's tokens, and the project's only the project's.
        guard tenant == tenantID else {
            throw HearthAdminError.tenantMismatch(expected: tenantID, found: tenant)
        }
        let verified = VerifiedToken(
            uid: standard.sub, issuedAt: Date(timeIntervalSince1970: standard.iat),
            expiresAt: Date(timeIntervalSince1970: standard.exp), authTime: Date(timeIntervalSince1970: authTime),
            signInProvider: signInProvider, claims: claims)
        if checkRevoked {
            let user = try await getUser(uid: verified.uid)
            if user.disabled == true { throw HearthAdminError.userDisabled }
            if let validSince = user.validSince.flatMap(Double.init), authTime < validSince {
                throw HearthAdminError.tokenRevoked
            }
        }
        return verified
    }

    // MARK: Admin API plumbing

    /// The path parameters of this handle's calls: its project, and its tenant's users where it has one.
    var parameters: [String: String] {
        var parameters = ["project": projectID]
        parameters["tenant"] = tenantID
        return parameters
    }

    /// A fresh single-use bearer JWT for one admin call (five minutes, unique `jti`).
    func assertion() async throws -> String {
        let iat = Int(now().timeIntervalSince1970)
        return try await credentials.signingKeys().sign(
            AssertionPayload(iss: credentials.clientEmail, sub: credentials.clientEmail, aud: baseURL, iat: iat,
                             exp: iat + 300, jti: UUID().uuidString),
            kid: JWKIdentifier(string: credentials.privateKeyID))
    }

    /// Sends one admin request and decodes the answer, or throws Firebase's error as ``HearthAdminError/server``.
    func call<Request, Reply>(_ endpoint: Endpoint<Request, Reply>, _ body: Request?, parameters extra: [String: String] = [:],
                              query: String = "") async throws -> Reply {
        let path = endpoint.path(parameters.merging(extra) { _, new in new }) + query
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = HTTPMethod(rawValue: endpoint.method.rawValue)
        request.headers.add(name: "Authorization", value: "Bearer " + (try await assertion()))
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .seconds(30))
        } catch {
            throw HearthAdminError.transport("\(baseURL) cannot be reached: \(error)")
        }
        let data = Data(buffer: try await response.body.collect(upTo: 64 << 20))
        guard response.status == .ok else {
            if let envelope = try? WireDecoder.replies.decode(ErrorEnvelope.self, from: data) {
                let message = envelope.error.message
                let code = message.split(separator: " ", maxSplits: 1).first.map(String.init) ?? message
                throw HearthAdminError.server(status: Int(response.status.code), code: code, message: message)
            }
            throw HearthAdminError.transport("\(path) answered \(response.status.code)")
        }
        do { return try WireDecoder.replies.decode(Reply.self, from: data) } catch {
            throw HearthAdminError.transport("\(path) answered something that is not the expected JSON")
        }
    }
}


struct AssertionPayload: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int
    var exp: Int
    var jti: String
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

struct CustomTokenPayload: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int
    var exp: Int
    var uid: String
    var claims: [String: JSONValue]?
    /// The tenant the user signs in to, as Firebase's Admin SDKs write it.
    var tenant_id: String?
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
