import Dispatch
import Hummingbird
import Logging
import Metrics

/// One log line per request, once it is answered: method, route (the table's pattern, so ids and project names
/// do not fragment it), path without the query (query strings carry codes and keys), status and latency. The
/// request id is in every line the request logs, from Hummingbird's `hb.request.id`.
///
/// Hummingbird's `LogRequestsMiddleware` logs the whole URI before the handler runs, so it would print the
/// `oobCode` of action links and could not give status or latency.
struct RequestLog: RouterMiddleware {
    typealias Context = HearthRequestContext
    let level: Logger.Level

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        let micros = (DispatchTime.now().uptimeNanoseconds - start) / 1000
        context.logger.log(level: level, "request", metadata: [
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "NotFound"),
            "path": .string(request.uri.path),
            "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible(Double(micros) / 1000),
        ])
        return response
    }
}

/// Counts sign-ins or sign-ups of one provider by outcome: `hearth_sign_ins_total{provider, outcome}` with
/// `success` (a 200: tokens, or a pending credential when a second factor is due) or `failure`.
struct CountsSignIns: RouterMiddleware {
    typealias Context = HearthRequestContext
    let label: String
    let provider: String

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            count(response.status == .ok ? "success" : "failure")
            return response
        } catch {
            count("failure")
            throw error
        }
    }

    private func count(_ outcome: String) {
        Counter(label: label, dimensions: [("provider", provider), ("outcome", outcome)]).increment()
    }
}
