import Foundation

/// Waits until `condition` holds, checking again and again (every few milliseconds at first, then every 100 ms): how a
/// test waits for something that happens elsewhere (a server starting, a queue filling, a line reaching a log)
/// instead of sleeping a guessed time. Returns whether it held; gives up after `limit`, a net against a hang far above
/// what a loaded machine needs (ten minutes: with both cores taken by other work, the whole suite's tests took up to
/// 400 s each, and two minutes proved too few), so the test's own expectation then reports what never happened.
///
/// ```swift
/// #expect(await eventually { runner.depth == 2 }, "both admitted: one running, one queued")
/// ```
@discardableResult
public func eventually(within limit: Duration = .seconds(600), isolation: isolated (any Actor)? = #isolation,
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    var pause = Duration.milliseconds(2)
    while true {
        if try await condition() { return true }
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(100))
    }
}

/// The start of the next whole second after `date`: Firebase's revocation and `auth_time` are to the second, so a test
/// that needs a later second waits for it with ``eventually(within:_:)`` rather than sleeping 1.1 s.
public func nextWholeSecond(after date: Date) -> Date {
    Date(timeIntervalSince1970: (date.timeIntervalSince1970 + 1).rounded(.down))
}
