import Foundation
import HearthTestSupport
import Testing

let nginxBinary: URL? = ["/usr/sbin/nginx", "/usr/bin/nginx"].map(URL.init(fileURLWithPath:))
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }

/// Hearth behind nginx terminating TLS, as the README deploys it (`trustForwardedFor`, `publicURL`): links carry the
/// public https address and open through the proxy, the audit log sees the address the proxy saw, and a client that
/// forges `X-Forwarded-For` is still counted under its real address by the rate limits.
@Suite(.serialized, .enabled(if: nginxBinary != nil && hearthBinary != nil, "needs nginx (apt-get install nginx) and the built hearth binary"))
struct ProxyTests {
    /// `curl` through the proxy (self-signed certificate): status and body.
    static func curl(_ url: String, method: String = "POST", json: String? = nil, headers: [String] = []) async throws
        -> (status: Int, body: String)
    {
        var arguments = ["-sk", "-o", "-", "-w", "\n%{http_code}", "-X", method, url]
        for header in headers { arguments += ["-H", header] }
        if let json { arguments += ["-H", "content-type: application/json", "-d", json] }
        let text = try await runProcess(URL(fileURLWithPath: "/usr/bin/curl"), arguments).output
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test func hearthBehindATLSProxy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let proxyPort = try freePort()
        let publicURL = "https://127.0.0.1:\(proxyPort)"
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(
            store: "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path,
            settings: ["trustForwardedFor": true, "publicURL": publicURL, "rateLimits": true])
        defer { stop() }

        _ = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                          "-keyout", folder.appendingPathComponent("key.pem").path,
                                          "-out", folder.appendingPathComponent("cert.pem").path])
        let temp = folder.path
        let config = """
            worker_processes 1; daemon off; pid \(temp)/nginx.pid; error_log \(temp)/error.log;
            events {}
            http {
              access_log off;
              client_body_temp_path \(temp)/body; proxy_temp_path \(temp)/proxy; fastcgi_temp_path \(temp)/fastcgi;
              uwsgi_temp_path \(temp)/uwsgi; scgi_temp_path \(temp)/scgi;
              server {
                listen 127.0.0.1:\(proxyPort) ssl;
                ssl_certificate \(temp)/cert.pem; ssl_certificate_key \(temp)/key.pem;
                location / {
                  proxy_pass \(base);
                  proxy_set_header Host $host;
                  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                  proxy_set_header X-Forwarded-Proto https;
                }
              }
            }
            """
        try config.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = ChildProcess()
        nginx.executableURL = nginxBinary
        nginx.arguments = ["-c", folder.appendingPathComponent("nginx.conf").path, "-p", temp, "-e", "\(temp)/error.log"]
        nginx.standardError = FileHandle.nullDevice
        try nginx.run()
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let api = "\(publicURL)/identitytoolkit.googleapis.com/v1"
        let up = try await nginx.whileRunning(every: .milliseconds(100)) {
            (try? await Self.curl("\(publicURL)/healthz", method: "GET"))?.status == 200 ? true : nil
        }
        guard up == true else { Issue.record("the proxy ended before it came up"); return }

        let key = TwoInstanceRaceTests.apiKey
        let signUp = try await Self.curl("\(api)/accounts:signUp?key=\(key)", json: #"{"email":"ada@example.com","password":"secret123"}"#)
        #expect(signUp.status == 200, "\(signUp.body)")
        // An admin call through the proxy, its token addressed to the public URL; the link it returns is public too.
        let account = try await CLIStoreTests.hearth(["service-accounts", "create", "backend-api", "--store",
                                                "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path,
                                                "--project-id", "hearth-local"], in: folder)
        #expect(account.status == 0, "\(account.output)")
        func adminToken() async throws -> String {
            try await CLIStoreTests.hearth(["admin-token", "--key-file", "service-accounts/backend-api.json", "--url", publicURL], in: folder)
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let reset = try await Self.curl("\(api)/projects/hearth-local/accounts:sendOobCode",
                                  json: #"{"requestType":"PASSWORD_RESET","email":"ada@example.com","returnOobLink":true}"#,
                                  headers: ["Authorization: Bearer \(try await adminToken())"])
        let link = try #require((try? JSONSerialization.jsonObject(with: Data(reset.body.utf8)) as? [String: Any])?["oobLink"] as? String,
                                "\(reset.body)")
        #expect(link.hasPrefix("\(publicURL)/__/auth/action?mode=resetPassword"), "\(link)")
        #expect(try await Self.curl(link, method: "GET").status == 200, "the link opens through the proxy")

        // Reset emails to 101 addresses (no password hashing: cheap), each request claiming a fresh client address
        // in a forged X-Forwarded-For: counted under the address the proxy saw, so the 101st is refused (or a few
        // later, when the run straddles an hour boundary: the sliding estimate weighs the previous hour by its share).
        var refused = false
        for attempt in 0..<110 {
            let reply = try await Self.curl("\(api)/accounts:sendOobCode?key=\(key)",
                                      json: #"{"requestType":"PASSWORD_RESET","email":"n\#(attempt)@example.com"}"#,
                                      headers: ["X-Forwarded-For: 6.6.\(attempt / 250).\(attempt % 250)"])
            if reply.body.contains("TOO_MANY_ATTEMPTS_TRY_LATER") { refused = true; break }
        }
        #expect(refused, "100 emails from one address per hour, whatever the client claims")
        let audit = try await Self.curl("\(publicURL)/identitytoolkit.googleapis.com/v1/projects/hearth-local/auditEvents?type=rate-limited",
                                  method: "GET", headers: ["Authorization: Bearer \(try await adminToken())"])
        #expect(audit.body.contains("\"127.0.0.1\"") && !audit.body.contains("6.6."), "\(audit.body.prefix(400))")
    }
}
