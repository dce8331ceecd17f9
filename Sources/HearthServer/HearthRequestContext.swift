import HearthCore
import HTTPTypes
import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage, the peer's address, and what the route's guard resolved.
public struct HearthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or `nil` when unknown (in-process tests).
    public let peerAddress: String?
    /// The project the call acts in: set once by the route's guard (the API key's project, or the admin
    /// credential's), so handlers never resolve it again. `nil` on open routes.
    var project: ProjectContext?
    /// Whether the call carries admin credentials (a client path called by an Admin SDK, or an admin path).
    var isAdmin = false
    /// The body, parsed once by ``BodyLimit``; empty before it runs.
    var body = RequestBody.empty
    /// Whether typed requests refuse unknown fields (production); set with the body.
    var strictBodies = true
    /// Route handlers' typed requests are decoded from ``body`` with Google's JSON rules.
    public var requestDecoder: some RequestDecoder { WireRequestDecoder() }
    /// Handlers' typed replies are encoded as Google's servers write them.
    public var responseEncoder: some ResponseEncoder { WireResponseEncoder() }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The caller's address for per-address limits and the audit log: the peer, or, when `trustForwardedFor` is set
    /// (behind one proxy you run), the last `X-Forwarded-For` entry: the one that proxy added. Earlier entries are
    /// whatever the client sent (nginx's `$proxy_add_x_forwarded_for` and Caddy append to them), so trusting the
    /// first would let anyone pick the address their limits are counted under.
    /// The entry must be an IP address (it is stored in audit events and keys limits): anything else is ignored, and
    /// the peer counts instead.
    func clientAddress(of request: Request, trustForwardedFor: Bool) -> String {
        if trustForwardedFor, let forwarded = request.headers[.xForwardedFor],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty,
           last.utf8.count <= 45, let parsed = try? SocketAddress(ipAddress: last, port: 0), let address = parsed.ipAddress {
            return address
        }
        return peerAddress ?? "unknown"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xGoogAPIKey = Self("X-Goog-Api-Key")!
    /// The language the client asks emails and texts to be written in (`Auth.languageCode`).
    static let xFirebaseLocale = Self("X-Firebase-Locale")!
}
