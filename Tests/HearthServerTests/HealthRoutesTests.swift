import Foundation
import HearthCore
@testable import HearthServer
import Hummingbird
import HearthTestSupport
import HummingbirdTesting
import HearthWire
import Testing

/// `HealthRoutes`: health and readiness, the production home page, and metrics scraped over HTTP.
@Suite struct HealthRoutesTests {
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

    @Test func productionHomePageNamesTheServerAndItsMode() async throws {
        try await TestApp().run { client in
            let home = try await client.send(.get, "/", key: nil)
            #expect(home.status == 200)
            #expect(home.headers[.contentType] == "text/html; charset=utf-8")
            #expect(home.text.contains("Hearth") && home.text.contains("production") && home.text.contains("/healthz"))
            #expect(home.text.contains(#"<a href="/console">"#) && !home.text.contains("not available"), "the console is named")
            #expect(try await client.send(.get, "/metrics", key: nil).status == 404, "metrics are off unless configured")
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
            _ = try await client.post(Endpoints.signInWithPassword.path,
                                      ["email": "metrics@example.com", "password": "wrong-one"])
            #expect(try await client.send(.get, "/metrics", key: nil).status == 401)
            #expect(try await client.send(.get, "/metrics", key: nil, headers: [.authorization: "Bearer nope"]).status == 401)
            let scrape = try await client.send(.get, "/metrics", key: nil, headers: [.authorization: "Bearer scrape-secret"])
            #expect(scrape.status == 200)
            #expect(scrape.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = scrape.text
            #expect(text.contains(#"hearth_sign_ups_total{provider="password",outcome="success"}"#), "\(text.prefix(3000))")
            #expect(text.contains(#"hearth_sign_ins_total{provider="password",outcome="failure"}"#))
            #expect(text.contains("http_route=\"\(Endpoints.signUp.path)\""))
            #expect(text.contains("http_server_request_duration_bucket"), "latency histograms by route")
        }
    }
}
