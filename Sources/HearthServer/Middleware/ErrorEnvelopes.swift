import HearthCore
import HearthWire
import HTTPTypes
import Hummingbird
import Logging

/// The boundary where everything a handler or guard throws becomes Google's error envelope: ``APIError`` as it
/// is, domain failures through their one table (`AuthFailure+Wire`), the router's "no such route" as Google's
/// 404, anything else as a logged 500 whose cause never reaches the client.
struct ErrorEnvelopes: RouterMiddleware {
    typealias Context = HearthRequestContext
    let logger: Logger

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try apiError(for: error, request: request, context: context).response(from: request, context: context)
        }
    }

    private func apiError(for error: any Error, request: Request, context: HearthRequestContext) -> APIError {
        switch error {
        case let error as APIError: return error
        case let failure as AuthFailure: return failure.apiError
        case let malformed as WireDecodingError: return .invalidArgument(malformed)  // a body read outside `decode`
        case StoreError.unavailable:
            return .unavailable  // the cause is logged once by the store's circuit (see buildApplication)
        case is WorkStopped:
            return .unavailable  // shutting down: another instance, or this one restarted, will answer
        case let failure as PasswordSourceUnavailable:
            context.logger.error("lazy migration: the source project did not check a password; the sign-in answered 503",
                                 metadata: ["error": "\(failure.reason)"])
            return .unavailable
        case let failure as SMSDeliveryFailure:
            context.logger.error("SMS not sent", metadata: ["error": "\(failure.reason)",
                "hint": "configure sms.webhook or sms.twilio in the config file (see docs/sign-in-methods.md)"])
            return .smsUnavailable
        case is WorkQueueFull:
            context.logger.notice("password hashing queue full: request refused",
                                  metadata: ["hint": "raise hashQueueLimit or add CPU if this is regular traffic"])
            return AuthFailure.tooManyAttempts.apiError
        case let error as HTTPError where error.status == .notFound: return .notFound(path: request.uri.path)
        default:
            context.logger.error("internal error", metadata: [
                "path": .string(request.uri.path), "error": .string(String(reflecting: error))])
            return .internalError
        }
    }
}

extension APIError: HTTPResponseError {
    /// The envelope as Google sends it: `application/json; charset=utf-8`, keys sorted.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        json(envelope, status: status, contentType: "application/json; charset=utf-8")
    }
}

/// A known path called with a method it does not serve: Google's 405 envelope rather than a 404.
struct MethodNotAllowed: HTTPResponder {
    typealias Context = HearthRequestContext

    func respond(to request: Request, context: HearthRequestContext) throws -> Response {
        throw APIError.methodNotAllowed(request.method, request.uri.path)
    }
}

/// Browsers call the API from any origin (the APIs use no cookies): the origin is reflected, as Google does, and
/// a preflight allows whatever headers it asks for. Hummingbird's `CORSMiddleware` takes a fixed header list, which
/// would break SDKs that add their own `X-Firebase-*` headers, so this one is ours.
struct ReflectingCORS: RouterMiddleware {
    typealias Context = HearthRequestContext
    /// Emulator mode answers Chrome's Private Network Access preflight, as Firebase's emulator does (an app served
    /// through a tunnel reaches the emulator on localhost); production does not open a private network to the web.
    var allowPrivateNetwork = false

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        if request.method == .options {
            var response = Self.preflight(request)
            if allowPrivateNetwork, request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] == "true" {
                response.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
            }
            return response
        }
        var response = try await next(request, context)
        if let origin = request.headers[.origin] {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        return response
    }

    private static func preflight(_ request: Request) -> Response {
        var response = Response(status: .noContent)
        if let origin = request.headers[.origin] { response.headers[.accessControlAllowOrigin] = origin }
        response.headers[.accessControlAllowMethods] = "GET,HEAD,PUT,PATCH,POST,DELETE"
        if let headers = request.headers[.accessControlRequestHeaders] {
            response.headers[.accessControlAllowHeaders] = headers
        }
        response.headers[.accessControlMaxAge] = "3600"
        response.headers[.vary] = "Origin, Access-Control-Request-Headers"
        return response
    }
}
