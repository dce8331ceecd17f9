import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Where verification SMS go in production.
public enum SMSProvider: Sendable, Equatable {
    /// POSTs JSON `{projectId, phoneNumber, code, message, locale}` to a URL you run (your own gateway, a
    /// serverless function); with a secret, `X-Hearth-Signature: sha256=<hex HMAC of the body>`.
    case webhook(url: String, secret: String?)
    /// Twilio's Messages API (form POST with basic auth); `baseURL` only changes for tests or a regional edge.
    case twilio(accountSID: String, authToken: String, from: String, baseURL: String = "https://api.twilio.com")
}

/// Sends verification codes through an ``SMSProvider`` over async-http-client. A non-2xx answer, a timeout or a
/// connection failure throws ``SMSDeliveryFailure`` (the server answers 503 and logs it; the code is never logged).
///
/// ```swift
/// let sender = HTTPSMSSender(provider: .webhook(url: "https://sms.internal/send", secret: "s3cret"), appName: "Acme")
/// ```
public struct HTTPSMSSender: SMSSender {
    public let provider: SMSProvider
    public let appName: String
    let http: HTTPClient
    let timeout: TimeAmount
    let inFlight: InFlightCap

    /// `timeout` bounds each whole send, waiting for a connection included; at most `inFlight.limit` sends are in
    /// flight to the gateway at once, and one more fails at once (answered 503) rather than queueing.
    public init(provider: SMSProvider, appName: String, httpClient: HTTPClient = Self.gateway,
                timeout: TimeAmount = .seconds(10), inFlight: InFlightCap = Self.sends) {
        self.provider = provider
        self.appName = appName
        self.http = httpClient
        self.timeout = timeout
        self.inFlight = inFlight
    }

    /// The gateway's own pool (a slow gateway holds no other service's connections), no redirects followed (a code
    /// is never posted anywhere but the configured URL), no connection retried until the deadline. The same
    /// settings as HearthFederation's outbound clients, written here because this module imports no other.
    public static let gateway: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(3)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
    public static let sends = InFlightCap(limit: 128)

    public func send(_ message: SMSMessage) async throws {
        let text = SMSText.message(code: message.code, appName: appName, locale: message.locale)
        var request: HTTPClientRequest
        let body: Data
        switch provider {
        case .webhook(let url, let secret):
            request = HTTPClientRequest(url: url)
            var object: [String: String] = ["projectId": message.projectID, "phoneNumber": message.phoneNumber,
                                            "code": message.code, "message": text]
            if let locale = message.locale { object["locale"] = locale }
            body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            request.headers.add(name: "Content-Type", value: "application/json")
            if let secret {
                let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
                request.headers.add(name: "X-Hearth-Signature", value: "sha256=" + mac.hexString)
            }
        case .twilio(let sid, let token, let from, let baseURL):
            request = HTTPClientRequest(url: "\(baseURL)/2010-04-01/Accounts/\(sid)/Messages.json")
            body = Data(FormEncoding.encode(["To": message.phoneNumber, "From": from, "Body": text]).utf8)
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(sid):\(token)".utf8).base64EncodedString())
        }
        request.method = .POST
        request.body = .bytes(ByteBuffer(data: body))
        let host = InFlightCap.host(of: request.url)
        let response: HTTPClientResponse
        do {
            response = try await Traced.client("sms POST", ["server.address": host]) { [http, timeout, inFlight] in
                for (field, value) in Traced.headers() { request.headers.replaceOrAdd(name: field, value: value) }
                return try await inFlight.run(host) { [request] in
                    try await withDeadline(.nanoseconds(timeout.nanoseconds)) {
                        let response = try await http.execute(request, timeout: timeout)
                        _ = try? await response.body.collect(upTo: 64 * 1024)
                        return response
                    }
                }
            }
        } catch {
            throw SMSDeliveryFailure(reason: "cannot reach the SMS provider: \(error)")
        }
        guard (200..<300).contains(response.status.code) else {
            throw SMSDeliveryFailure(reason: "the SMS provider answered \(response.status.code)")
        }
    }
}

/// Printed without its secret or token, so a configuration that reaches a log (a service description at debug
/// level, say) never carries them.
extension SMSProvider: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        switch self {
        case .webhook(let url, let secret): "webhook(\(url), secret: \(secret == nil ? "none" : "<redacted>"))"
        case .twilio(let sid, _, let from, let baseURL): "twilio(\(sid), from: \(from), \(baseURL), authToken: <redacted>)"
        }
    }

    public var debugDescription: String { description }
}
