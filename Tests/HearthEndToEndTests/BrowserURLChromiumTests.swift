import Foundation
import HearthCore
import HearthTestSupport
import Testing

/// The redirect-URL table against a real browser: for every URL Hearth accepts, Chromium's `new URL()` gives the
/// same serialization (so the host Hearth checked is the host the browser goes to); every URL Hearth refuses is
/// one Chromium reads with user info, with a different host than Foundation's `URL`, or not at all.
@Suite(.serialized, .enabled(if: Browser.unavailableReason() == nil, "needs chromium: \(Browser.unavailableReason() ?? "")"))
struct BrowserURLChromiumTests {
    @Test func hearthReadsRedirectURLsAsChromiumDoes() async throws {
        let browser = try await Browser.start()
        defer { browser.stop() }
        try await browser.open("data:text/html,<title>urls</title>")
        let inputs = BrowserURLCases.all.map(\.0) + ["https://evil.example\\@localhost/"]
        let parsed = try await browser.evaluate("""
            return arguments[0].map(function (u) {
              try { var x = new URL(u); return [x.href, x.hostname, x.username + x.password]; } catch (e) { return null; }
            });
            """, [inputs]) as? [Any] ?? []
        #expect(parsed.count == inputs.count)
        for (input, answer) in zip(inputs, parsed) {
            let chromium = answer as? [String]
            if let ours = BrowserURL(input) {
                #expect(chromium?[0] == ours.normalized, "\(input.debugDescription): Chromium \(chromium ?? [])")
            } else if let chromium {
                // Refused: Chromium either sees user info, or Foundation would disagree on the host, or the host
                // needed IDNA or is not a name we authorize (IPv6, an out-of-range number).
                let foundationHost = URL(string: input)?.host
                let ambiguous = !chromium[2].isEmpty || foundationHost != chromium[1]
                    || !input.unicodeScalars.allSatisfy(\.isASCII) || chromium[1].hasPrefix("[")
                    || !["http:", "https:"].contains(where: chromium[0].hasPrefix)
                #expect(ambiguous, "\(input.debugDescription) was refused, but Chromium reads it plainly: \(chromium)")
            }
        }
        // What Hearth echoes back (the URL as sent, where every parser reads it alike) is the URL it checked.
        let accepted = BrowserURLCases.all.compactMap { case_ in BrowserURL(case_.0).map { (case_.0, $0) } }
        let echoes = accepted.map { $0.1.echo(of: $0.0) }
        #expect(echoes.contains { !$0.hasSuffix("/") && $0.contains("?") }, "no case is echoed as sent")
        let echoed = try await browser.evaluate("""
            return arguments[0].map(function (u) { try { return new URL(u).href; } catch (e) { return null; } });
            """, [echoes]) as? [Any] ?? []
        for ((input, ours), href) in zip(accepted, echoed) {
            #expect(href as? String == ours.normalized, "\(input.debugDescription) is echoed as \(ours.echo(of: input))")
        }
        // The attack itself: Chromium goes to evil.example, Foundation sees localhost.
        let attack = parsed.last as? [String]
        #expect(attack?[1] == "evil.example" && URL(string: "https://evil.example\\@localhost/")?.host != "evil.example")
    }
}
