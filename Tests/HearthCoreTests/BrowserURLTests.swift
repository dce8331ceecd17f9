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

