import Foundation
import HearthWire
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat

/// Collects the body up to the configured size before the handler runs: larger bodies are a 413 in Google's
/// shape, and a client that hangs up mid-body a 400. It parses the body once (``RequestBody``) and puts it on the
/// context: guards, limits and the tenant scope peek at it, and the handler decodes its typed request from it.
struct BodyLimit: RouterMiddleware {
    typealias Context = HearthRequestContext
    let limit: Int
    /// Production refuses unknown fields; emulator mode ignores them, as Firebase's emulator does.
    let strict: Bool
    let logger: Logger

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit)
        } catch {
            // Not ours to fix: logged quietly, answered (if anyone still listens) as a bad request.
            logger.info("request body ended early", metadata: [
                "path": .string(request.uri.path), "error": .string(String(describing: error))])
            throw APIError.incompleteBody
        }
        var context = context
        context.body = RequestBody(buffer, contentType: request.headers[.contentType])
        // A field spelled twice is refused before any guard, limit or rule peeks at the body.
        if case .failure(let error) = context.body.object, case .duplicateField = error { throw error }
        context.strictBodies = strict
        return try await next(request, context)
    }
}

/// A request body, collected and parsed once. JSON whatever the content type says (as curl users expect), or
/// form-encoded when it says so and is not JSON (the Secure Token API takes forms). Not JSON at all (a hosted
/// page's form post, an empty GET), it has no object, and a handler that decodes says why. A class, so that the
/// context, copied at every middleware layer, carries one reference.
final class RequestBody: Sendable {
    let bytes: ByteBuffer
    let object: Result<WireObject, WireDecodingError>
    let isForm: Bool
    static let empty = RequestBody(ByteBuffer(), contentType: nil)

    init(_ bytes: ByteBuffer, contentType: String?) {
        self.bytes = bytes
        let data = Data(buffer: bytes, byteTransferStrategy: .noCopy)
        let firstByte = bytes.readableBytesView.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let isForm = contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true && firstByte != UInt8(ascii: "{")
        self.isForm = isForm
        object = Result { () throws(WireDecodingError) in isForm ? try WireObject(form: data) : try WireObject(json: data) }
    }

    /// A string field, for middleware that acts before the handler decodes (see ``WireObject/peek(_:)``).
    func peek(_ key: String) -> String? { (try? object.get())?.peek(key) }

    /// `sendOobCode`'s `requestType` by name, also when sent as its proto number (Android's `6` is `EMAIL_SIGNIN`).
    var oobRequestType: String? {
        guard let type = peek("requestType") else { return nil }
        let names = SendOobCodeRequest.RequestType.protoNames
        if let number = Int(type), names.indices.contains(number) { return names[number] }
        return type
    }

    /// Whether the body has the field at all.
    func has(_ key: String) -> Bool { (try? object.get())?.has(key) == true }

    /// An object field, for a peek one level down (`phoneEnrollmentInfo.captchaResponse`).
    func nested(_ key: String) -> WireObject? {
        guard case .object(let fields)? = (try? object.get())?.value(key) else { return nil }
        return WireObject(fields)
    }
}

/// Decodes a route's typed request from the body ``BodyLimit`` parsed, with Google's rules (``WireDecoder``):
/// unknown fields are refused in production and ignored in emulator mode, as each of Firebase's servers does.
/// Every call may name its tenant (``TenantScope`` has acted on it); only an admin may name another project.
struct WireRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard let context = context as? HearthRequestContext else { throw APIError.internalError }
        return try Self.decode(type, context: context, strict: context.strictBodies, allowForm: false)
    }

    static func decode<T: Decodable>(_ type: T.Type, context: HearthRequestContext, strict: Bool,
                                     allowForm: Bool) throws(APIError) -> T {
        let body = context.body
        let object: WireObject
        switch body.object {
        case .success(let parsed) where !body.isForm || allowForm: object = parsed
        case .success:  // a form where only JSON is taken: say what is wrong with it as JSON
            do throws(WireDecodingError) {
                object = try WireObject(json: Data(buffer: body.bytes, byteTransferStrategy: .noCopy))
            } catch { throw .invalidArgument(error) }
        case .failure(let error): throw .invalidArgument(error)
        }
        if !context.isAdmin, object.has("targetProjectId") { throw .adminNeedsCredentials }
        do throws(WireDecodingError) {
            // A config or tenant patch leaves its declared settings to `DeclaredSettingsPatch`, which checks them.
            let declared = T.self is any CarriesDeclaredSettings.Type ? DeclaredSettingsPatch.roots : []
            return try WireDecoder(strict: strict, alsoIgnoring: ["tenantId"] + declared).decode(type, from: object)
        } catch { throw .invalidArgument(error) }
    }
}
