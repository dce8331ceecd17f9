import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthServer
import HearthStoreContract
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Hearth behind pgbouncer in transaction pooling mode, with two server connections per database: every statement
/// (postgres-nio sends each as an unnamed prepared statement, parsed, bound and run in one round) and every
/// transaction may land on another server connection.
@Suite(.serialized, .enabled(if: TemporaryPgBouncer.skipReason == nil, "\(TemporaryPgBouncer.skipReason ?? "")"))
struct PgBouncerTests {
    /// Every behaviour of the store contract, each on a database of its own reached through pgbouncer.
    @Test func theStoreContractHoldsBehindPgBouncer() async throws {
        let server = try #require(try await TemporaryPostgres.freshDatabaseURL())
        let bouncer = try await TemporaryPgBouncer.start(for: server)
        defer { bouncer.stop() }
        let port = try #require(URLComponents(string: bouncer.url)?.port)
        for check in StoreContract.all {
            let database = try #require(try await TemporaryPostgres.freshDatabaseURL())
            var url = try #require(URLComponents(string: database))
            url.port = port
            let store = try PostgresStore(url: url.string ?? database)
            do {
                try await check.run(closing: store)
            } catch {
                Issue.record("\(check) behind pgbouncer: \(error); pgbouncer's log: \(bouncer.log.suffix(800))")
            }
        }
    }

    /// 50 sign-ups and then 50 sign-ins at once, through two server connections: each answered 200, and each user
    /// signs in with the password it was given.
    @Test func aBurstOfSignUpsAndSignInsPassesThroughTwoServerConnections() async throws {
        let server = try #require(try await TemporaryPostgres.freshDatabaseURL())
        let bouncer = try await TemporaryPgBouncer.start(for: server)
        defer { bouncer.stop() }
        let store = try PostgresStore(url: bouncer.url)
        try await store.migrate()
        let app = try await OutageTests.application(store, CapturedLogs())
        try await app.test(.router) { client in
            let signUps = try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        UInt(try await OutageTests.post(client, OutageTests.signUp,
                                                        ["email": "b\(index)@example.com", "password": "pass-\(index)"]).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(signUps.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: signUps, by: { $0 }).mapValues(\.count))")
            let signIns = try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        UInt(try await OutageTests.post(
                            client, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=outage-key",
                            ["email": "b\(index)@example.com", "password": "pass-\(index)"]).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(signIns.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: signIns, by: { $0 }).mapValues(\.count))")
        }
        #expect(bouncer.log.contains("login attempt"), "Hearth's connections went through pgbouncer: \(bouncer.log.suffix(400))")
        try await store.close()
    }
}
