import Foundation
import HearthCore

/// An email to send: one sender, one recipient, a subject, and the same content as plain text and HTML.
public struct MailMessage: Sendable, Equatable {
    public struct Address: Sendable, Equatable {
        public var email: String
        public var name: String?

        public init(_ email: String, name: String? = nil) {
            self.email = email
            self.name = name
        }
    }

    public var from: Address
    public var to: Address
    public var subject: String
    public var text: String
    public var html: String?
    /// `Date:`; fixed in tests.
    public var date: Date
    /// `Message-ID:` without the angle brackets.
    public var messageID: String

    public init(from: Address, to: Address, subject: String, text: String, html: String? = nil, date: Date = Date(),
                messageID: String? = nil) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        let domain = from.email.split(separator: "@").last.map(String.init) ?? "hearth.local"
        self.messageID = messageID ?? "\(SecureRandom.token(byteCount: 16))@\(domain)"
    }
}

/// Writes a ``MailMessage`` as an RFC 5322 / MIME message: UTF-8 bodies in base64 (so no line is ever too long),
/// `multipart/alternative` when there is HTML, non-ASCII header text as RFC 2047 encoded words, CRLF line ends.
/// Header values can never carry a line break, so nothing rendered into a subject can add a header.
public enum MIMEWriter {
    /// The message as sent after `DATA` (before dot-stuffing).
    ///
    /// ```swift
    /// let wire = MIMEWriter.render(MailMessage(from: .init("noreply@example.com"), to: .init("ana@example.com"),
    ///                                          subject: "Réinitialisez", text: "Bonjour"))
    /// ```
    public static func render(_ message: MailMessage, boundary: String? = nil) -> String {
        var lines = [
            "From: " + address(message.from),
            "To: " + address(message.to),
            "Subject: " + headerText(message.subject, prefixLength: 9),
            "Date: " + rfc5322Date(message.date),
            "Message-ID: <\(singleLine(message.messageID))>",
            "MIME-Version: 1.0",
        ]
        let textPart = ["Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: base64", "",
                        base64Lines(message.text)]
        if let html = message.html {
            let boundary = boundary ?? "hearth-" + SecureRandom.token(byteCount: 12)
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--" + boundary)
            lines += textPart
            lines.append("--" + boundary)
            lines += ["Content-Type: text/html; charset=UTF-8", "Content-Transfer-Encoding: base64", "",
                      base64Lines(html)]
            lines.append("--" + boundary + "--")
        } else {
            lines += textPart
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `"Name" <email>`, the name encoded when it is not plain ASCII.
    static func address(_ address: MailMessage.Address) -> String {
        let email = "<\(singleLine(address.email))>"
        guard let name = address.name.map(singleLine), !name.isEmpty else { return email }
        if isPlainASCII(name) {
            let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(quoted)\" \(email)"
        }
        return encodedWords(name, prefixLength: 6) + " " + email
    }

    /// A header value: as is when it is printable ASCII, otherwise `=?UTF-8?B?…?=` words of at most 75 characters,
    /// split between characters (never inside one) and folded onto continuation lines.
    static func headerText(_ value: String, prefixLength: Int) -> String {
        let value = singleLine(value)
        return isPlainASCII(value) ? value : encodedWords(value, prefixLength: prefixLength)
    }

    static func encodedWords(_ value: String, prefixLength: Int) -> String {
        // 75 characters per word: "=?UTF-8?B?" + base64 + "?=" leaves 63 for base64, so 45 bytes of text.
        var words: [String] = []
        var chunk = Data()
        for character in value {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?" + chunk.base64EncodedString() + "?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + chunk.base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        return Data(normalized.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn,
                                                                   .endLineWithLineFeed])
    }

    static func singleLine(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" }
            .map(Character.init))
    }

    static func isPlainASCII(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// The DATA payload: every line starting with "." gets another one (RFC 5321 §4.5.2), and the terminating
    /// `.` line is appended.
    static func dotStuffed(_ rendered: String) -> String {
        var out = rendered.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        if out.hasPrefix(".") { out = "." + out }
        if !out.hasSuffix("\r\n") { out += "\r\n" }
        return out + ".\r\n"
    }
}
