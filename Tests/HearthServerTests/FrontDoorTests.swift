import Foundation
import HearthCore
@testable import HearthServer
import Hummingbird
import HearthTestSupport
import HummingbirdTesting
import HearthWire
import Testing

/// What stands before every route: deadlines, the bounded hashing queue and slow clients.
@Suite struct FrontDoorTests {
    @Test func aDeadlineAnswersWithoutWaitingForWorkThatIgnoresCancellation() async throws {
        // What /readyz and the store's circuit rely on: a call stuck in a connect must not hold the answer. The
        // work waits for a latch it never sees cancelled; the deadline must answer while it still waits.
        let latch = Latch()
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(200)) { () async throws -> Int in
                await latch.wait()
                return 1
            }
        }
        #expect(await !latch.isOpen, "answered while the work was still stuck")
        await latch.open()
        let answer = try await withDeadline(.seconds(30)) { 42 }
        #expect(answer == 42)
    }

    @Test func aFullHashingQueueRefusesAtOnce() async throws {
        let runner = ThreadPoolWorkRunner(threads: 1, queueLimit: 1)
        let gate = Gate()
        async let first: Void = runner.run { gate.wait() }
        async let second: Void = runner.run { gate.wait() }
        #expect(await eventually { runner.depth == 2 }, "both admitted: one running, one queued")
        await #expect(throws: WorkQueueFull.self) { try await runner.run { () } }
        gate.open()
        _ = try await (first, second)
        try await runner.run { () }  // room again once they finish
        try await runner.shutdown()
    }

    /// Shutdown does not wait for hashing: what is queued is refused at once, and `shutdown()` returns while a hash
    /// still runs (the gate opens only after it returned; waiting would never end).
    @Test func shutdownRefusesQueuedHashingAndDoesNotWaitForTheRunningOne() async throws {
        let runner = ThreadPoolWorkRunner(threads: 1, queueLimit: 4)
        let gate = Gate()
        let started = Gate()
        let running = Task { try await runner.run { started.open(); gate.wait() } }
        #expect(await eventually { started.isOpen }, "the hash is running")
        let queued = Task { try await runner.run { () } }
        #expect(await eventually { runner.depth == 2 }, "queued behind it")
        try await runner.shutdown()
        await #expect(throws: WorkStopped.self) { try await queued.value }
        await #expect(throws: WorkStopped.self) { try await runner.run { () } }
        gate.open()
        try await running.value
    }

    @Test func aFullHashingQueueIsAnsweredTooManyAttempts() async throws {
        var app = TestApp()
        app.configuration.hashQueueLimit = 0
        let built = try await buildApplication(configuration: app.configuration, store: app.store, clock: app.clock,
                                               hashing: AlwaysFull(), hashParameters: { .generate(memoryCost: 10) })
        try await built.test(.router) { raw in
            let reply = try await Client(client: raw).post(Endpoints.signUp.path,
                                                           ["email": "busy@example.com", "password": "secret1"])
            #expect(reply.status == 400)
            #expect(reply.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    /// While the hashing queue is full a password sign-in is turned away before anything else: a body that is not
    /// even JSON gets the queue's answer, and 50 refused sign-ins spend nothing of the account's failed-sign-in
    /// budget (limits on), so the first sign-in once there is room succeeds.
    @Test func aFullHashingQueueTurnsPasswordSignInsAwayAtTheDoor() async throws {
        var app = TestApp()
        app.configuration.rateLimits = .init(enabled: true)
        let runner = FullWhileSet()
        let built = try await buildApplication(configuration: app.configuration, store: app.store, clock: app.clock,
                                               hashing: runner, hashParameters: { .generate(memoryCost: 10) })
        try await built.test(.router) { raw in
            let client = Client(client: raw)
            let account = ["email": "door@example.com", "password": "secret1", "returnSecureToken": true] as [String: Any]
            #expect(try await client.post(Endpoints.signUp.path, account).status == 200)
            runner.full = true
            let garbled = try await client.post(Endpoints.signInWithPassword.path, raw: "{not json")
            #expect(garbled.errorMessage?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(garbled.text)")
            let wrong = ["email": "door@example.com", "password": "wrong-password"]
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<50 { group.addTask { try await client.post(Endpoints.signInWithPassword.path, wrong).errorMessage } }
                for try await message in group { #expect(message?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true) }
            }
            runner.full = false
            #expect(try await client.post(Endpoints.signInWithPassword.path, account).status == 200)
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
            // Connected, nothing sent. Each wait below gives up after a minute: what tells "closed" from "held", not speed.
            let silent = try RawConnection(port: port)
            #expect(await silent.closedWithin(seconds: 60), "a silent connection must be closed")
            // Half the headers.
            let halfHead = try RawConnection(port: port)
            halfHead.send("POST /identitytoolkit.googleapis.com/v1/accounts:lookup HTTP/1.1\r\nHost: x\r\n")
            #expect(await halfHead.closedWithin(seconds: 60), "headers that never end must not hold the connection")
            // Headers, then a body that stops short.
            let halfBody = try RawConnection(port: port)
            halfBody.send("POST /identitytoolkit.googleapis.com/v1/accounts:lookup?key=k HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id")
            #expect(await halfBody.closedWithin(seconds: 60), "a body that never ends must not hold the connection")
            // A normal client still gets answers (on a connection of its own: the test client's own one sat idle
            // past the idle timeout and was closed too).
            let normal = try RawConnection(port: port)
            normal.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = await normal.read()
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        }
    }
}

/// Holds async work until opened; deaf to cancellation.
actor Latch {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var isOpen = false

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
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
    var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return opened }
    func open() {
        lock.lock(); opened = true; lock.unlock()
        semaphore.signal()
    }
}

/// A runner whose queue is always full.
struct AlwaysFull: BlockingWorkRunner {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T { throw WorkQueueFull() }
    var isFull: Bool { true }
}

/// A runner that hashes inline, and says it is full while `full` is set (it then refuses, as the real one would).
final class FullWhileSet: BlockingWorkRunner, @unchecked Sendable {
    private let lock = NSLock()
    private var _full = false
    var full: Bool {
        get { lock.withLock { _full } }
        set { lock.withLock { _full = newValue } }
    }
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if full { throw WorkQueueFull() }
        return try work()
    }
    var isFull: Bool { full }
}

extension FrontDoorTests {
    /// The usual first curl mistake, a path without Google's host segment, gets a 404 that says where the path
    /// lives; other unknown paths keep Google's plain 404.
    @Test func hostlessPathsGetAHint() async throws {
        try await TestApp().run { client in
            let signUp = try await client.post("/v1/accounts:signUp", ["returnSecureToken": true])
            #expect(signUp.status == 404 && signUp.errorMessage?.hasSuffix("try /identitytoolkit.googleapis.com/v1/accounts:signUp") == true,
                    "\(signUp.text)")
            let refresh = try await client.post("/v1/token", ["grant_type": "refresh_token"])
            #expect(refresh.errorMessage?.hasSuffix("try /securetoken.googleapis.com/v1/token") == true, "\(refresh.text)")
            let other = try await client.send(.get, "/nothing-here")
            #expect(other.status == 404 && other.errorMessage == "Not Found")
        }
    }
}
