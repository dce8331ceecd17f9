import Foundation

/// What one password check may cost. Imports refuse hashes above it, and verification checks it again before
/// hashing, so no stored row (imported, restored from a backup, written by hand) can stall the hashing threads: one
/// bcrypt-31 hash costs days per guess, and four wrong guesses would hold every sign-in behind them.
///
/// ```swift
/// try HashBudget.check(bcrypt: "$2b$12$…")               // fine
/// try HashBudget.check(scryptN: 1 << 20, r: 8, p: 1)    // 1 GiB: HashBudget.Exceeded
/// ```
public enum HashBudget {
    /// bcrypt's cost (2^cost rounds): 13 takes about half a second on one core, above any common setting (10-12).
    public static let maximumBcryptCost = 13
    /// scrypt's memory, 128·r·N·p bytes: Firebase's own parameters (N 2^14, r 8) take 16 MiB.
    public static let maximumScryptBytes = 256 << 20

    /// A hash over the budget, with what to do about it.
    public struct Exceeded: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The cost of a `$2a$`/`$2b$`/`$2y$` string, or `nil` when it has none readable.
    public static func bcryptCost(_ stored: String) -> Int? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[1].count == 2 else { return nil }
        return Int(parts[1])
    }

    public static func check(bcrypt stored: String) throws(Exceeded) {
        guard let cost = bcryptCost(stored), (4...maximumBcryptCost).contains(cost) else {
            throw Exceeded(description: "bcrypt cost \(bcryptCost(stored).map(String.init) ?? "?") is outside 4...\(maximumBcryptCost): "
                + "every sign-in would pay it; re-hash with a lower cost before importing")
        }
    }

    /// The memory `N`, `r` and `p` need, or `nil` on overflow.
    public static func scryptBytes(n: Int, r: Int, p: Int) -> Int? {
        let (a, o1) = n.multipliedReportingOverflow(by: r)
        let (b, o2) = a.multipliedReportingOverflow(by: p)
        let (c, o3) = b.multipliedReportingOverflow(by: 128)
        return o1 || o2 || o3 ? nil : c
    }

    public static func check(scryptN n: Int, r: Int, p: Int) throws(Exceeded) {
        guard n > 1, r > 0, p > 0, let bytes = scryptBytes(n: n, r: r, p: p), bytes <= maximumScryptBytes else {
            throw Exceeded(description: "scrypt N=\(n), r=\(r), p=\(p) needs more than \(maximumScryptBytes >> 20) MiB (128·r·N·p) per check")
        }
    }
}
