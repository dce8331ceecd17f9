import Foundation

/// Whether a URL may receive a code or a browser: its host is one of the authorized domains or a subdomain of one
/// (`continueUrl`, redirect-flow `continueUri`, the hosted handler's `redirectUrl`).
///
/// ```swift
/// AuthorizedDomains.allows("https://app.example.com/done", in: ["example.com"])   // true
/// ```
public enum AuthorizedDomains {
    public static func allows(_ url: String, in domains: [String]) -> Bool {
        (try? check(url, in: domains)) != nil
    }

    /// As ``allows(_:in:)``, saying why not: `INVALID_CONTINUE_URI` (not an http(s) URL with a host) or
    /// `UNAUTHORIZED_DOMAIN`.
    public static func check(_ url: String, in domains: [String]) throws {
        guard let url = URL(string: url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              let host = url.host, !host.isEmpty
        else { throw AuthFailure.invalidContinueURI }
        guard domains.contains(where: { host == $0 || host.hasSuffix("." + $0) }) else {
            throw AuthFailure.unauthorizedDomain
        }
    }
}
