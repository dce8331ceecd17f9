import Foundation
import HearthCore
import HearthPostgres
import HearthSQL
import HearthPostgresTestSupport
import HearthServer
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// What a production password sign-in costs PostgreSQL, counted by PostgreSQL (`pg_stat_database`): the limiter's
/// reservation, the account's read and the sign-in's unit of work, which also gives the reservation back. Three
/// transactions, rate limits on.
@Suite(.enabled(if: TemporaryPostgres.skipReason == nil, "PostgreSQL unavailable: \(TemporaryPostgres.skipReason ?? "")"))
struct SignInTransactionCountTests {
    @Test func aPasswordSignInIsThreeTransactions() async throws {
        let url = try #require(try await TemporaryPostgres.freshDatabaseURL())
        // The pool's keep-alive pings are transactions too; off here, so that only the sign-ins are counted.
        let components = try #require(URLComponents(string: url))
        var pool = PostgresClient.Configuration(host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
                                                username: components.user ?? "postgres", password: components.password,
                                                database: String(components.path.dropFirst()), tls: .disable)
        pool.options.keepAliveBehavior = nil
        let store = PostgresStore(configuration: pool)
        try await store.migrate()
        // Autovacuum's workers run transactions in the database too (an analyze once enough rows changed, at times
        // that a busy machine moves into the count): off for these tables, so that only the sign-ins are counted.
        try await store.execute("""
            DO $$ DECLARE t record; BEGIN
              FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
                EXECUTE format('ALTER TABLE %I SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)', t.tablename);
              END LOOP;
            END $$
            """)
        var configuration = ServerConfiguration(mode: .production, port: 0, projectID: "count-project",
                                                emailEnumerationProtection: false, initialAPIKey: "count-key")
        configuration.storeTimeout = .seconds(60)
        // The background passes run once at start, then not again while the test counts.
        configuration.webhookPollInterval = .seconds(3600)
        configuration.housekeepingInterval = .seconds(3600)
        #expect(configuration.rateLimits.enabled, "counted with the failed-sign-in limit on")
        // A clock that stands still: the project's cached settings (read again every 5 s of the clock) do not
        // expire mid-count however slow a busy machine makes the sign-ins.
        let app = try await buildApplication(configuration: configuration, store: store, clock: ManualClock(Date()),
                                             hashing: ThreadPoolWorkRunner(threads: 1),
                                             hashParameters: { .generate(memoryCost: 10) }, mailPollInterval: .seconds(3600))
        do {
            try await app.test(.router) { client in
                func signIn(_ email: String, _ password: String) async throws -> [String: Any] {
                    let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": password, "returnSecureToken": true])
                    let response = try await client.execute(
                        uri: "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=count-key", method: .post,
                        headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
                    return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
                }
                let body = try JSONSerialization.data(withJSONObject: ["email": "ada@example.com", "password": "secret-1", "returnSecureToken": true])
                _ = try await client.execute(uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=count-key", method: .post,
                                             headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
                let warm = try await signIn("ada@example.com", "secret-1")
                #expect(warm["idToken"] != nil, "\(warm)")

                // Three rounds, the fewest counted: a background pass that a busy machine delays past the quiet wait (a
                // one-off at start) can land in one round, not in all; what the sign-ins cost is in every round.
                let signIns = 10
                var rounds: [Int] = []
                for _ in 0..<3 {
                    let before = try await Self.settledTransactions(url, store)
                    for _ in 0..<signIns {
                        let reply = try await signIn("ada@example.com", "secret-1")
                        #expect(reply["idToken"] != nil, "\(reply)")
                    }
                    let after = try await Self.settledTransactions(url, store)
                    // Opening a connection is a transaction of PostgreSQL's own (the pool opened one for these sign-ins).
                    rounds.append((after.transactions - before.transactions) - (after.sessions - before.sessions))
                }
                let counted = rounds.min() ?? 0
                let perSignIn = Double(counted) / Double(signIns)
                print("PostgreSQL transactions per production password sign-in: \(perSignIn) (\(counted) for \(signIns); "
                      + "rounds \(rounds))")
                #expect(perSignIn <= 3, "\(counted) transactions for \(signIns) sign-ins (rounds \(rounds))")
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// The database's counts once the server is quiet (its background passes at start done: the store's own
    /// counter has not moved for half a second) and every connection the store had has ended (and so reported them).
    static func settledTransactions(_ url: String, _ store: PostgresStore) async throws -> (transactions: Int, sessions: Int) {
        let counter = try #require(store.statementCounter)
        var last = counter.current, quiet = 0
        while quiet < 5 {
            try await Task.sleep(for: .milliseconds(100))
            let now = counter.current
            quiet = now == last ? quiet + 1 : 0
            last = now
        }
        await store.driver.replacePool()  // the old connections end; the new pool connects when next used
        var settled: (transactions: Int, sessions: Int)?
        await eventually {
            guard let now = try? await TemporaryPostgres.activity(ofDatabaseIn: url), now.connections == 0 else { return false }
            settled = (now.transactions, now.sessions)
            return true
        }
        return try #require(settled, "every connection ended")
    }
}
