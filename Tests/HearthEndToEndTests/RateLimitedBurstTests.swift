import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthServer
import HearthSQLite
import HearthStoreContract
import HummingbirdTesting
import HearthWire
import Testing

/// Every budget under a burst, as attackers send one: 50 or more concurrent requests released together by a barrier,
/// against real HTTP servers on SQLite (one instance) and on PostgreSQL (two instances sharing one database, the
/// requests alternating between them). A budget of N lets exactly N through: each limit reserves its slot in the store
/// before the work. Before, each checked, acted, then counted, and 50 concurrent codes to one number sent 50 texts.
/// The clock is fixed inside a window at a fractional millisecond, so no burst straddles a window boundary.
@Suite(.serialized) struct RateLimitedBurstTests {
    enum Backend: String, CaseIterable, Sendable { case sqlite, postgres }

    static let apiKey = "burst-api-key"

    @Test(arguments: Backend.allCases)
    func fiftyCodesToOneNumberSendItsFive(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            let replies = try await servers.burst(50) { _ in ("accounts:sendVerificationCode", ["phoneNumber": "+16505550100"]) }
            #expect(replies.passed == 5 && servers.sms.count == 5, "passed \(replies.passed), texts \(servers.sms.count)")
            #expect(replies.refused("QUOTA_EXCEEDED") == 45, "\(replies.messages)")
        }
    }

    @Test(arguments: Backend.allCases)
    func fiftyNumbersOfOneBlockStopAtThePumpingHalt(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            let replies = try await servers.burst(50) { index in
                ("accounts:sendVerificationCode", ["phoneNumber": "+1650555\(1000 + index)"])
            }
            #expect(replies.passed == 20 && servers.sms.count == 20, "passed \(replies.passed), texts \(servers.sms.count)")
            let halted = try await servers.store.auditEvents(projectID: "burst-project",
                                                             AuditQuery(kinds: [SMSPumpingWatch.auditKind], limit: 10))
            #expect(halted.count == 1, "one halt, audited once: \(halted.count)")
        }
    }

    @Test(arguments: Backend.allCases)
    func seventyTextsFromOneAddressSendItsFifty(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            // Each number in a block of its own: only the per-address budget applies.
            let replies = try await servers.burst(70) { index in
                ("accounts:sendVerificationCode", ["phoneNumber": "+1\(2025550000 + index * 10_000)"])
            }
            #expect(replies.passed == 50 && servers.sms.count == 50, "passed \(replies.passed), texts \(servers.sms.count)")
        }
    }

    @Test(arguments: Backend.allCases)
    func aHundredAndTwentyOneSignUpsCreateAHundred(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            let replies = try await servers.burst(121) { index in
                ("accounts:signUp", ["email": "burst\(index)@example.com", "password": "secret-\(index)"])
            }
            let stored = try await servers.store.users(projectID: "burst-project", tenantID: nil, after: nil, limit: 500)
            #expect(replies.passed == 100 && stored.count == 100, "passed \(replies.passed), stored \(stored.count)")
            #expect(replies.refused("TOO_MANY_ATTEMPTS_TRY_LATER") == 21, "\(replies.messages)")
        }
    }

    @Test(arguments: Backend.allCases)
    func fortyResetEmailsToOneInboxQueueTen(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            _ = try await servers.call(0, "accounts:signUp", ["email": "inbox@example.com", "password": "secret-1"])
            let replies = try await servers.burst(40) { _ in
                ("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "inbox@example.com"])
            }
            let queued = try await servers.store.outboxStatus(projectID: "burst-project", limit: 500)
            #expect(replies.passed == 10 && queued.count == 10, "passed \(replies.passed), queued \(queued.count)")
        }
    }

    @Test(arguments: Backend.allCases)
    func fiftyWrongPasswordsHashTen(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            _ = try await servers.call(0, "accounts:signUp", ["email": "guess@example.com", "password": "right-pass"])
            let replies = try await servers.burst(50) { index in
                ("accounts:signInWithPassword", ["email": "guess@example.com", "password": "guess-\(index)"])
            }
            #expect(replies.refused("INVALID_PASSWORD") == 10, "\(replies.messages)")
            #expect(replies.refused("TOO_MANY_ATTEMPTS_TRY_LATER") == 40, "\(replies.messages)")
            let right = try await servers.call(1, "accounts:signInWithPassword", ["email": "guess@example.com", "password": "right-pass"])
            #expect(Replies.message(right)?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "locked for the window: \(right)")
        }
    }

    @Test(arguments: Backend.allCases)
    func fiftyCodesToOneBlockStopAtItsHourlyBudget(_ backend: Backend) async throws {
        try await Self.on(backend, configure: { $0.rateLimits.smsPerPrefix = .init(limit: 30, window: 3600) }) { servers in
            // Ten numbers of one block, five times each: under the per-number and pumping limits, over the block's 30.
            let replies = try await servers.burst(50) { index in
                ("accounts:sendVerificationCode", ["phoneNumber": "+1650555\(2000 + index % 10)"])
            }
            #expect(replies.passed == 30 && servers.sms.count == 30, "passed \(replies.passed), texts \(servers.sms.count)")
        }
    }

    @Test(arguments: Backend.allCases)
    func aHundredAndTwentyEmailsFromOneAddressSendItsHundred(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            // Unknown inboxes: refused, but each refusal keeps its slot (an address cannot probe for free).
            let replies = try await servers.burst(120) { index in
                ("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody\(index)@example.com"])
            }
            #expect(replies.refused("TOO_MANY_ATTEMPTS_TRY_LATER") == 20, "\(replies.messages)")
        }
    }

    @Test(arguments: Backend.allCases)
    func aHundredAndTwentyGuessesFromOneAddressHashAHundred(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            let replies = try await servers.burst(120) { index in
                ("accounts:signInWithPassword", ["email": "guess\(index)@example.com", "password": "wrong-pass"])
            }
            #expect(replies.refused("TOO_MANY_ATTEMPTS_TRY_LATER") == 20, "\(replies.messages)")
        }
    }

    @Test(arguments: Backend.allCases)
    func eightyPasskeyCeremoniesFromOneAddressStartSixty(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            let replies = try await servers.burst(80) { _ in (Endpoints.startPasskeySignIn.path, [:]) }
            #expect(replies.refused("TOO_MANY_ATTEMPTS_TRY_LATER") == 20, "\(replies.messages)")
        }
    }

    /// Successful sign-ins give their slots back, and sign-ins to one account queue in each instance: a burst of right
    /// passwords is never limited as failures (two instances hold at most two slots at once, of ten).
    @Test(arguments: Backend.allCases)
    func fiftyRightPasswordsAllSignIn(_ backend: Backend) async throws {
        try await Self.on(backend) { servers in
            _ = try await servers.call(0, "accounts:signUp", ["email": "right@example.com", "password": "right-pass"])
            let replies = try await servers.burst(50) { _ in
                ("accounts:signInWithPassword", ["email": "right@example.com", "password": "right-pass"])
            }
            #expect(replies.passed == 50, "\(replies.messages)")
            let after = try await servers.call(1, "accounts:signInWithPassword", ["email": "right@example.com", "password": "right-pass"])
            #expect(after["idToken"] != nil, "every slot was given back: \(after)")
        }
    }
}

// MARK: Servers

extension RateLimitedBurstTests {
    /// The answers to one burst: each one's error message, `nil` for a success.
    struct Replies {
        let errors: [String?]
        var passed: Int { errors.filter { $0 == nil }.count }
        var messages: [String: Int] { errors.reduce(into: [:]) { $0[$1 ?? "ok", default: 0] += 1 } }
        func refused(_ message: String) -> Int { errors.filter { $0?.hasPrefix(message) == true }.count }
        static func message(_ body: [String: Any]) -> String? { (body["error"] as? [String: Any])?["message"] as? String }
    }

    /// Texts the servers' SMS provider was asked to send.
    final class CountingSMS: SMSSender, @unchecked Sendable {
        private let lock = NSLock()
        private var sent = 0
        var count: Int { lock.withLock { sent } }
        func send(_ message: SMSMessage) async throws { lock.withLock { sent += 1 } }
    }

    /// Servers on one store, each on a loopback port.
    struct Servers: Sendable {
        let bases: [String]
        let store: any IdentityStore
        let sms: CountingSMS
        let session: URLSession

        func call(_ instance: Int, _ verb: String, _ body: [String: Any]) async throws -> [String: Any] {
            let path = verb.hasPrefix("/") ? verb : "/identitytoolkit.googleapis.com/v1/\(verb)"
            var request = URLRequest(url: URL(string: bases[instance % bases.count] + path + "?key=\(RateLimitedBurstTests.apiKey)")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.timeoutInterval = 120
            let (data, _) = try await session.data(for: request)
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }

        /// `count` requests released together, alternating between the servers.
        func burst(_ count: Int, _ request: @escaping @Sendable (Int) -> (String, [String: String])) async throws -> Replies {
            let barrier = Barrier(parties: count)
            let errors = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let (verb, body) = request(index)
                        await barrier.arrive()
                        return Replies.message(try await call(index, verb, body))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            return Replies(errors: errors)
        }
    }

    /// Runs `body` against one server on a fresh SQLite file, or two on a fresh PostgreSQL schema (skipped, and
    /// said, where PostgreSQL is unavailable).
    static func on(_ backend: Backend, configure: (inout ServerConfiguration) -> Void = { _ in },
                   _ body: @escaping @Sendable (Servers) async throws -> Void) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_001_234.5678))  // mid-window, fractional ms
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-burst-\(UUID().uuidString)")
        let stores: [any IdentityStore]
        switch backend {
        case .sqlite:
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            stores = [try await SQLiteStore.open(path: folder.appendingPathComponent("hearth.sqlite").path)]
        case .postgres:
            guard TemporaryPostgres.skipReason == nil, let url = try await TemporaryPostgres.freshSchemaURL() else {
                print("RateLimitedBurstTests on PostgreSQL skipped: \(TemporaryPostgres.skipReason ?? "no server")")
                return
            }
            stores = [try PostgresStore(url: url), try PostgresStore(url: url)]
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        for store in stores { try await store.migrate() }
        var configuration = ServerConfiguration(mode: .production, port: 0, projectID: "burst-project",
                                                emailEnumerationProtection: false, initialAPIKey: apiKey)
        configuration.phoneSignIn = true
        // Counting is under test, not faults: a machine busy with the rest of the suite must not turn a slow query
        // into a 503 here.
        configuration.storeTimeout = .seconds(60)
        configure(&configuration)
        let sms = CountingSMS()
        // Hashing on threads of its own, as a server does: inline, bursts of sign-ups would hold the test process's
        // cooperative threads, which every other suite running alongside needs.
        let hashing = ThreadPoolWorkRunner(threads: 2, queueLimit: 1_000)  // a burst queues rather than being refused
        let apps = try await stores.asyncMap { store in
            try await buildApplication(configuration: configuration, store: store, clock: clock, hashing: hashing,
                                       hashParameters: { .generate(memoryCost: 10) }, sms: sms)
        }
        let settings = URLSessionConfiguration.ephemeral
        settings.httpMaximumConnectionsPerHost = 128
        let session = URLSession(configuration: settings)
        do {
            try await apps[0].test(.live) { first in
                if apps.count == 1 {
                    try await body(Servers(bases: ["http://127.0.0.1:\(first.port!)"], store: stores[0], sms: sms, session: session))
                    return
                }
                try await apps[1].test(.live) { second in
                    try await body(Servers(bases: ["http://127.0.0.1:\(first.port!)", "http://127.0.0.1:\(second.port!)"],
                                           store: stores[0], sms: sms, session: session))
                }
            }
        } catch {
            try? await hashing.shutdown()
            for store in stores { try? await store.close() }
            throw error
        }
        try await hashing.shutdown()
        for store in stores { try await store.close() }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
