import HearthPostgres
import Testing

/// libpq's URL form, several hosts included, as `hearth serve --store` takes it.
@Suite struct PostgresConnectionStringTests {
    typealias Host = PostgresConnectionString.Host

    @Test func severalHostsAreKeptInOrderAndSeekTheWritableOne() throws {
        let parsed = try PostgresConnectionString("postgres://hearth:s%40cret@db1:5433,db2,[::1]:6432/auth?sslmode=require")
        #expect(parsed.hosts == [Host(name: "db1", port: 5433), Host(name: "db2", port: 5432), Host(name: "::1", port: 6432)])
        #expect(parsed.hosts.map(\.description) == ["db1:5433", "db2:5432", "[::1]:6432"])
        #expect(parsed.username == "hearth")
        #expect(parsed.password == "s@cret")
        #expect(parsed.database == "auth")
        #expect(parsed.sslmode == "require")
        #expect(parsed.target == .readWrite, "several hosts and no target_session_attrs: Hearth writes, so read-write")
    }

    @Test func oneHostTakesWhatAnswersUnlessToldOtherwise() throws {
        let one = try PostgresConnectionString("postgresql://localhost/hearth?search_path=t1")
        #expect(one.hosts == [Host(name: "localhost", port: 5432)])
        #expect(one.username == "postgres")
        #expect(one.password == nil)
        #expect(one.searchPath == "t1")
        #expect(one.target == .any)
        #expect(try PostgresConnectionString("postgres://h/db?target_session_attrs=primary").target == .readWrite)
        #expect(try PostgresConnectionString("postgres://h1,h2/db?target_session_attrs=any").target == .any)
    }

    @Test(arguments: [
        "mysql://h/db", "postgres://", "postgres://h1,,h2/db", "postgres://h:0/db", "postgres://h:99999/db",
        "postgres://h:port/db", "postgres://[::1]x/db", "postgres://h1,h2/db?target_session_attrs=read-only",
        "postgres://h/db?target_session_attrs=prefer-standby",
    ])
    func whatCannotBeUsedIsRefusedWithAReason(_ url: String) {
        #expect(throws: PostgresStoreError.self) { try PostgresConnectionString(url) }
    }
}
