import Foundation
import HearthCore
import HearthWire
import Metrics

/// Identity Platform's `recaptchaConfig` enforcement, with the configured provider (Turnstile, hCaptcha or
/// reCAPTCHA): a route line names what it sends or signs in with (``RouteRules/captcha``), and every name of the
/// route is checked here, after its tenant is known (a tenant's own setting wins). Clients send the token in
/// `captchaResponse` (or `recaptchaToken`, the v2 widget's field; inside `phoneEnrollmentInfo` / `phoneSignInInfo`
/// for second factors). Admin calls are exempt.
///
/// `ENFORCE` refuses a missing token (`MISSING_RECAPTCHA_TOKEN`) and a failing one (`INVALID_RECAPTCHA_TOKEN`);
/// `AUDIT` lets both through and records them. Either way a failure is counted
/// (`hearth_captcha_checks_total{outcome}`) and audited (`captcha-failed`, once per project or tenant, mode, address and ten minutes).
enum CaptchaGate {
    /// What a route guards.
    enum Scope: String, Sendable, Hashable {
        /// Sign-up and password sign-in (a body with an `email` or `password`: an anonymous sign-up needs none).
        case emailPassword
        /// `sendOobCode`'s password-reset and sign-in-link emails (the ones an unauthenticated caller can send).
        case emailPasswordEmails
        /// An SMS code: phone sign-in, second-factor enrolment (not TOTP) and sign-in.
        case phone
        /// `accounts:update` giving an anonymous session's account an email or password: the same link `signUp`
        /// makes with an `idToken`, under the same rule (`emailPasswordEnforcementState`).
        case anonymousUpgrade
    }

    static func check(_ scope: Scope, _ context: HearthRequestContext, clientAddress: String,
                      services: HearthServices) async throws {
        guard !context.isAdmin, let project = context.project, let settings = project.settings.captcha,
              applies(scope, to: context.body) else { return }
        let mode = scope == .phone ? settings.phone : settings.emailPassword
        guard mode != .off else { return }
        let outcome: String
        var reasons: [String] = []
        if let token = token(in: context.body), !token.isEmpty {
            guard let verifier = services.captcha else {
                // Enforcement outlived its provider (the config file lost `captcha`): say so, and hold the line.
                services.logger.error("CAPTCHA enforcement is on but no provider is configured", metadata: [
                    "hint": "set captcha in the config file, or turn recaptchaConfig enforcement OFF"])
                outcome = "unverifiable"
                return try await settle(outcome, reasons, mode, scope, project, clientAddress, services)
            }
            do {
                let verdict = try await verifier.verify(token, remoteIP: clientAddress == "unknown" ? nil : clientAddress)
                (outcome, reasons) = (verdict.passed ? "passed" : "failed", verdict.reasons)
            } catch {
                services.logger.error("CAPTCHA provider not reachable", metadata: [
                    "error": "\(error)", "hint": "check captcha.verifyURL and the network; AUDIT mode lets requests through"])
                outcome = "unverifiable"
            }
        } else {
            outcome = "missing"
        }
        try await settle(outcome, reasons, mode, scope, project, clientAddress, services)
    }

    private static func settle(_ outcome: String, _ reasons: [String], _ mode: CaptchaEnforcement, _ scope: Scope,
                               _ project: ProjectContext, _ address: String, _ services: HearthServices) async throws {
        Counter(label: "hearth_captcha_checks_total", dimensions: [("outcome", outcome), ("mode", mode.rawValue)]).increment()
        guard outcome != "passed" else { return }
        let key = "captcha:\(project.id)/\(project.tenantID ?? "")/\(mode.rawValue)/\(address)"
        if services.limiter.isFirstRefusal(key, RateLimiter.Rule(limit: 1, window: 600)) {
            await services.audit.record(kind: "captcha-failed", projectID: project.id, localID: nil, outcome: .failure,
                                        details: ["scope": scope.rawValue, "mode": mode.rawValue, "reason": outcome,
                                                  "codes": reasons.joined(separator: ",")])
        }
        guard mode == .enforce else { return }
        switch outcome {
        case "missing": throw APIError.business(.missingRecaptchaToken)
        case "unverifiable": throw APIError.captchaUnavailable
        default: throw APIError.business(.invalidRecaptchaToken)
        }
    }

    static func applies(_ scope: Scope, to body: RequestBody) -> Bool {
        switch scope {
        case .emailPassword: body.has("email") || body.has("password")
        case .emailPasswordEmails: ["PASSWORD_RESET", "EMAIL_SIGNIN"].contains(body.oobRequestType ?? "")
        case .phone: !body.has("totpEnrollmentInfo")
        case .anonymousUpgrade:
            (body.has("email") || body.has("password"))
                && body.peek("idToken").flatMap(IDTokenPeek.claims)?.firebase?.signInProvider == "anonymous"
        }
    }

    /// The token, where each route's body carries it.
    static func token(in body: RequestBody) -> String? {
        for field in ["captchaResponse", "recaptchaToken"] {
            if let token = body.peek(field) { return token }
        }
        for holder in ["phoneEnrollmentInfo", "phoneSignInInfo"] {
            if let inner = body.nested(holder), let token = inner.peek("captchaResponse") ?? inner.peek("recaptchaToken") {
                return token
            }
        }
        return nil
    }
}
