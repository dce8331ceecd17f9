import Foundation

/// Email addresses as Firebase treats them: compared case-insensitively, validated loosely.
public enum EmailAddress {
    /// The form used for uniqueness and lookups.
    public static func normalized(_ email: String) -> String { email.lowercased() }

    /// Firebase accepts `local@domain` where both parts are non-empty, the domain has no spaces
    /// and the whole address is at most 256 characters; anything else is `INVALID_EMAIL`. Control characters
    /// (NUL among them) are refused too: a mail transport may drop them, delivering to another address.
    public static func isValid(_ email: String) -> Bool {
        guard email.utf8.count <= 256 else { return false }
        // ASCII, the usual case, is checked byte by byte (by Character it was 6 % of an import's time): whitespace and
        // control characters there are the bytes up to the space, and DEL.
        if email.utf8.allSatisfy({ $0 < 0x80 }) {
            guard !email.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return false }
        } else if email.contains(where: { $0.isWhitespace || $0.isControlCharacter }) {
            return false
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        let domain = parts[1]
        return !domain.hasPrefix(".") && !domain.hasSuffix(".") && !domain.contains("..")
    }
}
