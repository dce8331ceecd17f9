import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
@testable import HearthServer
import Hummingbird
import HummingbirdTesting
import HearthTestSupport
import NIOCore
import Synchronization
import HearthWire
import Testing

/// A slow app service holds only its own callers (``OutboundTarget``): while 100 sign-ups wait on a blocking function
/// that hangs, other users' sign-ups and sign-ins through the same function keep their pace, and the hanging ones fail
/// closed at the 7-second deadline. Outbound calls follow no redirects, and client-facing errors never name the
/// function's URL.
@Suite(.serialized) struct OutboundHTTPTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"

    /// A blocking function on loopback: answers `{}` at once, except for emails starting with `hang`, which it holds
    /// for 30 s; `/moved` redirects to `/elsewhere`, which counts the calls it gets.
    final class StandInFunction: Sendable {
        let hanging = Mutex(0)
        let redirected = Mutex(0)

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("/beforeCreate") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                if Self.email(in: Data(buffer: body))?.hasPrefix("hang") == true {
                    self.hanging.withLock { $0 += 1 }
                    try? await Task.sleep(for: .seconds(30))
                }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            router.post("/moved") { _, _ -> Response in
                Response(status: .temporaryRedirect, headers: [.location: "/elsewhere"])
            }
            router.post("/elsewhere") { _, _ -> Response in
                self.redirected.withLock { $0 += 1 }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            return router
        }

        /// The email of the user in the function's JWT (read, not verified: this is the app's side).
        static func email(in body: Data) -> String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                  let jwt = (object["data"] as? [String: Any])?["jwt"] as? String else { return nil }
            let parts = jwt.split(separator: ".")
            guard parts.count >= 2, let payload = Base64URL.decode(String(parts[1])),
                  let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
            return (claims["user_record"] as? [String: Any])?["email"] as? String
        }
    }

    /// Runs `body` with a live Hearth whose `beforeCreate` is `path` on the stand-in function.
    static func withFunction(at path: String,
                             _ body: @escaping @Sendable (StandInFunction, _ base: String, Client, TestApp) async throws -> Void) async throws {
        let function = StandInFunction()
        let standIn = Application(router: function.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await standIn.test(.live) { live in
            var app = TestApp()
            app.live = true
            app.configuration.rateLimits.enabled = false
            let ready = app
            _ = try await CredentialGuardsTests.register(ready)
            try await ready.store.modifyProject("demo-project") { project in
                var functions = BlockingFunctions()
                functions.triggers["beforeCreate"] = .init(functionURI: "http://127.0.0.1:\(live.port!)\(path)", updatedAt: Date())
                project.settings.blockingFunctions = functions
            }
            // Hashing on threads of its own, as a server does: inline, 180 sign-ups would hold the test process's
            // cooperative threads, which the suites running alongside need.
            let hashing = ThreadPoolWorkRunner(threads: 2, queueLimit: 1_000)
            let built = try await buildApplication(
                configuration: ready.configuration, store: ready.store, clock: ready.clock, hashing: hashing,
                hashParameters: { .generate(memoryCost: 10) }, sms: ready.sms)
            do {
                try await built.test(.live) { live in
                    let client = Client(client: live)
                    try await body(function, "http://127.0.0.1:\(live.port!)", client, ready)
                }
            } catch {
                try? await hashing.shutdown()
                throw error
            }
            try await hashing.shutdown()
        }
    }

    /// Seconds each call took, and its error message (`nil`: success), for `count` concurrent calls.
    static func timed(_ session: URLSession, _ base: String, count: Int, answered: (@Sendable () -> Void)? = nil,
                      _ request: @escaping @Sendable (Int) -> (String, [String: Any]))
        async throws -> [(seconds: Double, error: String?)] {
        try await withThrowingTaskGroup(of: (Double, String?).self) { group in
            for index in 0..<count {
                group.addTask {
                    let (verb, body) = request(index)
                    var urlRequest = URLRequest(url: URL(string: "\(base)\(Self.v1)/\(verb)?key=\(TestApp.apiKey)")!)
                    urlRequest.httpMethod = "POST"
                    urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    urlRequest.httpBody = try JSONSerialization.data(withJSONObject: body)
                    urlRequest.timeoutInterval = 120
                    let clock = ContinuousClock()
                    let started = clock.now
                    let (data, _) = try await session.data(for: urlRequest)
                    let elapsed = clock.now - started
                    answered?()
                    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                    let error = (object?["error"] as? [String: Any])?["message"] as? String
                    return (Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds), error)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    @Test func aHangingFunctionHoldsOnlyItsOwnCallers() async throws {
        try await Self.withFunction(at: "/beforeCreate") { function, base, _, app in
            let settings = URLSessionConfiguration.ephemeral
            settings.httpMaximumConnectionsPerHost = 256
            let session = URLSession(configuration: settings)
            _ = try await Self.timed(session, base, count: 4) { ("accounts:signUp", ["email": "warm\($0)@example.com", "password": "secret-1"]) }
            let control = try await Self.timed(session, base, count: 40) { index in
                index % 2 == 0 ? ("accounts:signUp", ["email": "control\(index)@example.com", "password": "secret-1"])
                    : ("accounts:signInWithPassword", ["email": "warm\(index % 4)@example.com", "password": "secret-1"])
            }
            #expect(control.allSatisfy { $0.error == nil }, "\(control.compactMap(\.error))")

            let hangingAnswered = Mutex(0)
            let hanging = Task {
                try await Self.timed(session, base, count: 100, answered: { hangingAnswered.withLock { $0 += 1 } }) {
                    ("accounts:signUp", ["email": "hang\($0)@example.com", "password": "secret-1"])
                }
            }
            // Every hanging call has reached the function before the others start.
            #expect(await eventually { function.hanging.withLock { $0 } >= 100 })
            // How many hanging calls had ended when the first of the others was answered. Compared by order, not by a
            // clock: on a loaded machine all 40 can take longer than the functions' 7 s deadline, but with the old
            // shared pool of 8 not even the first was answered before that deadline freed a connection.
            let endedBeforeFirst = Mutex<Int?>(nil)
            let loaded = try await Self.timed(session, base, count: 40, answered: {
                let ended = hangingAnswered.withLock { $0 }
                endedBeforeFirst.withLock { $0 = $0 ?? ended }
            }) { index in
                index % 2 == 0 ? ("accounts:signUp", ["email": "loaded\(index)@example.com", "password": "secret-1"])
                    : ("accounts:signInWithPassword", ["email": "warm\(index % 4)@example.com", "password": "secret-1"])
            }
            let answeredMeanwhile = endedBeforeFirst.withLock { $0 } ?? -1
            let hung = try await hanging.value
            #expect(answeredMeanwhile == 0, "\(answeredMeanwhile) hanging calls ended before the first other call was answered")
            #expect(loaded.allSatisfy { $0.error == nil }, "others are served: \(loaded.compactMap(\.error))")
            // Cut by the deadline (the function holds them 30 s), and refused: fail closed.
            #expect(hung.allSatisfy { $0.error?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE : ((Deadline exceeded") == true },
                    "the hanging ones fail closed: \(Set(hung.compactMap(\.error)))")
            #expect(hung.allSatisfy { !($0.error ?? "").contains("127.0.0.1") }, "no function URL in an answer")
            #expect(try await app.store.users(projectID: "demo-project", after: nil, limit: 500)
                .allSatisfy { !($0.email ?? "").hasPrefix("hang") }, "nothing of a refused sign-up is stored")
            // Figures for the record (not bounds: a busy machine stretches both runs).
            let (before, during) = (Self.median(control.map(\.seconds)), Self.median(loaded.map(\.seconds)))
            print(String(format: "hanging function: others' p50 %.1f ms (control %.1f ms, %.2fx, max %.1f ms); hanging calls failed closed after at most %.2f s",
                         during * 1000, before * 1000, during / before, (loaded.map(\.seconds).max() ?? 0) * 1000,
                         hung.map(\.seconds).max() ?? 0))
        }
    }

    @Test func aRedirectIsNotFollowedAndTheURLNotEchoed() async throws {
        try await Self.withFunction(at: "/moved") { function, _, client, _ in
            let reply = try await client.post(Endpoints.signUp.path, ["email": "moved@example.com", "password": "secret-1"])
            #expect(reply.errorMessage?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true, "\(reply.text)")
            #expect(!reply.text.contains("127.0.0.1") && !reply.text.contains("/moved"), "\(reply.text)")
            #expect(function.redirected.withLock { $0 } == 0, "the redirect's target was never called")
        }
    }
}

