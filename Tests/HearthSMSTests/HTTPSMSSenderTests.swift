import Crypto
import Foundation
import HearthCore
import HearthSMS
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOCore
import Testing

/// The SMS senders against a real HTTP server on loopback (Hummingbird) standing in for the provider.
@Suite struct HTTPSMSSenderTests {
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [(path: String, headers: HTTPFields, body: Data)] = []
        func add(_ path: String, _ headers: HTTPFields, _ body: Data) { lock.withLock { requests.append((path, headers, body)) } }
        var all: [(path: String, headers: HTTPFields, body: Data)] { lock.withLock { requests } }
    }

    /// A provider that records what it gets; `status` is its answer, `delay` how long it takes.
    func withProvider(status: HTTPResponse.Status = .ok, delay: Duration = .zero,
                      _ body: @escaping @Sendable (String, Received) async throws -> Void) async throws {
        let received = Received()
        let router = Router()
        router.post("**") { request, context -> Response in
            let data = Data(buffer: try await request.body.collect(upTo: 1 << 16))
            received.add(request.uri.path, request.headers, data)
            if delay > .zero { try await Task.sleep(for: delay) }
            return Response(status: status)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await body("http://127.0.0.1:\(client.port!)", received) }
    }

    let message = SMSMessage(projectID: "demo", phoneNumber: "+15555550100", code: "123456", sessionInfo: "s",
                             locale: "fr-CA")

    @Test func webhookPostsSignedJSONInTheUsersLanguage() async throws {
        try await withProvider { base, received in
            let sender = HTTPSMSSender(provider: .webhook(url: base + "/sms", secret: "hook-secret"), appName: "Acme")
            try await sender.send(message)
            let request = try #require(received.all.first)
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: String])
            #expect(json["phoneNumber"] == "+15555550100" && json["code"] == "123456" && json["projectId"] == "demo")
            #expect(json["message"] == "123456 est votre code de validation pour Acme.")
            let mac = HMAC<SHA256>.authenticationCode(for: request.body, using: SymmetricKey(data: Data("hook-secret".utf8)))
            #expect(request.headers[HTTPField.Name("X-Hearth-Signature")!] == "sha256=" + mac.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test func twilioGetsAFormWithBasicAuth() async throws {
        try await withProvider(status: .created) { base, received in
            let sender = HTTPSMSSender(provider: .twilio(accountSID: "AC123", authToken: "tok", from: "+15550001111",
                                                         baseURL: base), appName: "Acme")
            try await sender.send(SMSMessage(projectID: "demo", phoneNumber: "+15555550100", code: "654321",
                                             sessionInfo: "s", locale: "ja"))
            let request = try #require(received.all.first)
            #expect(request.path == "/2010-04-01/Accounts/AC123/Messages.json")
            #expect(request.headers[.authorization] == "Basic " + Data("AC123:tok".utf8).base64EncodedString())
            let form = String(decoding: request.body, as: UTF8.self)
            #expect(form.contains("To=%2B15555550100") && form.contains("From=%2B15550001111"))
            let body = form.split(separator: "&").first { $0.hasPrefix("Body=") }.map { String($0.dropFirst(5)) }
            #expect(body?.removingPercentEncoding == "Acme の確認コードは 654321 です。")
        }
    }

    @Test func failuresAreReportedNotSwallowed() async throws {
        try await withProvider(status: .internalServerError) { base, _ in
            let sender = HTTPSMSSender(provider: .webhook(url: base + "/sms", secret: nil), appName: "Acme")
            await #expect(throws: SMSDeliveryFailure.self) { try await sender.send(message) }
        }
        try await withProvider(delay: .seconds(1)) { base, _ in
            let sender = HTTPSMSSender(provider: .webhook(url: base + "/sms", secret: nil), appName: "Acme", timeout: .milliseconds(200))
            await #expect(throws: SMSDeliveryFailure.self, "a slow provider times out") { try await sender.send(message) }
        }
        let closed = HTTPSMSSender(provider: .webhook(url: "http://127.0.0.1:1/sms", secret: nil), appName: "Acme")
        await #expect(throws: SMSDeliveryFailure.self, "an unreachable provider") { try await closed.send(message) }
    }

    @Test func textsFallBackToEnglish() {
        #expect(SMSText.message(code: "1", appName: "A", locale: "xx") == "1 is your verification code for A.")
        #expect(SMSText.message(code: "1", appName: "A", locale: "pt") == "1 é seu código de verificação do A.")
    }
}
