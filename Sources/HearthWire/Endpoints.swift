import Foundation

/// One call of the wire API: its method, its paths (Google's host as the first segment, as Firebase's emulator
/// serves them), who may call it, and the shapes it takes and answers. The server's route table registers each,
/// and the SDKs send to each, so a name is spelled once.
///
/// ```swift
/// let endpoint = Endpoints.signInWithPassword
/// endpoint.path          // "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"
/// endpoint.legacyPath    // "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword"
/// ```
public struct Endpoint<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable {
    public let method: EndpointMethod
    /// The path, with `{project}`-style parameters.
    public let path: String
    /// The legacy v3 name of the same call, served alongside with the same guards.
    public let legacyPath: String?
    public let access: EndpointAccess
    /// Whether the call also takes an `application/x-www-form-urlencoded` body (the Secure Token API does).
    public let acceptsForm: Bool

    public init(_ method: EndpointMethod, _ path: String, legacy legacyPath: String? = nil, access: EndpointAccess,
                acceptsForm: Bool = false) {
        self.method = method
        self.path = path
        self.legacyPath = legacyPath
        self.access = access
        self.acceptsForm = acceptsForm
    }

    /// Every path the call is served under.
    public var paths: [String] { [path] + (legacyPath.map { [$0] } ?? []) }

    /// The admin API's same call on a tenant's users: `…/projects/{project}/tenants/{tenant}/…`.
    public var tenantPath: String { Self.inTenant(path) }

    /// Every path, and each path's tenant form where it has one (the admin API's calls on users).
    public var pathsWithTenants: [String] {
        paths + paths.map(Self.inTenant).filter { !paths.contains($0) }
    }

    static func inTenant(_ path: String) -> String {
        path.replacingOccurrences(of: "/projects/{project}/accounts", with: "/projects/{project}/tenants/{tenant}/accounts")
            .replacingOccurrences(of: "/projects/{project}:", with: "/projects/{project}/tenants/{tenant}:")
    }

    /// `path` with its parameters filled in (percent-encoded as path segments).
    public func path(_ parameters: [String: String]) -> String {
        var result = parameters["tenant"] == nil ? path : tenantPath
        for (name, value) in parameters {
            let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? value
            result = result.replacingOccurrences(of: "{\(name)}", with: encoded)
        }
        return result
    }

    /// The endpoint without its types, for lists and tests.
    public var description: EndpointDescription {
        EndpointDescription(method: method, paths: paths, access: access)
    }
}

public enum EndpointMethod: String, Sendable, Hashable {
    case get = "GET", post = "POST", patch = "PATCH", delete = "DELETE"
}

/// Who may call an endpoint: the route group whose guards it sits behind.
public enum EndpointAccess: String, Sendable, Hashable {
    /// An API key (`?key=`).
    case client
    /// An admin credential (a bearer token, or the console's session).
    case admin
    /// Either: Admin SDKs call these client paths with a bearer and no key.
    case clientOrAdmin
}

/// An endpoint's method, paths and access, without its types.
public struct EndpointDescription: Sendable, Hashable {
    public let method: EndpointMethod
    public let paths: [String]
    public let access: EndpointAccess
}

/// The wire API, one declaration per call.
public enum Endpoints {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v2 = "/identitytoolkit.googleapis.com/v2"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let project = v1 + "/projects/{project}"

    // Accounts: the client API.
    public static let signUp = Endpoint<SignUpRequest, SignUpResponse>(
        .post, v1 + "/accounts:signUp", legacy: v3 + "/signupNewUser", access: .clientOrAdmin)
    public static let signInWithPassword = Endpoint<SignInWithPasswordRequest, SignInWithPasswordResponse>(
        .post, v1 + "/accounts:signInWithPassword", legacy: v3 + "/verifyPassword", access: .client)
    public static let signInWithCustomToken = Endpoint<SignInWithCustomTokenRequest, SignInWithCustomTokenResponse>(
        .post, v1 + "/accounts:signInWithCustomToken", legacy: v3 + "/verifyCustomToken", access: .client)
    public static let lookup = Endpoint<LookupRequest, LookupResponse>(
        .post, v1 + "/accounts:lookup", legacy: v3 + "/getAccountInfo", access: .clientOrAdmin)
    public static let update = Endpoint<UpdateAccountRequest, UpdateAccountResponse>(
        .post, v1 + "/accounts:update", legacy: v3 + "/setAccountInfo", access: .clientOrAdmin)
    public static let delete = Endpoint<DeleteAccountRequest, DeleteAccountResponse>(
        .post, v1 + "/accounts:delete", legacy: v3 + "/deleteAccount", access: .clientOrAdmin)
    public static let sendOobCode = Endpoint<SendOobCodeRequest, SendOobCodeResponse>(
        .post, v1 + "/accounts:sendOobCode", legacy: v3 + "/getOobConfirmationCode", access: .clientOrAdmin)
    public static let resetPassword = Endpoint<ResetPasswordRequest, ResetPasswordResponse>(
        .post, v1 + "/accounts:resetPassword", legacy: v3 + "/resetPassword", access: .client)
    public static let signInWithEmailLink = Endpoint<SignInWithEmailLinkRequest, SignInWithEmailLinkResponse>(
        .post, v1 + "/accounts:signInWithEmailLink", legacy: v3 + "/emailLinkSignin", access: .client)
    public static let signInWithIdp = Endpoint<SignInWithIdpRequest, SignInWithIdpResponse>(
        .post, v1 + "/accounts:signInWithIdp", legacy: v3 + "/verifyAssertion", access: .client)
    public static let signInWithGameCenter = Endpoint<SignInWithGameCenterRequest, SignInWithGameCenterResponse>(
        .post, v1 + "/accounts:signInWithGameCenter", access: .client)
    public static let createAuthUri = Endpoint<CreateAuthUriRequest, CreateAuthUriResponse>(
        .post, v1 + "/accounts:createAuthUri", legacy: v3 + "/createAuthUri", access: .client)
    public static let projectConfig = Endpoint<NoBody, GetProjectConfigResponse>(
        .get, v1 + "/projects", legacy: v3 + "/getProjectConfig", access: .client)
    public static let revokeToken = Endpoint<RevokeTokenRequest, NoBody>(.post, v2 + "/accounts:revokeToken", access: .client)
    public static let passwordPolicy = Endpoint<NoBody, PasswordPolicyResponse>(.get, v2 + "/passwordPolicy", access: .client)
    public static let recaptchaConfig = Endpoint<NoBody, RecaptchaConfigResponse>(.get, v2 + "/recaptchaConfig", access: .client)

    // Phone, and multi-factor (v2).
    public static let sendVerificationCode = Endpoint<SendVerificationCodeRequest, SendVerificationCodeResponse>(
        .post, v1 + "/accounts:sendVerificationCode", legacy: v3 + "/sendVerificationCode", access: .client)
    public static let signInWithPhoneNumber = Endpoint<SignInWithPhoneNumberRequest, SignInWithPhoneNumberResponse>(
        .post, v1 + "/accounts:signInWithPhoneNumber", legacy: v3 + "/verifyPhoneNumber", access: .client)
    public static let startMFAEnrollment = Endpoint<StartMFAEnrollmentRequest, StartMFAEnrollmentResponse>(
        .post, v2 + "/accounts/mfaEnrollment:start", access: .client)
    public static let finalizeMFAEnrollment = Endpoint<FinalizeMFAEnrollmentRequest, MFATokensResponse>(
        .post, v2 + "/accounts/mfaEnrollment:finalize", access: .client)
    public static let withdrawMFA = Endpoint<WithdrawMFARequest, MFATokensResponse>(
        .post, v2 + "/accounts/mfaEnrollment:withdraw", access: .client)
    public static let startMFASignIn = Endpoint<StartMFASignInRequest, StartMFASignInResponse>(
        .post, v2 + "/accounts/mfaSignIn:start", access: .client)
    public static let finalizeMFASignIn = Endpoint<FinalizeMFASignInRequest, MFATokensResponse>(
        .post, v2 + "/accounts/mfaSignIn:finalize", access: .client)

    // Passkeys (v2).
    public static let startPasskeyEnrollment = Endpoint<StartPasskeyEnrollmentRequest, StartPasskeyEnrollmentResponse>(
        .post, v2 + "/accounts/passkeyEnrollment:start", access: .client)
    public static let finalizePasskeyEnrollment = Endpoint<FinalizePasskeyEnrollmentRequest, PasskeyTokensResponse>(
        .post, v2 + "/accounts/passkeyEnrollment:finalize", access: .client)
    public static let startPasskeySignIn = Endpoint<StartPasskeySignInRequest, StartPasskeySignInResponse>(
        .post, v2 + "/accounts/passkeySignIn:start", access: .client)
    public static let finalizePasskeySignIn = Endpoint<FinalizePasskeySignInRequest, PasskeyTokensResponse>(
        .post, v2 + "/accounts/passkeySignIn:finalize", access: .client)

    // Secure Token API.
    public static let token = Endpoint<TokenRequest, TokenResponse>(
        .post, "/securetoken.googleapis.com/v1/token", access: .client, acceptsForm: true)

    // Admin API: the project's users (`tenantPath` for a tenant's).
    public static let adminCreate = Endpoint<AdminCreateAccountRequest, AdminCreateAccountResponse>(
        .post, project + "/accounts", access: .admin)
    public static let adminLookup = Endpoint<LookupRequest, LookupResponse>(.post, project + "/accounts:lookup", access: .admin)
    public static let adminUpdate = Endpoint<UpdateAccountRequest, UpdateAccountResponse>(
        .post, project + "/accounts:update", access: .admin)
    public static let adminDelete = Endpoint<DeleteAccountRequest, DeleteAccountResponse>(
        .post, project + "/accounts:delete", access: .admin)
    public static let batchGet = Endpoint<NoBody, BatchGetResponse>(.get, project + "/accounts:batchGet", access: .admin)
    public static let query = Endpoint<QueryAccountsRequest, QueryAccountsResponse>(
        .post, project + "/accounts:query", legacy: project + ":queryAccounts", access: .admin)
    public static let batchDelete = Endpoint<BatchDeleteRequest, BatchDeleteResponse>(
        .post, project + "/accounts:batchDelete", access: .admin)
    public static let batchCreate = Endpoint<BatchCreateRequest, BatchCreateResponse>(
        .post, project + "/accounts:batchCreate", access: .admin)
    public static let adminSendOobCode = Endpoint<SendOobCodeRequest, SendOobCodeResponse>(
        .post, project + "/accounts:sendOobCode", access: .admin)
    public static let createSessionCookie = Endpoint<CreateSessionCookieRequest, CreateSessionCookieResponse>(
        .post, project + ":createSessionCookie", access: .admin)
    public static let uploadAccount = Endpoint<BatchCreateRequest, BatchCreateResponse>(.post, v3 + "/uploadAccount", access: .admin)
    public static let downloadAccount = Endpoint<DownloadAccountRequest, BatchGetResponse>(
        .post, v3 + "/downloadAccount", access: .admin)

    // The project's configuration.
    public static let getConfig = Endpoint<NoBody, ProjectConfigResource>(.get, v2 + "/projects/{project}/config", access: .admin)
    public static let updateConfig = Endpoint<ProjectConfigPatch, ProjectConfigResource>(
        .patch, v2 + "/projects/{project}/config", access: .admin)

    // Tenants (Identity Platform).
    static let tenants = v2 + "/projects/{project}/tenants"
    public static let createTenant = Endpoint<TenantPatch, TenantResource>(.post, tenants, access: .admin)
    public static let listTenants = Endpoint<NoBody, ListTenantsResponse>(.get, tenants, access: .admin)
    public static let getTenant = Endpoint<NoBody, TenantResource>(.get, tenants + "/{tenantID}", access: .admin)
    public static let updateTenant = Endpoint<TenantPatch, TenantResource>(.patch, tenants + "/{tenantID}", access: .admin)
    public static let deleteTenant = Endpoint<NoBody, NoBody>(.delete, tenants + "/{tenantID}", access: .admin)

    /// Every endpoint above, without types: what the router test checks the route table against.
    public static let all: [EndpointDescription] = [
        signUp.description, signInWithPassword.description, signInWithCustomToken.description, lookup.description,
        update.description, delete.description, sendOobCode.description, resetPassword.description,
        signInWithEmailLink.description, signInWithIdp.description, signInWithGameCenter.description,
        createAuthUri.description, projectConfig.description, revokeToken.description, passwordPolicy.description, recaptchaConfig.description,
        sendVerificationCode.description,
        signInWithPhoneNumber.description, startMFAEnrollment.description, finalizeMFAEnrollment.description,
        withdrawMFA.description, startMFASignIn.description, finalizeMFASignIn.description,
        startPasskeyEnrollment.description, finalizePasskeyEnrollment.description, startPasskeySignIn.description,
        finalizePasskeySignIn.description, token.description,
        adminCreate.description, adminLookup.description, adminUpdate.description, adminDelete.description,
        batchGet.description, query.description, batchDelete.description, batchCreate.description,
        adminSendOobCode.description, createSessionCookie.description, uploadAccount.description,
        downloadAccount.description, getConfig.description, updateConfig.description, createTenant.description, listTenants.description, getTenant.description,
        updateTenant.description, deleteTenant.description,
    ]
}

/// No body: a GET's request, or an answer of `{}`.
public struct NoBody: Codable, Sendable, Equatable {
    public init() {}
}
