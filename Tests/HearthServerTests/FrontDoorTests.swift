import Foundation
import HearthCore
@testable import HearthServer
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Health, the production home page, metrics scraped over HTTP, the bounded hashing queue and slow clients.
@Suite struct FrontDoorTests {
    @Test(arguments: [ServerConfiguration.Mode.production, .emulator])
    func healthAndReadinessAnswerGETAndHEADWithoutCredentials(mode: ServerConfiguration.Mode) async throws {
        try await TestApp(mode: mode).run { client in
            for path in ["/healthz", "/readyz"] {
                let get = try await client.send(.get, path, key: nil)
                #expect(get.status == 200, "\(path): \(get.text)")
                #expect(get.headers[.cacheControl] == "no-store")
                let head = try await client.send(.head, path, key: nil)
                #expect(head.status == 200 && head.data.isEmpty, "HEAD \(path)")
            }
            #expect(try await client.send(.post, "/healthz", key: nil).status == 405)
        }
    }

    @Test func aDeadlineAnswersWithoutWaitingForWorkThatIgnoresCancellation() async throws {
        // What /readyz relies on: a store call stuck in a connect must not hold the answer.
        let started = ContinuousClock.now
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(200)) { () async throws -> Int in
                // Deaf to cancellation, as a connect that never completes.
                let end = ContinuousClock.now + .seconds(3)
                while ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
                return 1
            }
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        let answer = try await withDeadline(.seconds(5)) { 42 }
        #expect(answer == 42)
    }

    @Test func productionHomePageNamesTheServerAndItsMode() async throws {
        try await TestApp().run { client in
            let home = try await client.send(.get, "/", key: nil)
            #expect(home.status == 200)
            #expect(home.headers[.contentType] == "text/html; charset=utf-8")
            #expect(home.text.contains("Hearth") && home.text.contains("production") && home.text.contains("/healthz"))
        }
        try await TestApp(mode: .emulator).run { client in
            // Emulator mode keeps the emulator's own root document.
            let root = try await client.send(.get, "/", key: nil)
            #expect(root.headers[.contentType] == "application/json; charset=utf-8")
        }
    }

    @Test func metricsAreScrapedOverHTTPWithTheirBearerToken() async throws {
        var app = TestApp()
        app.live = true
        app.configuration.observability.metrics = .mainListener(bearerToken: "scrape-secret")
        try await app.run { client in
            _ = try await client.signUp("metrics@example.com")
            _ = try await client.post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                                      ["email": "metrics@example.com", "password": "wrong-one"])
            #expect(try await client.send(.get, "/metrics", key: nil).status == 401)
            #expect(try await client.send(.get, "/metrics", key: nil, headers: [.authorization: "Bearer nope"]).status == 401)
            let scrape = try await client.send(.get, "/metrics", key: nil, headers: [.authorization: "Bearer scrape-secret"])
            #expect(scrape.status == 200)
            #expect(scrape.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = scrape.text
            #expect(text.contains(#"hearth_sign_ups_total{provider="password",outcome="success"}"#), "\(text.prefix(3000))")
            #expect(text.contains(#"hearth_sign_ins_total{provider="password",outcome="failure"}"#))
            #expect(text.contains(#"http_route="/identitytoolkit.googleapis.com/v1/accounts:signUp""#))
            #expect(text.contains("http_server_request_duration_bucket"), "latency histograms by route")
        }
    }

    @Test func aFullHashingQueueRefusesAtOnce() async throws {
        let runner = ThreadPoolWorkRunner(threads: 1, queueLimit: 1)
        let gate = Gate()
        async let first: Void = runner.run { gate.wait() }
        async let second: Void = runner.run { gate.wait() }
        try await Task.sleep(for: .milliseconds(200))  // both admitted: one running, one queued
        await #expect(throws: WorkQueueFull.self) { try await runner.run { () } }
        gate.open()
        _ = try await (first, second)
        try await runner.run { () }  // room again once they finish
        try await runner.shutdown()
    }

    @Test func aFullHashingQueueIsAnsweredTooManyAttempts() async throws {
        var app = TestApp()
        app.configuration.hashQueueLimit = 0
        let built = try await buildApplication(configuration: app.configuration, store: app.store, clock: app.clock,
                                               hashing: AlwaysFull(), hashParameters: { .generate(memoryCost: 10) })
        try await built.test(.router) { raw in
            let reply = try await Client(client: raw).post("/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                                           ["email": "busy@example.com", "password": "secret1"])
            #expect(reply.status == 400)
            #expect(reply.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    @Test func silentAndSlowClientsAreDisconnected() async throws {
        var app = TestApp()
        app.configuration.connections = ConnectionLimits(headerTimeout: .milliseconds(300), bodyTimeout: .milliseconds(300),
                                                         idleTimeout: .milliseconds(300), maxConnections: 16)
        let built = try await buildApplication(configuration: app.configuration, store: app.store, clock: app.clock,
                                               hashing: InlineWorkRunner(), hashParameters: { .generate(memoryCost: 10) })
        try await built.test(.live) { client in
            let port = try #require(client.port)
            // Connected, nothing sent.
            let silent = try RawConnection(port: port)
            #expect(await silent.closedWithin(seconds: 3), "a silent connection must be closed")
            // Half the headers.
            let halfHead = try RawConnection(port: port)
            halfHead.send("POST /identitytoolkit.googleapis.com/v1/accounts:lookup HTTP/1.1\r\nHost: x\r\n")
            #expect(await halfHead.closedWithin(seconds: 3), "headers that never end must not hold the connection")
            // Headers, then a body that stops short.
            let halfBody = try RawConnection(port: port)
            halfBody.send("POST /identitytoolkit.googleapis.com/v1/accounts:lookup?key=k HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id")
            #expect(await halfBody.closedWithin(seconds: 3), "a body that never ends must not hold the connection")
            // A normal client still gets answers (on a connection of its own: the test client's own one sat idle
            // past the idle timeout and was closed too).
            let normal = try RawConnection(port: port)
            normal.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = await normal.read()
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        }
    }
}

/// Blocks hashing threads until opened.
final class Gate: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var opened = false
    func wait() {
        lock.lock(); let isOpen = opened; lock.unlock()
        if !isOpen { semaphore.wait(); semaphore.signal() }
    }
    func open() {
        lock.lock(); opened = true; lock.unlock()
        semaphore.signal()
    }
}

/// A runner whose queue is always full.
struct AlwaysFull: BlockingWorkRunner {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T { throw WorkQueueFull() }
}

/// A TCP connection written byte by byte, to play a slow or silent client.
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), 0) }
    }

    /// What arrives within 5 seconds. Blocking reads run on a thread of their own, never on Swift's cooperative
    /// pool, which the server under test shares.
    func read() async -> String {
        await offPool { self.readBlocking() }
    }

    func closedWithin(seconds: Int) async -> Bool {
        await offPool { self.closedWithinBlocking(seconds: seconds) }
    }

    private func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    private func readBlocking() -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    /// Whether the server closes the connection (a read returns 0 or fails) within `seconds`.
    private func closedWithinBlocking(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return true }  // closed
            if count < 0 { return errno == ECONNRESET }  // timed out (EAGAIN) means still open
        }
    }
}
