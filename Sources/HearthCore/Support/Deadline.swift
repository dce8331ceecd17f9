import Foundation
import Synchronization

/// The answer of a call that took longer than its deadline.
public struct DeadlineExceeded: Error, Sendable {
    public init() {}
}

/// Runs `work`, giving up with ``DeadlineExceeded`` after `timeout`. The work is cancelled then but not awaited:
/// a database call stuck in a TCP connect must not hold the answer (a task group would wait for it).
public func withDeadline<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let slot = ContinuationSlot<T>()
    return try await withCheckedThrowingContinuation { continuation in
        slot.waiting.withLock { $0 = continuation }
        let worker = Task {
            do {
                let value = try await work()
                slot.take()?.resume(returning: value)
            } catch {
                slot.take()?.resume(throwing: error)
            }
            slot.timer.withLock { $0?.cancel() }  // a finished call leaves no sleeping timer behind
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if let waiting = slot.take() {
                worker.cancel()
                waiting.resume(throwing: DeadlineExceeded())
            }
        }
        slot.timer.withLock { $0 = timer }
        if slot.isDone { timer.cancel() }  // the work may have finished before the timer was stored
    }
}

/// A continuation resumed once, by whichever of two tasks gets to it first.
private final class ContinuationSlot<T: Sendable>: Sendable {
    let waiting = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let timer = Mutex<Task<Void, Never>?>(nil)
    func take() -> CheckedContinuation<T, any Error>? { waiting.withLock { $0.take() } }
    var isDone: Bool { waiting.withLock { $0 == nil } }
}
