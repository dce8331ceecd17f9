import Foundation

/// When a failed delivery (an email, a webhook) is tried again: exponential back-off from `initialDelay`, capped at
/// `maximumDelay`, with ±20 % jitter so that instances recovering from one outage do not retry in step; given up
/// after `maximumAttempts`.
public struct RetryPolicy: Sendable, Equatable {
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval
    public var maximumAttempts: Int

    public init(initialDelay: TimeInterval = 30, maximumDelay: TimeInterval = 3600, maximumAttempts: Int = 12) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The delay after the `attempts`-th failure (1-based), before jitter.
    public func delay(afterAttempt attempts: Int) -> TimeInterval {
        min(maximumDelay, initialDelay * pow(2, Double(max(0, attempts - 1))))
    }

    /// When to try after the `attempts`-th failure, jittered; `nil` once they are used up.
    public func nextAttempt(after attempts: Int, now: Date) -> Date? {
        attempts < maximumAttempts ? now + delay(afterAttempt: attempts) * Double.random(in: 0.8...1.2) : nil
    }
}

/// The loop of a queue's sender: a pass at every ``ring()`` (something was just queued) and every poll interval
/// (retries, and what other instances queued), passes repeated while they report more to do, until cancelled.
///
/// ```swift
/// let loop = DeliveryLoop()
/// Task { await loop.run(every: .seconds(5)) { await sendDue() == batchSize } }
/// loop.ring()
/// ```
public struct DeliveryLoop: Sendable {
    private let doorbell = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    public init() {}

    /// Asks for a pass now instead of at the next poll.
    public func ring() { doorbell.continuation.yield() }

    /// `pass` returns whether to go again at once (a full batch: more may be due).
    public func run(every interval: Duration, _ pass: @escaping @Sendable () async -> Bool) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [doorbell] in
                while !Task.isCancelled {
                    doorbell.continuation.yield()
                    try? await Task.sleep(for: interval)
                }
                doorbell.continuation.finish()
            }
            for await _ in doorbell.stream {
                if Task.isCancelled { break }
                while await pass(), !Task.isCancelled {}
            }
            group.cancelAll()
        }
    }
}
