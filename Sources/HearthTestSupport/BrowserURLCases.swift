import Foundation

/// The table both tests read: what Chromium computes for each input, and `nil` where Hearth refuses to decide.
public enum BrowserURLCases {
    public static let all: [(String, String?)] = [
        ("https://app.example.com/done", "https://app.example.com/done"),
        ("HTTPS://APP.Example.com", "https://app.example.com/"),
        ("https://app.example.com:443/x", "https://app.example.com/x"),
        ("http://app.example.com:80/x", "http://app.example.com/x"),
        ("http://app.example.com:8080/x", "http://app.example.com:8080/x"),
        ("https://app.example.com\\done", "https://app.example.com/done"),
        ("https:\\\\app.example.com/done", "https://app.example.com/done"),
        ("https:app.example.com/done", "https://app.example.com/done"),
        ("https:////app.example.com/done", "https://app.example.com/done"),
        ("  https://app.example.com/\t", "https://app.example.com/"),
        ("https://app.exa\tmple.com/", "https://app.example.com/"),
        ("https://app.exa\nmple.com/", "https://app.example.com/"),
        ("https://app%2Eexample.com/", "https://app.example.com/"),
        ("https://0x7f.1/", "https://127.0.0.1/"),
        ("https://2130706433/", "https://127.0.0.1/"),
        ("https://0177.0.0.1/", "https://127.0.0.1/"),
        ("https://app.example.com/a b?c d#e f", "https://app.example.com/a%20b?c%20d#e%20f"),
        ("https://app.example.com?x", "https://app.example.com/?x"),
        ("https://app.example.com#x", "https://app.example.com/#x"),
        // Refused: user info, forbidden or non-ASCII hosts, bad ports, other schemes.
        ("https://evil.example\\@localhost/", "https://evil.example/@localhost/"),  // host evil.example, as browsers
        ("https://evil.example@localhost/", nil),
        ("https://user:pass@app.example.com/", nil),
        ("https://evil.example%40localhost/", nil),
        ("https://evil\u{3002}example/", nil),
        ("https://xn--evil.example/\u{0}", "https://xn--evil.example/"),  // trailing C0 controls are stripped
        ("https://app.example.com/\u{0}x", "https://app.example.com/%00x"),
        ("https://app.example.com:99999/", nil),
        ("https://app.example.com:8x/", nil),
        ("https://[::1]/", nil),
        ("https:///", nil),
        ("javascript:alert(1)", nil),
        ("ftp://app.example.com/", nil),
        ("https://256.1.1.1/", nil),
    ]
}
