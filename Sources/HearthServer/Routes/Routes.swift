import HearthWire
import Hummingbird

/// The whole HTTP surface on one screen, each route with its guards. Paths carry Google's host as their first
/// segment, as Firebase's emulator serves them, so SDKs pointed at Hearth with `useEmulator` (or a custom
/// endpoint) reach the same names.
///
/// Every request passes, outermost first: CORS, the request log, metrics, the error envelope, the audit scope; then its
/// line's middleware, in the order the line shows. A group below starts it: `client` (API key), `admin` (bearer
/// credential), `clientOrAdmin` (either: Admin SDKs call some client paths with a bearer) or `open`, each with the body
/// limit, the admin audit where admin calls change things (`adminReads` and `clientOrAdminReads` only read) and the
/// tenant (``TenantScoped``). Then the line's own: rate limits and counters (`.and`), its sign-in switch and CAPTCHA
/// check (`.with`, ``RouteRules``). A line with several paths gives each the same middleware: the v3 names cannot skip
/// what the v1 names check. ``RouteTable`` only registers.
enum HearthRoutes {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    static let v2 = "/identitytoolkit.googleapis.com/v2"
    static let secureToken = "/securetoken.googleapis.com/v1"
    static let googleKeys = "/www.googleapis.com"

    /// A typed handler for a route whose handler is picked per call (``RouteTable/either(_:admin:)``).
    static func decoded<Request: Decodable & SendableMetatype>(_ handler: @escaping TypedHandler<Request>) -> RouteHandler {
        { call in try await handler(call, try call.decode(Request.self)).response(from: call.request, context: call.context) }
    }

    static func router(services: HearthServices) -> Router<HearthRequestContext> { table(services: services).router }

    /// The route table, with the router it fills (what the alias test walks).
    static func table(services: HearthServices) -> RouteTable {
        let observability = services.configuration.observability
        let router = Router(context: HearthRequestContext.self)
        router.add(middleware: ReflectingCORS(allowPrivateNetwork: services.configuration.isEmulator))
        // A span per request, continuing the caller's trace (W3C `traceparent`), when tracing is configured.
        if observability.tracing != nil { router.add(middleware: TracingMiddleware()) }
        router.add(middleware: RequestLog(level: observability.requestLogLevel))
        if observability.metricsEnabled { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: ErrorEnvelopes(logger: services.logger))
        if services.configuration.isEmulator { router.add(middleware: FaultInjection(faults: services.faults)) }
        router.add(middleware: AuditScopeMiddleware(trustForwardedFor: services.configuration.trustForwardedFor))
        let table = RouteTable(router: router, services: services)
        let body = BodyLimit(limit: services.configuration.maxBodySize, strict: !services.configuration.isEmulator,
                             logger: services.logger)
        let (tenant, audited) = (TenantScoped(services: services), AdminAudited(services: services))
        let client = table.guarded(by: APIKeyGuard(services: services), body, tenant)
        // Client paths an Admin SDK may call with a bearer and no key; the project may be in the body, read first.
        let clientOrAdmin = table.guarded(by: body, APIKeyOrAdminGuard(services: services), audited, tenant)
        let clientOrAdminReads = table.guarded(by: body, APIKeyOrAdminGuard(services: services), tenant)
        let admin = table.guarded(by: AdminGuard(services: services), body, audited, tenant)
        let adminReads = table.guarded(by: AdminGuard(services: services), body, tenant)
        let open = table.guarded(by: body, tenant)
        func signIns(_ provider: String) -> any MiddlewareProtocol<Request, Response, HearthRequestContext> {
            CountsSignIns(label: "hearth_sign_ins_total", provider: provider)
        }

        // Health, for load balancers and orchestrators (no credentials, both modes).
        open.get("/healthz", to: HealthRoutes.live)
        open.on(.head, "/healthz", to: HealthRoutes.live)
        open.get("/readyz", to: HealthRoutes.ready)
        open.on(.head, "/readyz", to: HealthRoutes.ready)
        if observability.metricsOnMainListener { open.get("/metrics", to: HealthRoutes.metrics) }
        // Accounts (client API): each endpoint's v1 name and the legacy v3 name the iOS SDK calls.
        clientOrAdmin.and(RateLimited(policy: .signUps, services: services))
            .and(CountsSignIns(label: "hearth_sign_ups_total", provider: "password")).with(RouteRules(captcha: .emailPassword))
            .on(Endpoints.signUp, to: RouteTable.either(decoded(AccountRoutes.signUp), admin: decoded(AdminRoutes.create)))
        // Every password sign-in hashes (an unknown email too): while the hashing queue is full, refused at the door.
        client.and(ShedsWhenHashingIsFull(hashing: services.accounts.hashing, clock: services.accounts.clock))
            .and(RateLimited(policy: .failedSignIns, services: services)).and(signIns("password"))
            .with(RouteRules(needs: .password, captcha: .emailPassword))
            .on(Endpoints.signInWithPassword, to: AccountRoutes.signInWithPassword)
        client.and(signIns("custom")).on(Endpoints.signInWithCustomToken, to: AccountRoutes.signInWithCustomToken)
        clientOrAdminReads.on(Endpoints.lookup, to: RouteTable.either(AccountRoutes.lookup, admin: AdminRoutes.lookup))
        clientOrAdmin.with(RouteRules(captcha: .anonymousUpgrade))
            .on(Endpoints.update, to: RouteTable.either(AccountRoutes.update, admin: AdminRoutes.update))
        clientOrAdmin.on(Endpoints.delete, to: RouteTable.either(AccountRoutes.delete, admin: AdminRoutes.delete))
        clientOrAdmin.and(RateLimited(policy: .emails, services: services))
            .with(RouteRules(needs: .emailLinkWhenRequested, captcha: .emailPasswordEmails))
            .on(Endpoints.sendOobCode, to: RouteTable.either(OobCodeRoutes.sendOobCode, admin: AdminRoutes.sendOobCode))
        client.with(.needs(.password)).on(Endpoints.resetPassword, to: OobCodeRoutes.resetPassword)
        client.and(signIns("emailLink")).with(.needs(.emailLink)).on(Endpoints.signInWithEmailLink, to: OobCodeRoutes.signInWithEmailLink)
        client.and(signIns("idp")).on(Endpoints.signInWithIdp, to: FederatedRoutes.signInWithIdp)
        client.and(signIns("gameCenter")).on(Endpoints.signInWithGameCenter, to: FederatedRoutes.signInWithGameCenter)
        client.and(RateLimited(policy: .redirectSessions, services: services)).on(Endpoints.createAuthUri, to: AccountRoutes.createAuthUri)
        client.on(Endpoints.projectConfig, to: AccountRoutes.projectConfig)
        client.on(Endpoints.passwordPolicy, to: PasswordPolicyRoutes.get)
        client.on(Endpoints.recaptchaConfig, to: PasswordPolicyRoutes.recaptchaConfig)
        // Phone as a first factor, and multi-factor (v2). SMS are limited per number where the number is known;
        // `captcha` names what `recaptchaConfig` enforcement covers.
        // Verifying a code sends no SMS, so it needs no CAPTCHA (the SDKs send a token with sendVerificationCode only).
        let phone = RouteRules(needs: .phone, emulatorRefusesInTenant: true)
        client.with(phone.captcha(.phone)).on(Endpoints.sendVerificationCode, to: PhoneRoutes.sendVerificationCode)
        client.and(signIns("phone")).with(phone).on(Endpoints.signInWithPhoneNumber, to: PhoneRoutes.signInWithPhoneNumber)
        let mfa = client.with(.needs(.tenantMFA)), mfaSMS = client.with(RouteRules(needs: .tenantMFA, captcha: .phone))
        mfaSMS.on(Endpoints.startMFAEnrollment, to: MFARoutes.startEnrollment)
        mfa.on(Endpoints.finalizeMFAEnrollment, to: MFARoutes.finalizeEnrollment)
        client.on(Endpoints.withdrawMFA, to: MFARoutes.withdraw)
        mfaSMS.on(Endpoints.startMFASignIn, to: MFARoutes.startSignIn)
        mfa.and(signIns("secondFactor")).on(Endpoints.finalizeMFASignIn, to: MFARoutes.finalizeSignIn)
        client.on(Endpoints.revokeToken, to: FederatedRoutes.revokeToken)
        // Passkeys: WebAuthn verified in production (against passkeyConfig), the emulator's mock in emulator mode.
        let passkeys = client
        passkeys.and(RateLimited(policy: .passkeyChallenges, services: services)).on(Endpoints.startPasskeyEnrollment, to: PasskeyRoutes.startEnrollment)
        passkeys.on(Endpoints.finalizePasskeyEnrollment, to: PasskeyRoutes.finalizeEnrollment)
        passkeys.and(RateLimited(policy: .passkeyChallenges, services: services)).on(Endpoints.startPasskeySignIn, to: PasskeyRoutes.startSignIn)
        passkeys.and(signIns("passkey")).on(Endpoints.finalizePasskeySignIn, to: PasskeyRoutes.finalizeSignIn)
        // Admin API: the path's {project}, or the body's targetProjectId for the v3 names; each call on the
        // project's users also on a tenant's, /projects/{project}/tenants/{tenant}/… (TenantScope reads {tenant}).
        admin.on(Endpoints.adminCreate, withTenants: true, to: AdminRoutes.create)
        adminReads.on(Endpoints.adminLookup, withTenants: true, to: AdminRoutes.lookup)
        admin.on(Endpoints.adminUpdate, withTenants: true, to: AdminRoutes.update)
        admin.on(Endpoints.adminDelete, withTenants: true, to: AdminRoutes.delete)
        adminReads.on(Endpoints.batchGet, withTenants: true, to: AdminRoutes.batchGet)
        adminReads.on(Endpoints.query, withTenants: true, to: AdminRoutes.query)
        admin.on(Endpoints.batchDelete, withTenants: true, to: AdminRoutes.batchDelete)
        admin.on(Endpoints.batchCreate, withTenants: true, to: AdminRoutes.batchCreate)
        admin.on(Endpoints.adminSendOobCode, withTenants: true, to: AdminRoutes.sendOobCode)
        admin.on(Endpoints.createSessionCookie, withTenants: true, to: AdminRoutes.createSessionCookie)
        admin.on(Endpoints.uploadAccount, to: AdminRoutes.batchCreate)
        adminReads.on(Endpoints.downloadAccount, to: AdminRoutes.downloadAccount)
        admin.get("\(v1)/projects/{project}/auditEvents", to: AuditRoutes.list)
        admin.get("\(v1)/projects/{project}/auditStats", to: AuditRoutes.stats)
        adminReads.get("\(v1)/projects/{project}/emailTemplates", to: EmailTemplateRoutes.get)
        admin.on(.patch, "\(v1)/projects/{project}/emailTemplates", to: EmailTemplateRoutes.patch)
        admin.post("\(v1)/projects/{project}/emailTemplates:preview", to: EmailTemplateRoutes.preview)
        adminReads.get("\(v1)/projects/{project}/lazyPasswordMigration", to: LazyMigrationRoutes.get)
        admin.on(.patch, "\(v1)/projects/{project}/lazyPasswordMigration", to: LazyMigrationRoutes.patch)
        admin.on(.delete, "\(v1)/projects/{project}/lazyPasswordMigration", to: LazyMigrationRoutes.delete)
        admin.post("\(v1)/projects/{project}/emailTest", to: MessagingRoutes.emailTest)
        admin.post("\(v1)/projects/{project}/smsTest", to: MessagingRoutes.smsTest)
        admin.get("\(v1)/projects/{project}/outbox", to: OutboxRoutes.list)
        admin.post("\(v1)/projects/{project}/outbox/{message}", to: OutboxRoutes.retry)  // {id}:retry
        admin.get("\(v1)/projects/{project}/webhooks", to: WebhookRoutes.list)
        admin.get("\(v1)/projects/{project}/smsHalts", to: SMSHaltRoutes.list)
        admin.on(.delete, "\(v1)/projects/{project}/smsHalts/{prefix}", to: SMSHaltRoutes.lift)
        admin.get("\(v1)/projects/{project}/serviceAccounts", to: ServiceAccountRoutes.list)
        admin.post("\(v1)/projects/{project}/serviceAccounts", to: ServiceAccountRoutes.create)
        admin.on(.delete, "\(v1)/projects/{project}/serviceAccounts/{name}", to: ServiceAccountRoutes.delete)
        for owner in ["\(v2)/projects/{project}", "\(v2)/projects/{project}/tenants/{tenantID}"] {
            adminReads.get("\(owner)/passkeyConfig", to: PasskeyRoutes.getConfig)
            admin.on(.patch, "\(owner)/passkeyConfig", to: PasskeyRoutes.patchConfig)
        }
        admin.on(Endpoints.getConfig, to: ConfigRoutes.get)
        admin.on(Endpoints.updateConfig, to: ConfigRoutes.patch)
        // Tenants (Identity Platform).
        admin.on(Endpoints.createTenant, to: TenantRoutes.create)
        admin.on(Endpoints.listTenants, to: TenantRoutes.list)
        admin.on(Endpoints.getTenant, to: TenantRoutes.get)
        admin.on(Endpoints.updateTenant, to: TenantRoutes.patch)
        admin.on(Endpoints.deleteTenant, to: TenantRoutes.delete)
        // Identity providers, the project's and each tenant's: {collection} is defaultSupportedIdpConfigs or oauthIdpConfigs.
        for owner in ["\(v2)/projects/{project}", "\(v2)/projects/{project}/tenants/{tenantID}"] {
            admin.get("\(owner)/{collection}", to: IdpConfigRoutes.list)
            admin.post("\(owner)/{collection}", to: IdpConfigRoutes.create)
            admin.get("\(owner)/{collection}/{idp}", to: IdpConfigRoutes.get)
            admin.on(.patch, "\(owner)/{collection}/{idp}", to: IdpConfigRoutes.patch)
            admin.on(.delete, "\(owner)/{collection}/{idp}", to: IdpConfigRoutes.delete)
        }
        // Secure Token API.
        client.on(Endpoints.token, to: SecureTokenRoutes.token)
        // Public keys of ID tokens (and session cookies): Google's x509 and JWKS shapes, and the well-known path.
        open.get("\(googleKeys)/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com", "\(v3)/publicKeys",
                 to: PublicKeyRoutes.x509)
        open.get("\(googleKeys)/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                 "/.well-known/jwks.json", "\(v1)/sessionCookiePublicKeys", to: PublicKeyRoutes.jwks)
        for path in PublicKeyRoutes.discoveryPaths(issuerPrefix: services.configuration.issuerPrefix) {
            open.get(path, to: PublicKeyRoutes.discovery)
        }
        // The admin console: its page and assets, and the operator's session (a cookie the admin API accepts with
        // its CSRF token; see AdminGuard).
        open.get("/console", to: ConsolePage.show)
        open.get("/console/assets/{file}", to: ConsolePage.asset)
        open.and(RateLimited(policy: .consoleSignIns, services: services)).post("/console/session", to: ConsoleRoutes.signIn)
        open.get("/console/session", to: ConsoleRoutes.show)
        open.on(.delete, "/console/session", to: ConsoleRoutes.signOut)
        // The hosted page email links open, and the OAuth redirect handler.
        open.get("/__/auth/action", to: ActionPage.show)
        open.post("/__/auth/action", to: ActionPage.submit)
        open.get("/__/auth/handler", to: AuthHandler.show)
        open.post("/__/auth/handler", to: AuthHandler.submit)
        if services.configuration.isEmulator {
            // Emulator control, only in emulator mode (404 in production).
            open.get("/", to: EmulatorRoutes.root)
            open.get("/emulator/action", to: ActionPage.show)
            open.post("/emulator/action", to: ActionPage.submit)
            open.get("/emulator/auth/handler", to: AuthHandler.show)
            open.post("/emulator/auth/handler", to: EmulatorIdPWidget.submit)
            open.on(.delete, "/emulator/v1/projects/{project}/accounts", to: EmulatorRoutes.resetAccounts)
            open.on(.delete, "/emulator/v1/projects/{project}/tenants/{tenant}/accounts", to: EmulatorRoutes.resetAccounts)
            open.get("/emulator/v1/projects/{project}/tenants/{tenant}/oobCodes", to: EmulatorRoutes.oobCodes)
            open.get("/emulator/v1/projects/{project}/config", to: EmulatorRoutes.config)
            open.get("/emulator/v1/projects/{project}/clock", to: EmulatorControlRoutes.getClock)
            open.post("/emulator/v1/projects/{project}/clock:freeze", to: EmulatorControlRoutes.freeze)
            open.post("/emulator/v1/projects/{project}/clock:advance", to: EmulatorControlRoutes.advance)
            open.post("/emulator/v1/projects/{project}/clock:reset", to: EmulatorControlRoutes.resetClock)
            open.get("/emulator/v1/projects/{project}/faults", to: EmulatorControlRoutes.faults)
            open.post("/emulator/v1/projects/{project}/faults", to: EmulatorControlRoutes.addFault)
            open.on(.delete, "/emulator/v1/projects/{project}/faults", to: EmulatorControlRoutes.resetFaults)
            open.on(.patch, "/emulator/v1/projects/{project}/config", to: EmulatorRoutes.patchConfig)
            open.get("/emulator/v1/projects/{project}/oobCodes", to: EmulatorRoutes.oobCodes)
            open.get("/emulator/v1/projects/{project}/verificationCodes", to: EmulatorRoutes.verificationCodes)
            open.get("/emulator/v1/projects/{project}/tenants/{tenant}/verificationCodes", to: EmulatorRoutes.verificationCodes)
            client.get("\(v1)/recaptchaParams", "\(v3)/getRecaptchaParam", to: EmulatorRoutes.recaptchaParams)
        } else {
            open.get("/", to: HealthRoutes.home)
        }
        table.addMethodNotAllowed()
        return table
    }
}
