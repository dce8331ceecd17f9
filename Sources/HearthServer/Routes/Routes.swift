import Hummingbird

/// The whole HTTP surface on one screen. Paths carry Google's host as their first segment, as Firebase's
/// emulator serves them, so SDKs pointed at Hearth with `useEmulator` (or a custom endpoint) reach the same names.
extension HearthAPI {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let v2 = "/identitytoolkit.googleapis.com/v2"
    static let secureToken = "/securetoken.googleapis.com/v1"
    static let googleKeys = "/www.googleapis.com"

    static func routes(emulator: Bool) -> [Route] {
        var routes: [Route] = []
        // Accounts (client API; v1 names and the legacy v3 names the iOS SDK calls).
        routes += .post("\(v1)/accounts:signUp", "\(v3)/signupNewUser", to: AccountRoutes.signUp)
        routes += .post("\(v1)/accounts:signInWithPassword", "\(v3)/verifyPassword", to: AccountRoutes.signInWithPassword)
        routes += .post("\(v1)/accounts:signInWithCustomToken", "\(v3)/verifyCustomToken", to: AccountRoutes.signInWithCustomToken)
        routes += .post("\(v1)/accounts:lookup", "\(v3)/getAccountInfo", to: AccountRoutes.lookup)
        routes += .post("\(v1)/accounts:update", "\(v3)/setAccountInfo", to: AccountRoutes.update)
        routes += .post("\(v1)/accounts:delete", "\(v3)/deleteAccount", to: AccountRoutes.delete)
        routes += .post("\(v1)/accounts:sendOobCode", "\(v3)/getOobConfirmationCode", to: OobCodeRoutes.sendOobCode)
        routes += .post("\(v1)/accounts:resetPassword", "\(v3)/resetPassword", to: OobCodeRoutes.resetPassword)
        routes += .post("\(v1)/accounts:signInWithEmailLink", "\(v3)/emailLinkSignin", to: OobCodeRoutes.signInWithEmailLink)
        routes += .post("\(v1)/accounts:signInWithIdp", "\(v3)/verifyAssertion", to: FederatedRoutes.signInWithIdp)
        routes += .post("\(v1)/accounts:createAuthUri", "\(v3)/createAuthUri", to: AccountRoutes.createAuthUri)
        routes += .get("\(v1)/projects", "\(v3)/getProjectConfig", to: AccountRoutes.projectConfig)
        // Phone as a first factor, and multi-factor (v2).
        routes += .post("\(v1)/accounts:sendVerificationCode", "\(v3)/sendVerificationCode", to: PhoneRoutes.sendVerificationCode)
        routes += .post("\(v1)/accounts:signInWithPhoneNumber", "\(v3)/verifyPhoneNumber", to: PhoneRoutes.signInWithPhoneNumber)
        routes += .post("\(v2)/accounts/mfaEnrollment:start", to: MFARoutes.startEnrollment)
        routes += .post("\(v2)/accounts/mfaEnrollment:finalize", to: MFARoutes.finalizeEnrollment)
        routes += .post("\(v2)/accounts/mfaEnrollment:withdraw", to: MFARoutes.withdraw)
        routes += .post("\(v2)/accounts/mfaSignIn:start", to: MFARoutes.startSignIn)
        routes += .post("\(v2)/accounts/mfaSignIn:finalize", to: MFARoutes.finalizeSignIn)
        routes += .post("\(v2)/accounts:revokeToken", to: FederatedRoutes.revokeToken)
        // Admin API (bearer credentials).
        routes += .post("\(v1)/projects/{project}/accounts", access: .admin, to: AdminRoutes.create)
        routes += .post("\(v1)/projects/{project}/accounts:lookup", access: .admin, to: AdminRoutes.lookup)
        routes += .post("\(v1)/projects/{project}/accounts:update", access: .admin, to: AdminRoutes.update)
        routes += .post("\(v1)/projects/{project}/accounts:delete", access: .admin, to: AdminRoutes.delete)
        routes += .get("\(v1)/projects/{project}/accounts:batchGet", access: .admin, to: AdminRoutes.batchGet)
        routes += .post("\(v1)/projects/{project}/accounts:query", "\(v1)/projects/{project}:queryAccounts",
                        access: .admin, to: AdminRoutes.query)
        routes += .post("\(v1)/projects/{project}/accounts:batchDelete", access: .admin, to: AdminRoutes.batchDelete)
        routes += .post("\(v1)/projects/{project}/accounts:batchCreate", "\(v3)/uploadAccount",
                        access: .admin, to: AdminRoutes.batchCreate)
        routes += .post("\(v1)/projects/{project}/accounts:sendOobCode", access: .admin, to: AdminRoutes.sendOobCode)
        routes += .post("\(v1)/projects/{project}:createSessionCookie", access: .admin, to: AdminRoutes.createSessionCookie)
        routes += .get("\(v2)/projects/{project}/config", access: .admin, to: ConfigRoutes.get)
        routes += .route(.patch, "\(v2)/projects/{project}/config", access: .admin, to: ConfigRoutes.patch)
        // Identity providers: {collection} is defaultSupportedIdpConfigs or oauthIdpConfigs.
        routes += .get("\(v2)/projects/{project}/{collection}", access: .admin, to: IdpConfigRoutes.list)
        routes += .post("\(v2)/projects/{project}/{collection}", access: .admin, to: IdpConfigRoutes.create)
        routes += .get("\(v2)/projects/{project}/{collection}/{idp}", access: .admin, to: IdpConfigRoutes.get)
        routes += .route(.patch, "\(v2)/projects/{project}/{collection}/{idp}", access: .admin, to: IdpConfigRoutes.patch)
        routes += .route(.delete, "\(v2)/projects/{project}/{collection}/{idp}", access: .admin, to: IdpConfigRoutes.delete)
        // Secure Token API.
        routes += .post("\(secureToken)/token", to: SecureTokenRoutes.token)
        // Public keys of ID tokens: Google's x509 and JWKS shapes, and the standard well-known path.
        // Session cookies (a later issue) are signed with the same keys, so their key endpoints serve them too.
        routes += .get("\(googleKeys)/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
                       "\(v3)/publicKeys", access: .open, to: PublicKeyRoutes.x509)
        routes += .get("\(googleKeys)/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                       "/.well-known/jwks.json", "\(v1)/sessionCookiePublicKeys", access: .open, to: PublicKeyRoutes.jwks)
        // The hosted page email links open (emulator mode also serves it under the emulator's own path).
        routes += .get("/__/auth/action", access: .open, to: ActionPage.show)
        routes += .post("/__/auth/action", access: .open, to: ActionPage.submit)
        routes += .get("/__/auth/handler", access: .open, to: AuthHandler.show)
        routes += .post("/__/auth/handler", access: .open, to: AuthHandler.submit)
        // Emulator control, only in emulator mode (404 in production).
        if emulator {
            routes += .get("/", access: .open, to: EmulatorRoutes.root)
            routes += .get("/emulator/action", access: .open, to: ActionPage.show)
            routes += .post("/emulator/action", access: .open, to: ActionPage.submit)
            routes += .get("/emulator/auth/handler", access: .open, to: AuthHandler.show)
            routes += .post("/emulator/auth/handler", access: .open, to: EmulatorIdPWidget.submit)
            routes += .route(.delete, "/emulator/v1/projects/{project}/accounts", access: .open, to: EmulatorRoutes.resetAccounts)
            routes += .get("/emulator/v1/projects/{project}/config", access: .open, to: EmulatorRoutes.config)
            routes += .get("/emulator/v1/projects/{project}/oobCodes", access: .open, to: EmulatorRoutes.oobCodes)
            routes += .get("/emulator/v1/projects/{project}/verificationCodes", access: .open, to: EmulatorRoutes.verificationCodes)
            routes += .route(.patch, "/emulator/v1/projects/{project}/config", access: .open, to: EmulatorRoutes.patchConfig)
        }
        return routes
    }
}
