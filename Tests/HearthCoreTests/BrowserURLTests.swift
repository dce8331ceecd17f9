import Foundation
import HearthCore
import HearthTestSupport
import Testing

/// Redirect targets read as browsers read them. `BrowserURLChromiumTests` checks the same table against Chromium.
@Suite struct BrowserURLTests {
    /// Input → the normalized URL, or `nil` where Hearth refuses it.
    static let table: [(String, String?)] = BrowserURLCases.all

    @Test(arguments: table.indices)
    func eachTrickyURL(_ index: Int) {
        let (input, expected) = Self.table[index]
        #expect(BrowserURL(input)?.normalized == expected, "\(input.debugDescription)")
    }

    /// Firebase echoes `continueUrl` as sent, and the Admin SDKs' tests compare strings; Hearth does so only where
    /// Foundation and browsers read the URL alike, and sends the browser's serialization otherwise.
    @Test func aURLIsEchoedAsSentOnlyWhereEveryParserAgrees() throws {
        for sent in ["http://localhost?a=1&b=5#f=1", "https://App.Example.com:443/x", "https://app.example.com#top"] {
            #expect(try AuthorizedDomains.check(sent, in: ["example.com", "localhost"]) == sent)
        }
        let repaired = [
            "https://app.example.com\\done": "https://app.example.com/done",
            "https://app.example.com/a b": "https://app.example.com/a%20b",
            "https://2130706433/x": "https://127.0.0.1/x",
            "https:app.example.com/x": "https://app.example.com/x",
            "https://app%2Eexample.com/": "https://app.example.com/",
            " https://app.example.com/": "https://app.example.com/",
            "https://app.example.com/\u{0}x": "https://app.example.com/%00x",
        ]
        for (sent, stored) in repaired {
            #expect(try AuthorizedDomains.check(sent, in: nil) == stored, "\(sent.debugDescription)")
        }
    }

    @Test func theBackslashUserinfoBypassIsRefused() {
        #expect(!AuthorizedDomains.allows("https://evil.example\\@localhost/", in: ["localhost"]))
        #expect(!AuthorizedDomains.allows("https://evil.example%5C@localhost/", in: ["localhost"]))
        #expect(!AuthorizedDomains.allows("https://localhost\t.evil.example/", in: ["localhost"]))
        #expect(!AuthorizedDomains.allows("https://localhost%2eevil.example/", in: ["localhost"]))
        #expect(!AuthorizedDomains.allows("https://evil.example\u{3002}localhost/", in: ["localhost"]))
        #expect((try? AuthorizedDomains.check("HTTPS://App.Example.COM:443\\x?y#z", in: ["example.com"]))
                == "https://app.example.com/x?y#z")
        #expect(throws: AuthFailure.unauthorizedDomain) {
            try AuthorizedDomains.check("https://notexample.com/", in: ["example.com"])
        }
        #expect(throws: AuthFailure.invalidContinueURI) {
            try AuthorizedDomains.check("javascript:alert(1)//example.com", in: ["example.com"])
        }
    }
}

