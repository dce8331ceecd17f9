import Foundation
import HearthCore
import Hummingbird
import Metrics

/// Turns a request that would hash a password away at the door while the hashing queue is full, answering
/// `TOO_MANY_ATTEMPTS_TRY_LATER` as the queue itself would, before the body is decoded, the account read or a
/// limit reserved; and answers only after ``pause``, as long as a few hashes take.
///
/// Refused at the queue, each of 256 clients flooding `signInWithPassword` cost as much as a lookup (decoding,
/// the project and the account read, the reservation), and the refusals outnumbered everything else: lookups alongside
/// queued behind them (p99 95 ms in `scripts/load-test.sh`'s overload, docs/performance.md). Refused here, and at once,
/// they were cheap but came back at once, 8,000 to 12,000 a second. Paused, a client that asks again without backing
/// off asks ten times a second; one that backs off loses nothing, and the pause holds no thread.
struct ShedsWhenHashingIsFull: RouterMiddleware {
    typealias Context = HearthRequestContext
    let hashing: any BlockingWorkRunner
    let clock: any HearthClock
    static let pause: TimeInterval = 0.1

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        guard !hashing.isFull else {
            Counter(label: "hearth_hash_queue_refused").increment()
            try await clock.sleep(until: clock.now().addingTimeInterval(Self.pause))
            throw WorkQueueFull()
        }
        return try await next(request, context)
    }
}
