import Foundation
import HearthCore
import HearthWire
import Hummingbird
import NIOCore

/// Puts a call in its tenant, once, before any rule runs: the one the path (`…/tenants/{tenant}/accounts`) or the
/// body's `tenantId` names, or else the one of the credentials the call carries — an ID token, a pending MFA
/// credential, an SMS or TOTP `sessionInfo`, a temporary proof (``ScopedSecret``), an `oobCode`. Handlers then see a
/// ``ProjectContext`` scoped to the tenant: its users and every setting of it (sign-in switches, password policy,
/// SMS regions, CAPTCHA, MFA, email privacy), which the route's ``RouteRules`` and the core read. A call whose named
/// tenant and credentials disagree is refused (`TENANT_ID_MISMATCH`), as Identity Platform refuses it. Refresh
/// tokens carry their tenant in their stored record, which ``Sessions/refresh(in:refreshToken:)`` acts in.
///
/// Production refuses a tenant that does not exist (`TENANT_NOT_FOUND`) rather than acting in the project; emulator
/// mode creates it with every sign-in method on, as Firebase's emulator does.
enum TenantScope {
    static func apply(to context: inout HearthRequestContext, services: HearthServices) async throws {
        let fromPath = context.parameters.get("tenant")?.removingPercentEncoding
        let body = context.body
        // A `tenantId` that is not a string is refused here: read as absent, it would put the call in the project.
        let value = (try? body.object.get())?.value("tenantId")
        let named = value.flatMap(WireObject.text)
        if let value, named == nil {
            throw APIError.invalidArgument(.wrongType(path: "/tenantId", expected: "string", got: value.typeName))
        }
        if let fromPath, let named, fromPath != named { throw APIError.business(.tenantIDMismatch) }
        let asked = (fromPath ?? named).flatMap { $0.isEmpty ? nil : $0 }  // "" is no tenant, as everywhere else
        // An Admin SDK on a client path (a bearer, no key): the project its handler would pick.
        var resolved = context.project
        if resolved == nil { resolved = try await adminProject(context, body.peek("targetProjectId"), services) }
        guard let project = resolved else { return }
        let carried = try await credentialScopes(of: body, in: project, services: services)
        if let first = carried.first, carried.contains(where: { $0 != first }) { throw APIError.business(.tenantIDMismatch) }
        if let asked, let first = carried.first, first != asked { throw APIError.business(.tenantIDMismatch) }
        guard let id = asked ?? carried.first ?? nil else { return }
        context.project = try await services.project(project, inTenant: id)
    }

    /// The scope (a tenant id, or `nil` for the project's own) of each credential in the body. Read without verifying
    /// them: where each is used it is verified, and checked against the call's scope again.
    static func credentialScopes(of body: RequestBody, in project: ProjectContext, services: HearthServices)
        async throws -> [String?] {
        var scopes: [String?] = []
        if let idToken = body.peek("idToken"), let tenant = IDTokenPeek.tenant(of: idToken) {
            scopes.append(tenant)
        }
        let secrets = ["mfaPendingCredential", "sessionInfo", "temporaryProof"].compactMap { body.peek($0) }
            + ["phoneVerificationInfo", "totpVerificationInfo", "phoneSignInInfo"].compactMap { body.nested($0)?.peek("sessionInfo") }
        for secret in secrets where !secret.isEmpty { scopes.append(ScopedSecret.tenant(of: secret)) }
        if let code = body.peek("oobCode"), case .some(let scope) = try await services.accounts.actionCodes.scope(ofCode: code, in: project) {
            scopes.append(scope)
        }
        return scopes
    }

    static func adminProject(_ context: HearthRequestContext, _ target: String?, _ services: HearthServices)
        async throws -> ProjectContext? {
        guard context.isAdmin else { return nil }
        guard let target else { return try await services.defaultProject() }
        return ProjectID.isValid(target) ? try await services.emulatorProject(target) : nil
    }
}

/// The claims of an ID token, read without verifying it: only to refuse a token of another tenant early
/// (`TENANT_ID_MISMATCH`); the token is verified, and its tenant checked again, where it is used. `nil` when it
/// does not parse (the handler then says `INVALID_ID_TOKEN`).
enum IDTokenPeek {
    private static let tenantKey = Array(#""tenant""#.utf8)

    /// Whether the claims hold the bytes `"tenant"`: a byte loop, since Foundation's `Data.firstRange(of:)` cost 8 %
    /// of `accounts:lookup` in a perf profile.
    static func mentionsTenant(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self), key = tenantKey
            guard bytes.count >= key.count else { return false }
            var start = 0
            search: while start <= bytes.count - key.count {
                defer { start += 1 }
                guard bytes[start] == key[0] else { continue }
                for offset in 1..<key.count where bytes[start + offset] != key[offset] { continue search }
                return true
            }
            return false
        }
    }

    /// The token's `firebase.tenant` (`.some(nil)`: the project's own), or `nil` when it does not parse. Read on every
    /// call that carries a token, so byte-level: in A/B runs of `accounts:lookup` against the previous release,
    /// Foundation's base64 clean-up (`replacingOccurrences`) and JSONDecoder here cost a quarter of its throughput.
    static func tenant(of token: String) -> String?? {
        let utf8 = token.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ".")),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ".")),
              let data = Base64URL.decode(token[token.index(after: first)..<second]) else { return nil }
        // Most tokens are the project's: without the word there is no tenant claim, and nothing to parse.
        guard Self.mentionsTenant(data) else { return .some(nil) }
        guard let claims = try? WireObject(json: data) else { return nil }
        guard case .object(let firebase)? = claims.value("firebase") else { return .some(nil) }
        return .some(WireObject(firebase).peek("tenant"))
    }

    static func claims(of token: String) -> IDTokenClaims? {
        let parts = token.split(separator: ".")
        guard parts.count >= 2, let data = WireObject.base64(String(parts[1])),
              let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: data)
        else { return nil }
        return claims
    }
}

extension HearthServices {
    /// `project` acting in tenant `id` (see ``tenant(_:in:)``). Firebase: a disabled tenant's users cannot sign in,
    /// and its administrators cannot manage them (`PROJECT_DISABLED`).
    func project(_ project: ProjectContext, inTenant id: String) async throws -> ProjectContext {
        let tenant = try await tenant(id, in: project)
        if tenant[.disableAuth] { throw APIError.business(.projectDisabled) }
        return project.scoped(to: tenant)
    }

    /// A project's tenant: `TENANT_NOT_FOUND` in production, created on first use in emulator mode (a deleted one
    /// too, as Firebase's emulator does: its own tests reuse tenant ids after deleting them).
    func tenant(_ id: String, in project: ProjectContext) async throws -> TenantRecord {
        if let tenant = try await accounts.tenants.tenant(id, in: project) { return tenant }
        guard configuration.isEmulator else { throw APIError.business(.tenantNotFound) }
        guard TenantRecord.isValidID(id) else { throw APIError.business(.invalidTenantID) }
        return try await accounts.tenants.creatingIfNeeded(TenantRecord(
            projectID: project.id, id: id, allowPasswordSignup: true, enableEmailLinkSignin: true,
            enableAnonymousUser: true, mfa: MFASettings(state: .enabled, providers: [.phoneSMS])))
    }
}
