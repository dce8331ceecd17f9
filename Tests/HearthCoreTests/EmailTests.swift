import HearthCore
import Testing

/// `EmailAddress.isValid`: Firebase's loose rule, with whitespace and control characters refused wherever they are,
/// by the byte check for ASCII addresses and the Character check beyond it.
@Suite struct EmailTests {
    @Test func validAddressesPass() {
        for email in ["ada@example.com", "a+b@x.y", "ünïcödé@exämple.de", "a@b", String(repeating: "a", count: 250) + "@b.com"] {
            #expect(EmailAddress.isValid(email), "\(email)")
        }
    }

    @Test func whitespaceControlCharactersAndShapeAreRefused() {
        let refused = [
            "", "a", "@b", "a@", "a@b@c", "a@.b", "a@b.", "a@b..c", String(repeating: "a", count: 251) + "@b.com",
            "a @b", "a@b\tc", "a\u{0}@b", "a@b\u{7F}", "a@b\n", " a@b", "a@b\r",                    // ASCII
            "ä@b\u{A0}c", "ä\u{2028}@b", "ü@b\u{85}", "ü@b\u{0}",                                   // beyond ASCII
        ]
        for email in refused { #expect(!EmailAddress.isValid(email), "\(email.debugDescription)") }
    }
}
