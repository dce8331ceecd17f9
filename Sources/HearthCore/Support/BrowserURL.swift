import Foundation

/// An `http(s)` URL read the way browsers read it (the WHATWG URL Standard), for every URL Hearth sends a code or
/// a browser to: `continueUrl`, `continueUri`, the hosted handler's `redirectUrl`.
///
/// Foundation's `URL` follows RFC 3986, and the two disagree on exactly the inputs an attacker would send:
/// `https://evil.example\@localhost/` is host `localhost` to Foundation and `evil.example` to every browser. So the
/// host is taken as a browser takes it — tabs and newlines dropped, `\` as `/`, any number of slashes after the
/// scheme, the host percent-decoded and lowercased, numeric hosts read as IPv4 — and what is still ambiguous is
/// refused: user info (`user@`), non-ASCII hosts (IDNA maps `。` to `.`), forbidden host characters, bad ports.
/// Only ``normalized`` is stored or used afterwards, so the URL checked is the URL followed.
///
/// ```swift
/// BrowserURL("HTTPS://App.Example.com:443\\done")?.normalized   // "https://app.example.com/done"
/// BrowserURL("https://evil.example\\@localhost/")                // nil: user info is refused
/// ```
public struct BrowserURL: Sendable, Equatable {
    /// `http` or `https`.
    public var scheme: String
    /// Lowercase ASCII: a domain name or a dotted-decimal IPv4 address.
    public var host: String
    /// `nil` for the scheme's default port.
    public var port: Int?
    /// The path, query and fragment, as serialized (`/` at least).
    public var rest: String

    /// The URL as a browser serializes it.
    public var normalized: String { scheme + "://" + host + (port.map { ":\($0)" } ?? "") + rest }

    /// `input` as it was sent when Foundation reads the same scheme, host and port from it as a browser does and
    /// nothing in it needs a browser's repair (`\`, controls, spaces, percent-encoded or numeric-looking hosts);
    /// otherwise ``normalized``. Firebase echoes a `continueUrl` as sent, and clients compare it as a string
    /// (`http://localhost?a=1` stays so, not `http://localhost/?a=1`), so the echo keeps that wherever it is safe.
    public func echo(of input: String) -> String {
        let plain = input.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"\\\"<>`{}|^".unicodeScalars.contains($0) }
        guard plain, let components = URLComponents(string: input), components.user == nil, components.password == nil,
              components.scheme?.lowercased() == scheme, let foundationHost = components.percentEncodedHost,
              !foundationHost.contains("%"), foundationHost.lowercased() == host,
              components.port == port || (port == nil && components.port == (scheme == "https" ? 443 : 80)),
              input.lowercased().hasPrefix(scheme + "://"), BrowserURL(input) == self
        else { return normalized }
        return input
    }

    public init?(_ input: String) {
        // Leading and trailing C0 controls and spaces go, then every tab and newline, as browsers do.
        var text = Substring(input).drop { $0.unicodeScalars.allSatisfy { $0.value <= 0x20 } }
        while let last = text.last, last.unicodeScalars.allSatisfy({ $0.value <= 0x20 }) { text = text.dropLast() }
        let cleaned = String(text.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
        guard let colon = cleaned.firstIndex(of: ":") else { return nil }
        let scheme = cleaned[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        // Special schemes take any run of `/` and `\` before the authority ("http:host", "http:\\\\host").
        let afterScheme = cleaned[cleaned.index(after: colon)...].drop { $0 == "/" || $0 == "\\" }
        let authorityEnd = afterScheme.firstIndex { "/\\?#".contains($0) } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.contains("@") else { return nil }  // user info: never needed here, often a trick

        var hostPart = authority
        var port: Int?
        if let portColon = authority.lastIndex(of: ":") {
            hostPart = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            if !digits.isEmpty {
                guard digits.allSatisfy(\.isASCIIDigit), digits.count <= 5, let value = Int(digits), value <= 65535
                else { return nil }
                port = value
            }
        }
        guard let host = Self.host(String(hostPart)) else { return nil }
        if port == (scheme == "https" ? 443 : 80) { port = nil }

        self.scheme = scheme
        self.host = host
        self.port = port
        self.rest = Self.rest(afterScheme[authorityEnd...])
    }

    /// The host as a browser resolves it, or `nil` where browsers would fail or where IDNA would be needed.
    static func host(_ raw: String) -> String? {
        guard !raw.isEmpty, !raw.hasPrefix("[") else { return nil }  // IPv6 literals: not an authorized domain
        guard let decoded = raw.removingPercentEncoding, decoded.unicodeScalars.allSatisfy(\.isASCII) else {
            return nil
        }
        let host = decoded.lowercased()
        let forbidden = Set(" #%/:<>?@[\\]^|")
        guard !host.isEmpty, !host.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              !host.contains(where: { forbidden.contains($0) })
        else { return nil }
        // A host whose last label looks numeric is an IPv4 address to a browser (`0x7f.1`, `2130706433`).
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last == "" { labels.removeLast() }
        if let last = labels.last, last.allSatisfy(\.isASCIIDigit) || last.hasPrefix("0x") {
            return ipv4(labels)
        }
        return host
    }

    /// WHATWG's IPv4 parser: up to four parts in decimal, octal (`0` prefix) or hex (`0x`); the last fills the
    /// remaining bytes.
    static func ipv4(_ labels: [Substring]) -> String? {
        guard (1...4).contains(labels.count) else { return nil }
        var numbers: [UInt64] = []
        for label in labels {
            var digits = label
            var radix = 10
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count > 1, digits.hasPrefix("0") {
                digits = digits.dropFirst()
                radix = 8
            }
            if digits.isEmpty { numbers.append(0); continue }
            guard digits.count <= 20, let value = UInt64(digits, radix: radix) else { return nil }
            numbers.append(value)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 255 }), last < (UInt64(1) << (8 * (4 - numbers.count))) else { return nil }
        var address = last
        for (index, part) in numbers.enumerated() { address += part << (8 * (3 - index)) }
        return (0..<4).map { String((address >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    /// Path, query and fragment: `\` is `/` in the path, and what a browser would percent-encode is encoded.
    static func rest(_ raw: Substring) -> String {
        var path = raw
        var tail = Substring("")
        if let end = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            path = raw[..<end]
            tail = raw[end...]
        }
        let slashed = path.isEmpty ? "/" : path.replacingOccurrences(of: "\\", with: "/")
        return encode(slashed) + encode(String(tail))
    }

    private static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte > 0x20, byte < 0x7F, !"\"<>`".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
