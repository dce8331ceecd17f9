import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address, for per-address limits.
public struct HearthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or `nil` when unknown (in-process tests).
    public let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
