import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// How long a connection may take at each stage before it is closed, and how many may be open at once.
public struct ConnectionLimits: Sendable, Equatable {
    /// From connecting until a request's headers are complete.
    public var headerTimeout: Duration
    /// From a request's headers until its body is complete.
    public var bodyTimeout: Duration
    /// A kept-alive connection waiting for its next request.
    public var idleTimeout: Duration
    /// Connections open at once; beyond it new ones wait in the listen backlog until one closes.
    public var maxConnections: Int

    /// 768, or three quarters of the file descriptors this process may open if that is fewer: the rest stay for
    /// the database, log files and the listener, so a flood of connections can never leave the server unable to
    /// open its own files (or accept a connection once one closes).
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 768 }
        let descriptors = limit.rlim_cur > UInt64(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
        return max(16, min(768, descriptors * 3 / 4))
    }

    public init(headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
                idleTimeout: Duration = .seconds(60), maxConnections: Int = ConnectionLimits.defaultMaxConnections) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}

/// Closes connections that are too slow to send a request: headers not complete within `headerTimeout` of
/// connecting, a body not complete within `bodyTimeout` of its headers, or nothing new within `idleTimeout` of
/// the last response. Without it a client that sends half a request holds a connection (and a file descriptor)
/// forever; Hummingbird's own idle timeout is reset by every byte, so a slow sender defeats it.
final class SlowClientTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(limits.headerTimeout, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(limits.headerTimeout, context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(limits.bodyTimeout, context: context)
        case .end: disarm()  // the handler runs; the response's end re-arms
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(limits.idleTimeout, context: context) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    private func arm(_ timeout: Duration, context: ChannelHandlerContext) {
        timer?.cancel()
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            loopBound.value.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
