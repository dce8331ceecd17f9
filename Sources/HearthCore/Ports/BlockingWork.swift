/// Runs slow, CPU-bound work (password hashing) somewhere that does not stall the async executor.
///
/// The core stays free of NIO: the server passes a runner backed by `NIOThreadPool`; tests may run inline.
public protocol BlockingWorkRunner: Sendable {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
    /// The server is shutting down: work not yet started is refused (``WorkStopped``), so the requests waiting for
    /// it end at once instead of holding the shutdown.
    func stopAcceptingWork()
    /// Whether the next ``run(_:)`` would be refused with ``WorkQueueFull`` now: a request that will hash can be
    /// turned away before it pays for anything else.
    var isFull: Bool { get }
}

extension BlockingWorkRunner {
    public func stopAcceptingWork() {}
    public var isFull: Bool { false }
}

/// Thrown for work refused because the server is shutting down (answered 503).
public struct WorkStopped: Error, Sendable, Equatable {
    public init() {}
}

/// Runs the work on the calling task. For tests and tools, not for a server.
public struct InlineWorkRunner: BlockingWorkRunner {
    public init() {}
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T { try work() }
}

/// Thrown by a runner whose queue is full: the caller is answered at once ("try later") rather than waiting
/// behind every hash already queued.
public struct WorkQueueFull: Error, Sendable, Equatable {
    public init() {}
}
