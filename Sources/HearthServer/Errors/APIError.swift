import HearthWire
import Hummingbird

/// An error answered in Google's envelope. Everything a handler throws becomes one of these at the boundary
/// (see `ErrorEnvelopes`), so no internal detail ever reaches a client.
struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var envelope: ErrorEnvelope

    /// A Firebase business error: 400, `CODE` or `CODE : detail`.
    static func business(_ code: ServerErrorCode, _ detail: String? = nil) -> APIError {
        APIError(status: .badRequest, envelope: .business(code, detail: detail))
    }

    static func invalidArgument(_ error: WireDecodingError) -> APIError {
        APIError(status: .badRequest, envelope: ErrorEnvelope(
            code: 400, message: error.message, reason: error.reason, status: "INVALID_ARGUMENT"))
    }

    static let missingAPIKey = APIError(status: .forbidden, envelope: ErrorEnvelope(
        code: 403, message: "The request is missing a valid API key.", reason: "forbidden",
        status: "PERMISSION_DENIED"))

    /// What Google answers for a key it does not know; clients recognise the `keyInvalid` reason.
    static let invalidAPIKey = APIError(status: .badRequest, envelope: ErrorEnvelope(
        code: 400, message: "API key not valid. Please pass a valid API key.", reason: "keyInvalid",
        status: "INVALID_ARGUMENT"))

    static let unauthenticated = APIError(status: .unauthorized, envelope: .unauthenticated)

    /// Google's 401, saying which audience an admin JWT must carry: the caller signed it for another address.
    static func wrongAdminAudience(_ audience: String, expected: String) -> APIError {
        var error = unauthenticated
        error.envelope.error.message = "Request had invalid authentication credentials. The token's audience (aud) is "
            + "\(audience), but this server expects \(expected): sign it with `hearth admin-token --url \(expected)`."
        return error
    }

    /// An admin path called with an API key but no bearer token.
    static let adminNeedsCredentials = APIError.business(
        .insufficientPermission, "Only authenticated requests can specify target_project_id.")

    /// A valid admin credential for another project than the path names.
    static let permissionDenied = APIError(status: .forbidden, envelope: ErrorEnvelope(
        code: 403, message: "The caller does not have permission", reason: "forbidden", status: "PERMISSION_DENIED"))

    static let notFound = APIError(status: .notFound, envelope: ErrorEnvelope(
        code: 404, message: "Not Found", reason: "notFound", domain: nil, status: "NOT_FOUND"))

    /// The 404 of an unknown path; a path written without Google's host segment (`/v1/accounts:signUp`) gets a hint
    /// saying where it lives, since that is the usual first mistake with curl.
    static func notFound(path: String) -> APIError {
        let host: String
        if path.hasPrefix("/v1/token") {
            host = "/securetoken.googleapis.com"
        } else if path.hasPrefix("/v1/") || path.hasPrefix("/v2/") {
            host = "/identitytoolkit.googleapis.com"
        } else if path.hasPrefix("/identitytoolkit/v3/") {
            host = "/www.googleapis.com"
        } else {
            return notFound
        }
        var error = notFound
        error.envelope.error.message = "Not Found. Paths start with Google's host, as Firebase's emulator serves them: try \(host)\(path)"
        return error
    }

    static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String) -> APIError {
        APIError(status: .methodNotAllowed, envelope: ErrorEnvelope(
            code: 405, message: "Method \(method.rawValue) not allowed for \(path)", reason: "methodNotAllowed",
            status: "INVALID_ARGUMENT"))
    }

    static func payloadTooLarge(_ limit: Int) -> APIError {
        APIError(status: .contentTooLarge, envelope: ErrorEnvelope(
            code: 413, message: "Request payload size exceeds the limit: \(limit) bytes.", reason: "badRequest",
            status: "INVALID_ARGUMENT"))
    }

    /// The client stopped sending before its body was complete (it hung up, or the stream broke).
    static let incompleteBody = APIError(status: .badRequest, envelope: ErrorEnvelope(
        code: 400, message: "INVALID_ARGUMENT : the request body ended before it was complete", reason: "badRequest",
        status: "INVALID_ARGUMENT"))

    /// The SMS provider is not configured or failed: the client may retry later.
    static let smsUnavailable = APIError(status: .serviceUnavailable, envelope: ErrorEnvelope(
        code: 503, message: "The verification SMS could not be sent. Try again later.", reason: "backendError",
        status: "UNAVAILABLE"))

    /// The CAPTCHA provider could not be asked (enforcement is on): retry shortly. Why is logged.
    static let captchaUnavailable = APIError(status: .serviceUnavailable, envelope: ErrorEnvelope(
        code: 503, message: "The CAPTCHA check could not be made. Try again later.", reason: "backendError",
        status: "UNAVAILABLE"))

    /// The store cannot serve just now (database down, disk full): retry shortly. Why is logged, never sent.
    static let unavailable = APIError(status: .serviceUnavailable, envelope: ErrorEnvelope(
        code: 503, message: "The service is currently unavailable.", reason: "backendError", status: "UNAVAILABLE"))

    static let internalError = APIError(status: .internalServerError, envelope: ErrorEnvelope(
        code: 500, message: "Internal error encountered.", reason: "backendError", status: "INTERNAL"))
}
