import Foundation
import HearthWire
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat

/// Collects the body up to the configured size before the handler runs: larger bodies are a 413 in Google's
/// shape, and a client that hangs up mid-body a 400.
struct BodyLimit: RouterMiddleware {
    typealias Context = HearthRequestContext
    let limit: Int
    let logger: Logger

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        var request = request
        do {
            _ = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit)
        } catch {
            // Not ours to fix: logged quietly, answered (if anyone still listens) as a bad request.
            logger.info("request body ended early", metadata: [
                "path": .string(request.uri.path), "error": .string(String(describing: error))])
            throw APIError.incompleteBody
        }
        return try await next(request, context)
    }
}

extension Request {
    /// String fields of the JSON body that ``BodyLimit`` collected, for middleware that must peek before the handler
    /// decodes (a rate-limit key, an admin call's `targetProjectId`). A body that is not a JSON object has none;
    /// the handler refuses it.
    func collectedStrings(_ names: String...) async throws -> [String: String] {
        let buffer = try await body.collect(upTo: .max)  // already collected: returns the buffer
        guard var object = try? WireObject(json: Data(buffer: buffer, byteTransferStrategy: .noCopy)) else { return [:] }
        var fields: [String: String] = [:]
        for name in names { if let value = (try? object.string(name)) ?? nil { fields[name] = value } }
        return fields
    }
}
