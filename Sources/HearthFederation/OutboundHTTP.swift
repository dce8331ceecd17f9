import AsyncHTTPClient
import HearthCore
import NIOCore

/// One kind of outbound call (an app's blocking functions, webhook receivers, the SMS gateway, the CAPTCHA
/// verifier), with a connection pool of its own and a cap on calls in flight per host, so a slow service holds only
/// its own callers:
///
/// - its own `HTTPClient`: a function that hangs cannot take the connections the SMS gateway or another host needs;
/// - at most `cap` calls in flight per host: one more fails at once (``InFlightCap/Saturated``) rather than
///   queueing behind calls that may never end;
/// - every call has one deadline for the whole of it — waiting for a connection, the request, the answer's body;
/// - no redirects are followed (a function or gateway cannot send Hearth's signed request elsewhere), and a refused
///   connection fails at once instead of being retried until the deadline.
///
/// Before, every blocking function shared one pool of 8 connections per host with a 3 s wait for one: while one
/// user's function hung for 30 s, other users' sign-ins went from a p50 of 62 ms to 2.96 s.
///
/// ```swift
/// let (response, body) = try await OutboundTarget.functions.call(request, timeout: .seconds(7))
/// ```
public final class OutboundTarget: Sendable {
    /// Blocking functions: Firebase's 7 s limit per call.
    public static let functions = OutboundTarget(name: "functions", cap: 256)
    /// Webhook receivers, called by the delivery worker.
    public static let webhooks = OutboundTarget(name: "webhooks", cap: 64)
    /// The SMS gateway (a webhook or Twilio).
    public static let sms = OutboundTarget(name: "sms", cap: 128)
    /// The CAPTCHA provider's `siteverify`.
    public static let captcha = OutboundTarget(name: "captcha", cap: 128)

    public let name: String
    let http: HTTPClient
    let inFlight: InFlightCap

    public init(name: String, cap: Int) {
        self.name = name
        inFlight = InFlightCap(limit: cap)
        http = HTTPClient.outbound(connectionsPerHost: cap)
    }

    /// Sends `request` and collects at most `maximumBody` bytes of the answer, all within `timeout`: past it the call
    /// is cancelled and ``OutboundDeadlineExceeded`` thrown at once. Throws ``InFlightCap/Saturated`` at once when
    /// the cap's calls to the host are in flight.
    public func call(_ request: HTTPClientRequest, timeout: TimeAmount, maximumBody: Int = 1 << 20) async throws
        -> (HTTPClientResponse, ByteBuffer) {
        var request = request
        let host = InFlightCap.host(of: request.url)
        return try await Traced.client("\(name) \(request.method.rawValue)", ["server.address": host, "url.full": request.url]) {
            // The trace goes on in the service called (W3C trace context), when tracing is on.
            for (field, value) in Traced.headers() { request.headers.replaceOrAdd(name: field, value: value) }
            return try await send(request, to: host, timeout: timeout, maximumBody: maximumBody)
        }
    }

    private func send(_ request: HTTPClientRequest, to host: String, timeout: TimeAmount, maximumBody: Int) async throws
        -> (HTTPClientResponse, ByteBuffer) {
        try await inFlight.run(host) { [http] in
            do {
                return try await withDeadline(.nanoseconds(timeout.nanoseconds)) {
                    let response = try await http.execute(request, timeout: timeout)
                    return (response, try await response.body.collect(upTo: maximumBody))
                }
            } catch is DeadlineExceeded {
                throw OutboundDeadlineExceeded()
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
                || error == .connectTimeout || error == .getConnectionFromPoolTimeout {
                throw OutboundDeadlineExceeded()
            }
        }
    }
}

extension HTTPClient {
    /// A client for calls out to other services: its own pool of up to `connectionsPerHost` connections, no
    /// redirects followed, and a refused connection failing at once rather than retried until the deadline.
    public static func outbound(connectionsPerHost: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(3)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}

/// A call that did not finish within its deadline.
public struct OutboundDeadlineExceeded: Error, CustomStringConvertible {
    public var description: String { "the call did not finish within its deadline" }
}

