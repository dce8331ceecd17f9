import Foundation
import HearthWire
import Hummingbird

/// Failures an app's test suite asks emulator mode for (`/emulator/v1/projects/{id}/faults`): the next `times` calls
/// of an endpoint wait `delay`, then answer `error` when one is named. Shared by every project of the server, as its
/// clock is.
final class EmulatorFaults: @unchecked Sendable {
    struct Fault: Codable, Equatable {
        /// The endpoint's last path segment, as the REST API names it: `accounts:signInWithPassword`, `token`.
        var endpoint: String
        /// A Firebase error code (`TOO_MANY_ATTEMPTS_TRY_LATER`, `QUOTA_EXCEEDED`, …), or `UNAVAILABLE` for a 503.
        var error: String?
        var delayMillis: Int?
        /// How many calls are still affected.
        var times: Int
    }

    private let lock = NSLock()
    private var faults: [Fault] = []

    var all: [Fault] { lock.withLock { faults } }

    func add(_ fault: Fault) { lock.withLock { faults.append(fault) } }

    func reset() { lock.withLock { faults.removeAll() } }

    /// The fault for a call to `path`, counted as used.
    func take(path: String) -> Fault? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { path.hasSuffix("/" + $0.endpoint) }) else { return nil }
            let fault = faults[index]
            faults[index].times -= 1
            if faults[index].times <= 0 { faults.remove(at: index) }
            return fault
        }
    }

    /// The answer a fault's `error` names; `nil` for an unknown name.
    static func answer(_ name: String) -> APIError? {
        if name == "UNAVAILABLE" { return .unavailable }
        return ServerErrorCode(rawValue: name).map { APIError.business($0) }
    }
}

/// Emulator mode only: applies ``EmulatorFaults`` before a call reaches its route (never to `/emulator/…` itself).
struct FaultInjection<Context: RequestContext>: RouterMiddleware {
    let faults: EmulatorFaults

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/emulator/"), let fault = faults.take(path: path) else {
            return try await next(request, context)
        }
        if let delay = fault.delayMillis, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        if let error = fault.error, let answer = EmulatorFaults.answer(error) { throw answer }
        return try await next(request, context)
    }
}
