import Foundation

/// Whether a URL may receive a code or a browser: its host is one of the authorized domains or a subdomain of one
/// (`continueUrl`, redirect-flow `continueUri`, the hosted handler's `redirectUrl`).
///
/// ```swift
/// AuthorizedDomains.allows("https://app.example.com/done", in: ["example.com"])   // true
/// ```
public enum AuthorizedDomains {
    public static func allows(_ url: String, in domains: [String]?) -> Bool {
        (try? check(url, in: domains)) != nil
    }

    /// As ``allows(_:in:)``, saying why not: `INVALID_CONTINUE_URI` (not an http(s) URL with a host, or one that
    /// browsers and Foundation could read differently, see ``BrowserURL``) or `UNAUTHORIZED_DOMAIN`. Returns the
    /// URL to store and use: as sent where every parser reads it alike, else as browsers serialize it (see
    /// ``BrowserURL/echo(of:)``). `domains` `nil` allows any host (emulator
    /// mode, as Firebase's emulator); the URL is still parsed as strictly.
    @discardableResult
    public static func check(_ url: String, in domains: [String]?) throws -> String {
        guard let parsed = BrowserURL(url) else { throw AuthFailure.invalidContinueURI }
        let host = parsed.host
        guard let domains else { return parsed.echo(of: url) }
        guard domains.contains(where: { domain in
            let domain = domain.lowercased()
            return host == domain || host.hasSuffix("." + domain)
        }) else {
            throw AuthFailure.unauthorizedDomain
        }
        return parsed.echo(of: url)
    }

    /// A list the admin API was given, checked and normalized: each entry a host name (letters, digits, hyphens
    /// and dots, or an IPv4 address), lower-cased, each once, in the order given. A URL or a wildcard is refused
    /// with what to write instead.
    public static func validated(_ domains: [String]) throws -> [String] {
        var seen: [String] = []
        for given in domains {
            let domain = given.trimmingCharacters(in: .whitespaces).lowercased()
            let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
            guard !domain.isEmpty, domain.utf8.count <= 253, !labels.contains(where: \.isEmpty),
                  labels.allSatisfy({ $0.count <= 63 && !$0.hasPrefix("-") && !$0.hasSuffix("-")
                      && $0.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" } })
            else {
                throw AuthFailure.invalidArgument("authorized domain \"\(given)\" is not a domain: write the host alone "
                    + "(app.example.com), without a scheme, port, path or wildcard; its subdomains are included")
            }
            if !seen.contains(domain) { seen.append(domain) }
        }
        return seen
    }
}
