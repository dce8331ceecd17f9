import Foundation
import HearthCore
import Hummingbird

/// Emulator mode's controls for an app's test suite, which Firebase's emulator lacks: the clock (read, freeze,
/// advance, reset) and faults (the next calls of an endpoint fail or wait). They exist only in emulator mode; the
/// clock and the faults are the server's, shared by its projects.
///
/// ```sh
/// E=http://127.0.0.1:9099/emulator/v1/projects/demo-project
/// curl -X POST $E/clock:freeze; curl -X POST $E/clock:advance -d '{"seconds": 3601}'    # ID tokens expire
/// curl -X POST $E/faults -d '{"endpoint": "accounts:signInWithPassword", "error": "QUOTA_EXCEEDED", "times": 2}'
/// ```
enum EmulatorControlRoutes {
    struct ClockState: Encodable {
        var time: String
        var timeMillis: Int64
        var frozen: Bool
        /// Anonymous users deleted because the advance made them inactive for 30 days (`autodeleteAnonymousUsers`).
        var deletedAnonymousUsers: Int?
    }

    static func clock(_ call: Call) throws -> EmulatorClock {
        guard ProjectID.isValid(call.parameter("project") ?? ""),
              let clock = call.services.accounts.clock as? EmulatorClock else { throw APIError.notFound }
        return clock
    }

    static func state(_ clock: EmulatorClock, deleted: Int? = nil) -> Response {
        let now = clock.now()
        return json(ClockState(time: now.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                               timeMillis: now.epochMilliseconds, frozen: clock.isFrozen, deletedAnonymousUsers: deleted))
    }

    static func getClock(_ call: Call) async throws -> Response { state(try clock(call)) }

    /// Stops time at `timeMillis` (or `time`, RFC 3339), else where it is.
    static func freeze(_ call: Call) async throws -> Response {
        struct Body: Decodable { var time: String?; var timeMillis: Int64? }
        let clock = try clock(call)
        let body = call.jsonBody(Body.self)
        var date: Date?
        if let millis = body?.timeMillis { date = Date(timeIntervalSince1970: Double(millis) / 1000) }
        if let text = body?.time {
            guard let parsed = try? Date(text, strategy: .iso8601) else {
                throw APIError.business(.invalidArgument, "time must be RFC 3339, like 2030-01-01T00:00:00Z")
            }
            date = parsed
        }
        clock.freeze(at: date)
        return state(clock)
    }

    /// Moves time forward by `seconds`; then deletes the anonymous users the move made 30 days inactive, where
    /// `autodeleteAnonymousUsers` is on, as the daily housekeeping would.
    static func advance(_ call: Call) async throws -> Response {
        struct Body: Decodable { var seconds: Double? }
        let clock = try clock(call)
        guard let seconds = call.jsonBody(Body.self)?.seconds, seconds.isFinite, seconds >= 0, seconds <= 10 * 365 * 86_400
        else { throw APIError.business(.invalidArgument, "seconds must be a number from 0 to 315360000 (ten years)") }
        clock.advance(by: seconds)
        let deleted = try await call.services.deleteInactiveAnonymousUsers(now: clock.now())
        return state(clock, deleted: deleted)
    }

    static func resetClock(_ call: Call) async throws -> Response {
        let clock = try clock(call)
        clock.reset()
        return state(clock)
    }

    struct FaultList: Encodable { var faults: [EmulatorFaults.Fault] }

    static func faults(_ call: Call) async throws -> Response {
        _ = try clock(call)
        return json(FaultList(faults: call.services.faults.all))
    }

    /// Adds a fault: `endpoint`, and `error` (a Firebase error code, or `UNAVAILABLE`) and/or `delayMillis`, for
    /// the next `times` calls (1 by default).
    static func addFault(_ call: Call) async throws -> Response {
        struct Body: Decodable { var endpoint: String?; var error: String?; var delayMillis: Int?; var times: Int? }
        _ = try clock(call)
        guard let body = call.jsonBody(Body.self), let endpoint = body.endpoint, !endpoint.isEmpty,
              !endpoint.contains("/"), endpoint.count <= 100
        else { throw APIError.business(.invalidArgument, "endpoint must name a call, like accounts:signInWithPassword or token") }
        if let error = body.error, EmulatorFaults.answer(error) == nil {
            throw APIError.business(.invalidArgument, "error must be a Firebase error code, like TOO_MANY_ATTEMPTS_TRY_LATER, or UNAVAILABLE")
        }
        let times = body.times ?? 1
        let delay = body.delayMillis ?? 0
        guard (1...1000).contains(times), (0...60_000).contains(delay), body.error != nil || delay > 0 else {
            throw APIError.business(.invalidArgument, "give an error or a delayMillis up to 60000, for 1 to 1000 times")
        }
        call.services.faults.add(.init(endpoint: endpoint, error: body.error, delayMillis: delay, times: times))
        return json(FaultList(faults: call.services.faults.all))
    }

    static func resetFaults(_ call: Call) async throws -> Response {
        _ = try clock(call)
        call.services.faults.reset()
        return json(FaultList(faults: []))
    }
}
