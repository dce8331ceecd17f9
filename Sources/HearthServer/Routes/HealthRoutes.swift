import Foundation
import HearthCore
import Hummingbird
import NIOCore

/// `/healthz`, `/readyz`, `/metrics` and production's `/`: what load balancers, orchestrators, Prometheus and a
/// curious operator ask.
enum HealthRoutes {
    /// The process serves HTTP. Never touches the store, so a database outage does not get the process restarted.
    static func live(_ call: Call) async throws -> Response {
        text("ok\n", for: call)
    }

    /// Ready for traffic: the store answers within `readinessTimeout` and the served project's signing keys are
    /// loaded. 503 otherwise, saying which.
    static func ready(_ call: Call) async throws -> Response {
        let services = call.services
        let id = services.configuration.projectID
        let timeout = services.configuration.storeTimeout
        do {
            let project = try await withDeadline(timeout) { try await services.accounts.operatorTools.storedProject(id) }
            guard let project, !project.signingKeys.isEmpty else {
                return text("not ready: no signing keys loaded\n", status: .serviceUnavailable, for: call)
            }
            return text("ready\n", for: call)
        } catch {
            services.logger.warning("readiness check failed: the store did not answer", metadata: [
                "error": "\(error)", "hint": "check that the database is running and reachable"])
            return text("not ready: the store did not answer\n", status: .serviceUnavailable, for: call)
        }
    }

    /// Prometheus text. With a configured token, only `Authorization: Bearer <token>` reads it.
    static func metrics(_ call: Call) async throws -> Response {
        if let token = call.configuration.observability.metricsToken {
            let given = call.request.headers[.authorization] ?? ""
            guard constantTimeEquals(Array(given.utf8), Array("Bearer \(token)".utf8)) else {
                throw APIError.unauthenticated
            }
        }
        return metricsResponse()
    }


    static func metricsResponse() -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(bytes: HearthMetrics.scrape())))
    }

    /// Production's `/`: a small page naming the server and its mode, with the health and key endpoints.
    static func home(_ call: Call) async throws -> Response {
        let mode = call.configuration.mode.rawValue
        let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hearth</title>
        <meta name="viewport" content="width=device-width, initial-scale=1"></head>
        <body><h1>Hearth</h1>
        <p>A self-hosted identity server speaking Firebase Authentication's protocol, in <strong>\(mode)</strong> mode.</p>
        <ul>
        <li>Health: <a href="/healthz">/healthz</a>, readiness: <a href="/readyz">/readyz</a></li>
        <li>Token signing keys: <a href="/.well-known/jwks.json">/.well-known/jwks.json</a></li>
        <li>Console: <a href="/console">/console</a> (operators: <code>hearth console-admins create</code>)</li>
        <li>Documentation: <code>docs/README.md</code> in Hearth's repository (configuration, operations, the CLI); <code>hearth project show</code> prints this server's addresses and API key</li>
        </ul></body></html>

        """
        var response = text(page, for: call)
        response.headers[.contentType] = "text/html; charset=utf-8"
        response.headers[.contentSecurityPolicy] = "default-src 'none'"
        return response
    }

    /// A plain-text answer; `HEAD` gets the headers alone.
    private static func text(_ body: String, status: HTTPResponse.Status = .ok, for call: Call) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: call.request.method == .head ? .init() : .init(byteBuffer: ByteBuffer(string: body)))
    }
}
