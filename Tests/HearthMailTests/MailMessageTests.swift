import Foundation
import HearthCore
@testable import HearthMail
import Testing

@Suite struct MailMessageTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func plainASCIIHeadersStayReadable() {
        let message = MailMessage(from: .init("noreply@example.com", name: "Acme \"Apps\""), to: .init("ana@example.com"),
                                  subject: "Reset your password", text: "Hi", date: date, messageID: "m1@example.com")
        let wire = MIMEWriter.render(message)
        #expect(wire.contains("From: \"Acme \\\"Apps\\\"\" <noreply@example.com>\r\n"))
        #expect(wire.contains("Subject: Reset your password\r\n"))
        #expect(wire.contains("Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n"))
        #expect(wire.contains("Content-Type: text/plain; charset=UTF-8\r\n"))
        #expect(!wire.contains("multipart"))
    }

    @Test func nonASCIISubjectsBecomeShortEncodedWordsSplitBetweenCharacters() throws {
        let subject = String(repeating: "パスワードを再設定してください", count: 4)
        let header = MIMEWriter.headerText(subject, prefixLength: 9)
        let words = header.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        var decoded = Data()
        for word in words {
            #expect(word.count <= 75, "encoded word too long: \(word.count)")
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            #expect(String(data: payload, encoding: .utf8) != nil, "each word holds whole characters")
            decoded.append(payload)
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func lineBreaksCannotInjectHeaders() {
        let message = MailMessage(from: .init("noreply@example.com"), to: .init("ana@example.com\r\nBcc: x@evil.test"),
                                  subject: "Hi\r\nBcc: evil@evil.test", text: "body", date: date)
        let headers = MIMEWriter.render(message).components(separatedBy: "\r\n\r\n")[0]
        #expect(!headers.contains("\r\nBcc:"))
        #expect(headers.contains("Subject: HiBcc: evil@evil.test"))
    }

    @Test func multipartCarriesBothPartsAndDotsAreStuffed() {
        let message = MailMessage(from: .init("a@example.com"), to: .init("b@example.com"), subject: "s",
                                  text: "one\n.two", html: "<p>x</p>", date: date)
        let wire = MIMEWriter.render(message, boundary: "B")
        #expect(wire.contains("Content-Type: multipart/alternative; boundary=\"B\"\r\n"))
        #expect(wire.contains("\r\n--B\r\nContent-Type: text/html; charset=UTF-8\r\n"))
        #expect(wire.hasSuffix("--B--\r\n"))
        #expect(MIMEWriter.dotStuffed(".a\r\n.b\r\nc") == "..a\r\n..b\r\nc\r\n.\r\n")
        #expect(!wire.split(separator: "\r\n").contains { $0.count > 998 })
    }
}
