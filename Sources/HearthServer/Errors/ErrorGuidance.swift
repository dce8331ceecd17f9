import Foundation
import HearthWire

/// What the console tells an operator for an error the admin API answered, keyed as the envelope names it: the
/// Firebase code at the start of its message (``ServerErrorCode``), or its Google status. One table, on the server;
/// the console page carries it as data (``ConsolePage``), so its script holds no copy.
enum ErrorGuidance {
    static let console: [String: String] = [
        ServerErrorCode.invalidLoginCredentials.rawValue: "Wrong email, password or authenticator code.",
        ServerErrorCode.tooManyAttemptsTryLater.rawValue:
            "Too many failed attempts: this sign-in is locked for a while. Try again later.",
        ServerErrorCode.userNotFound.rawValue: "No such user.",
        ServerErrorCode.invalidClaims.rawValue:
            "The claims are not valid: a JSON object of at most 1000 characters, without reserved names.",
        "UNAUTHENTICATED": "Your session has ended: sign in again.",
        "PERMISSION_DENIED": "The server refused this request: reload the page and sign in again.",
    ]

    /// The table as JSON that is safe inside an HTML `<script type="application/json">` element.
    static var consoleJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: (try? encoder.encode(console)) ?? Data("{}".utf8), as: UTF8.self)
        return text.replacingOccurrences(of: "<", with: "\\u003c")
    }
}
