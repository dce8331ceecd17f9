import HearthCore
import NIOCore
import NIOPosix

/// Runs password hashing on a dedicated `NIOThreadPool`: off the async executor and away from the pool that
/// SQLite queries use, so a burst of sign-ins cannot stall lookups.
public final class ThreadPoolWorkRunner: BlockingWorkRunner {
    private let pool: NIOThreadPool

    public init(threads: Int = System.coreCount) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }

    public func shutdown() async throws { try await pool.shutdownGracefully() }
}
