import Foundation

/// The clock and faults of a Hearth server in emulator mode, for an app's tests: freeze time and move it (ID tokens,
/// codes and links expire as they would), and make the next calls of an endpoint fail or wait. Firebase's emulator
/// has neither; these calls go to Hearth's `/emulator/v1/projects/{id}/clock` and `…/faults`.
///
/// ```swift
/// Auth.auth().useEmulator(withHost: "localhost", port: 9099)
/// let emulator = try XCTUnwrap(Auth.auth().emulatorControls)
/// try await emulator.freezeClock()
/// try await emulator.advanceClock(by: 3601)        // the ID token the user holds is expired for the server now
/// try await emulator.injectFault(endpoint: "accounts:signInWithPassword", error: "QUOTA_EXCEEDED")
/// try await emulator.reset()                        // in tearDown
/// ```
public struct EmulatorControls: Sendable {
    /// The server's base URL (`http://localhost:9099`).
    public var baseURL: URL
    public var projectID: String
    var transport: any AuthTransport

    public init(baseURL: URL, projectID: String, transport: any AuthTransport = URLSessionTransport()) {
        self.baseURL = baseURL
        self.projectID = projectID
        self.transport = transport
    }

    /// The server's time now.
    public func now() async throws -> Date { try await clock(.init(url: url("clock"), method: "GET")) }

    /// Stops the server's clock at `date`, or where it is. Returns the time it shows.
    @discardableResult
    public func freezeClock(at date: Date? = nil) async throws -> Date {
        let body: [String: Any] = date.map { ["timeMillis": Int64(($0.timeIntervalSince1970 * 1000).rounded(.down))] } ?? [:]
        return try await clock(request("clock:freeze", body))
    }

    /// Moves the server's clock forward, frozen or not. Returns the time it shows.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) async throws -> Date {
        try await clock(request("clock:advance", ["seconds": seconds]))
    }

    /// Back to the wall clock.
    public func resetClock() async throws { _ = try await clock(request("clock:reset", [:])) }

    /// Makes the next `times` calls of `endpoint` (`accounts:signInWithPassword`, `token`, …) wait `delay` seconds,
    /// then answer `error` (a Firebase error code, or `UNAVAILABLE`) when one is given.
    public func injectFault(endpoint: String, error: String? = nil, delay: TimeInterval = 0, times: Int = 1) async throws {
        var body: [String: Any] = ["endpoint": endpoint, "times": times, "delayMillis": Int(delay * 1000)]
        if let error { body["error"] = error }
        _ = try await send(request("faults", body))
    }

    /// Removes every fault still waiting.
    public func resetFaults() async throws { _ = try await send(.init(url: url("faults"), method: "DELETE")) }

    /// The wall clock and no faults: what each test should start from.
    public func reset() async throws {
        try await resetClock()
        try await resetFaults()
    }

    private func url(_ name: String) -> URL {
        baseURL.appendingPathComponent("emulator/v1/projects/\(projectID)/\(name)")
    }

    private func request(_ name: String, _ body: [String: Any]) throws -> AuthHTTPRequest {
        AuthHTTPRequest(url: url(name), method: "POST", headers: ["Content-Type": "application/json"],
                        body: try JSONSerialization.data(withJSONObject: body))
    }

    private func clock(_ request: AuthHTTPRequest) async throws -> Date {
        let reply = try await send(request)
        guard let millis = (reply["timeMillis"] as? NSNumber)?.int64Value else { throw EmulatorControlsError(status: 200, message: "no timeMillis") }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    private func send(_ request: AuthHTTPRequest) async throws -> [String: Any] {
        let response = try await transport.send(request)
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        guard response.status == 200 else {
            let message = (object["error"] as? [String: Any])?["message"] as? String ?? "HTTP \(response.status)"
            throw EmulatorControlsError(status: response.status, message: message)
        }
        return object
    }
}

/// A control call the server refused: 404 where the server is not in emulator mode (or is Firebase's emulator).
public struct EmulatorControlsError: Error, Equatable, CustomStringConvertible {
    public var status: Int
    public var message: String
    public var description: String { "emulator control refused (\(status)): \(message)" }
}

extension Auth {
    /// The clock and faults of the server ``useEmulator(withHost:port:)`` (or a `.hearth` endpoint) names, in the
    /// configured project; `nil` without a project id.
    public var emulatorControls: EmulatorControls? {
        guard let project = core.options.projectID else { return nil }
        let base = endpoints.identityToolkit.deletingLastPathComponent()
        return EmulatorControls(baseURL: base, projectID: project, transport: core.options.transport)
    }
}
