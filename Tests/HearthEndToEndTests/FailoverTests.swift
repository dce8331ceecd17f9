import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthServer
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Hearth on several PostgreSQL hosts (libpq's multi-host URL): it writes only to the one that takes writes, and
/// follows a failover without a restart, answering 503 (never 500) meanwhile and losing no acknowledged write.
/// The failover here is done by hand (`pg_ctl promote`); `HAFailoverTests` does it with a real HA manager.
@Suite(.serialized) struct FailoverTests {
    static let signUp = OutageTests.signUp

    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
    func followsThePrimaryWhenItsStandbyIsPromoted() async throws {
        let primary = try #require(await TemporaryPostgres.Cluster.start(), "a PostgreSQL primary")
        let standby = try #require(await primary.standby(synchronous: true), "a synchronous streaming standby")
        defer {
            try? primary.stop()
            try? standby.stop()
        }
        // The standby comes first: Hearth must pass over it to the host that takes writes.
        let store = try PostgresStore(url: "postgres://postgres@127.0.0.1:\(standby.port),127.0.0.1:\(primary.port)/postgres")
        try await store.migrate()
        #expect(store.target == StoreTarget(address: "127.0.0.1:\(primary.port)", role: .primary))
        let logs = CapturedLogs()
        let app = try await OutageTests.application(store, logs)
        try await app.test(.router) { client in
            let first = try await OutageTests.firstSignUp(client, "before@example.com")
            #expect(first.status == .ok, "\(first.text)")

            // Sign-ups from 6 clients while the primary is lost and its standby promoted.
            let phase = OutageFlag()
            let promoted = OutageFlag()  // its `during` counts the sign-ups acknowledged since the promotion
            let answers = try await withThrowingTaskGroup(of: [(String, UInt)].self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        var seen: [(String, UInt)] = []
                        var index = 0
                        while !phase.finished {
                            let email = "w\(worker)-\(index)@example.com"
                            index += 1
                            let down = phase.value
                            let reply = try await OutageTests.post(client, Self.signUp, ["email": email, "password": "secret1"])
                            seen.append((email, UInt(reply.status.code)))
                            phase.answered(during: down)
                            if reply.status == .ok { promoted.answered(during: promoted.value) }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        return seen
                    }
                }
                group.addTask {
                    await eventually { phase.answers.before >= 12 }
                    phase.value = true
                    try await blocking { try primary.stop() }  // as a crash: no shutdown checkpoint, connections cut
                    await eventually { phase.answers.during >= 6 }
                    try await blocking { try standby.promote() }
                    promoted.value = true
                    phase.value = false
                    await eventually { promoted.answers.during >= 24 }
                    phase.finished = true
                    return []
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let codes = Dictionary(grouping: answers, by: \.1).mapValues(\.count)
            #expect(!answers.contains { $0.1 >= 500 && $0.1 != 503 }, "never a 500: \(codes)")
            #expect(codes[503, default: 0] > 0, "the failover was seen: \(codes)")
            #expect(promoted.answers.during >= 24, "sign-ups resumed on the promoted standby: \(codes)")
            #expect(store.target == StoreTarget(address: "127.0.0.1:\(standby.port)", role: .primary))
            #expect(logs.contains(level: .notice, "store available again"), "\(logs.lines.suffix(5))")

            // Every sign-up that was acknowledged is on the new primary (the commit waited for the standby).
            // The store may still be settling on the new primary (its circuit probes before it lets calls through):
            // once it answers, each lookup is one read.
            #expect(await eventually { (try? await store.user(projectID: "outage-test", tenantID: nil, email: "before@example.com")) != nil },
                    "the store answers on the promoted standby")
            var missing: [String] = []
            for (email, code) in answers where code == 200 {
                var found = false  // retried only while the store cannot answer; an answer without the user is final
                let answered = await eventually {
                    guard let user = try? await store.user(projectID: "outage-test", tenantID: nil, email: email) as UserRecord?? else { return false }
                    found = user != nil
                    return true
                }
                if !answered || !found { missing.append(email) }
            }
            #expect(missing.isEmpty, "acknowledged sign-ups lost: \(missing)")
        }
        try await store.close()
    }

    /// A primary that turns read-only (`read_only_sql_transaction`, as a demoted primary does) is left for the
    /// next host that takes writes; reads went on meanwhile.
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
    func aHostThatTurnsReadOnlyIsLeftForOneThatTakesWrites() async throws {
        let first = try #require(await TemporaryPostgres.Cluster.start(), "a PostgreSQL server")
        let second = try #require(await TemporaryPostgres.Cluster.start(), "another PostgreSQL server")
        defer {
            try? first.stop()
            try? second.stop()
        }
        let other = try PostgresStore(url: second.url)
        try await other.migrate()
        try await other.close()
        let url = "postgres://postgres@127.0.0.1:\(first.port),127.0.0.1:\(second.port)/postgres?target_session_attrs=read-write"
        let store = try PostgresStore(url: url)
        try await store.migrate()
        #expect(store.target?.address == "127.0.0.1:\(first.port)")
        let app = try await OutageTests.application(store, CapturedLogs())
        try await app.test(.router) { client in
            let user = try await OutageTests.firstSignUp(client, "one@example.com")
            let idToken = try #require(user.json["idToken"] as? String)
            try await TemporaryPostgres.execute("ALTER SYSTEM SET default_transaction_read_only = on", on: first.url)
            try await TemporaryPostgres.execute("SELECT pg_reload_conf()", on: first.url)
            await eventually {
                (try? await OutageTests.post(client, OutageTests.lookup, ["idToken": idToken]))?.status == .ok
            }
            let refused = try await OutageTests.post(client, Self.signUp, ["email": "two@example.com", "password": "secret1"])
            #expect(refused.status == .serviceUnavailable, "a write on a read-only host is 503, not 500: \(refused.text)")
            var moved = refused
            #expect(await eventually {
                moved = (try? await OutageTests.post(client, Self.signUp, ["email": "two@example.com", "password": "secret1"])) ?? moved
                return moved.status == .ok
            }, "writes resume on the host that takes them: \(moved.text)")
            #expect(store.target == StoreTarget(address: "127.0.0.1:\(second.port)", role: .primary))
        }
        try await store.close()
    }
}
