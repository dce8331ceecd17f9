import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// How long a connection may take at each stage before it is closed, and how many may be open at once.
public struct ConnectionLimits: Sendable, Equatable {
    /// From connecting until a request's headers are complete. Generous by default (as nginx's 60 s): clients
    /// and browsers open connections ahead of their first request, and this cannot tell waiting from trickling.
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

    public init(headerTimeout: Duration = .seconds(60), bodyTimeout: Duration = .seconds(30),
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
///
/// Each event only moves a deadline; one repeating check per connection, at a quarter of the shortest timeout,
/// closes it once the deadline has passed. Scheduling and cancelling a timer for every request instead took about
/// 1.6 % of the samples in a `perf` profile of lookups under load.
final class SlowClientTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let header: TimeAmount
    private let body: TimeAmount
    private let idle: TimeAmount
    private let tick: TimeAmount
    /// When the connection is closed unless something moves it; `nil` while a request is being handled.
    private var deadline: NIODeadline?
    private var check: RepeatedTask?

    init(limits: ConnectionLimits) {
        header = TimeAmount(limits.headerTimeout)
        body = TimeAmount(limits.bodyTimeout)
        idle = TimeAmount(limits.idleTimeout)
        tick = .nanoseconds(max(min(header.nanoseconds, body.nanoseconds, idle.nanoseconds) / 4, 10_000_000))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline = .now() + body
        case .end: deadline = nil  // the handler runs; the response's end sets the idle deadline
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadline = .now() + idle }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        deadline = .now() + header
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in
            let (handler, context) = loopBound.value
            if let deadline = handler.deadline, deadline <= .now() {
                handler.stop()
                context.close(promise: nil)
            }
        }
    }

    private func stop() {
        check?.cancel()
        check = nil
    }
}
