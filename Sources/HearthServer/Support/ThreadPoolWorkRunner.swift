import Dispatch
import HearthCore
import Metrics
import NIOCore
import NIOPosix
import Synchronization

/// Runs password hashing on a dedicated `NIOThreadPool`: off the async executor and away from the pool that
/// SQLite queries use, so a burst of sign-ins cannot stall lookups.
///
/// The queue is bounded: with `threads` hashes running and `queueLimit` waiting, the next caller gets
/// ``WorkQueueFull`` at once (answered `TOO_MANY_ATTEMPTS_TRY_LATER`). Unbounded, 256 concurrent sign-ins made
/// every sign-in wait 5–7 s; bounded, the excess is refused in microseconds and the rest keep their latency.
/// Reports `hearth_hash_queue_depth` (waiting + running) and `hearth_hash_queue_wait_seconds`.
public final class ThreadPoolWorkRunner: BlockingWorkRunner {
    private let pool: NIOThreadPool
    private let capacity: Int
    private let inFlight = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    public init(threads: Int = System.coreCount, queueLimit: Int = 64) {
        pool = NIOThreadPool(numberOfThreads: threads)
        capacity = threads + max(queueLimit, 0)
        pool.start()
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard !stopping.load(ordering: .relaxed) else { throw WorkStopped() }
        let admitted = inFlight.add(1, ordering: .relaxed).newValue
        defer { report(inFlight.subtract(1, ordering: .relaxed).newValue) }
        guard admitted <= capacity else {
            Counter(label: "hearth_hash_queue_refused").increment()
            throw WorkQueueFull()
        }
        report(admitted)
        let queued = DispatchTime.now().uptimeNanoseconds
        do {
            return try await pool.runIfActive {
                guard !self.stopping.load(ordering: .relaxed) else { throw WorkStopped() }  // queued before the shutdown
                Timer(label: "hearth_hash_queue_wait_seconds", preferredDisplayUnit: .seconds)
                    .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - queued))
                return try work()
            }
        } catch is CancellationError where stopping.load(ordering: .relaxed) {
            throw WorkStopped()  // dropped from the queue by the pool's shutdown
        }
    }

    public func stopAcceptingWork() { stopping.store(true, ordering: .relaxed) }

    public var isFull: Bool { inFlight.load(ordering: .relaxed) >= capacity }

    /// Hashes admitted and not finished, running or waiting: what `hearth_hash_queue_depth` reports.
    public var depth: Int { inFlight.load(ordering: .relaxed) }

    private func report(_ depth: Int) {
        Gauge(label: "hearth_hash_queue_depth").record(max(depth, 0))
    }

    /// Refuses what has not started and returns without waiting for the hashes running now (at most one per thread,
    /// each within ``HashBudget``): they finish, or end with the process.
    public func shutdown() async throws {
        stopAcceptingWork()
        pool.shutdownGracefully { _ in }
    }
}
