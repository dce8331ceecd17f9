import Foundation
import HearthCore
import Hummingbird

/// A line's CAPTCHA check as middleware (``CaptchaGate``), after the tenant is known: a tenant's own enforcement wins.
struct CaptchaChecked: RouterMiddleware {
    typealias Context = HearthRequestContext
    let scope: CaptchaGate.Scope
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        try await CaptchaGate.check(scope, context, clientAddress: context.clientAddress(
            of: request, trustForwardedFor: services.configuration.trustForwardedFor), services: services)
        return try await next(request, context)
    }
}
