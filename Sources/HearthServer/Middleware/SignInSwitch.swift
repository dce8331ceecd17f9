import Foundation
import HearthCore
import Hummingbird

/// A line's ``RouteRules`` as middleware: the sign-in method it needs is on where the call acts (after
/// ``TenantScoped``), and what Firebase's emulator refuses is refused in emulator mode.
struct SignInSwitch: RouterMiddleware {
    typealias Context = HearthRequestContext
    let rules: RouteRules
    let isEmulator: Bool

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        try rules.check(context, isEmulator: isEmulator)
        return try await next(request, context)
    }
}
