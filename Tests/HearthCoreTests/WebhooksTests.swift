import Foundation
import HearthCore
import Testing

/// Events as Standard Webhooks sign and shape them (the round trip with the `standardwebhooks` package is
/// `WebhookEventsEndToEndTests`).
@Suite struct WebhooksTests {
    /// The specification's own example: its secret, id, timestamp and body give its signature.
    @Test func signaturesMatchTheSpecificationsExample() throws {
        let signature = try StandardWebhook.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330",
                                                      body: Data(#"{"test": 2432232314}"#.utf8),
                                                      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(signature == "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(throws: WebhookError.badSecret) {
            try StandardWebhook.signature(id: "m", timestamp: "1", body: Data(), secret: "whsec_not base64!")
        }
    }

    @Test func anEventBecomesItsTypeWithTheAuditEventsId() throws {
        let event = AuditEvent(id: "evt-1", projectID: "p", at: Date(timeIntervalSince1970: 1_800_000_000.25),
                               kind: "sign-up", localID: "u-1", outcome: .success, clientAddress: "203.0.113.7",
                               details: ["provider": "password"])
        let endpoint = WebhookEndpoint(projectID: "p", url: "https://api.example.com/hook", now: Date())
        let signed = try StandardWebhook(event: event, secret: endpoint.secret, sentAt: Date(timeIntervalSince1970: 1_800_000_001))
        let body = try #require(try JSONSerialization.jsonObject(with: signed.body) as? [String: Any])
        #expect(body["type"] as? String == "user.created" && body["timestamp"] as? String == "2027-01-15T08:00:00.250Z")
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["uid"] as? String == "u-1" && data["ipAddress"] as? String == "203.0.113.7")
        #expect((data["details"] as? [String: String]) == ["provider": "password"])
        #expect(data["tenantId"] == nil, "the project's own event names no tenant")
        var inTenant = event
        inTenant.tenantID = "acme-a1b2c"
        let tenantBody = try JSONSerialization.jsonObject(with: try StandardWebhook(event: inTenant, secret: endpoint.secret,
                                                                                     sentAt: Date()).body) as? [String: Any]
        #expect((tenantBody?["data"] as? [String: Any])?["tenantId"] as? String == "acme-a1b2c", "a tenant's event names it")
        let headers = Dictionary(uniqueKeysWithValues: signed.headers.map { ($0.name, $0.value) })
        #expect(headers["webhook-id"] == "evt-1" && headers["webhook-timestamp"] == "1800000001")
        let expected = try StandardWebhook.signature(id: "evt-1", timestamp: "1800000001", body: signed.body, secret: endpoint.secret)
        #expect(headers["webhook-signature"] == "v1," + expected)
        #expect(throws: WebhookError.notAnEvent("sign-in-failed")) {
            try StandardWebhook(event: AuditEvent(projectID: "p", at: Date(), kind: "sign-in-failed", localID: nil,
                                                  outcome: .failure, clientAddress: nil), secret: endpoint.secret, sentAt: Date())
        }
    }

    /// Every event type names the audit kinds it comes from, and each kind maps back to one type.
    @Test func typesAndAuditKindsMapBothWays() {
        for type in WebhookEventType.allCases {
            for kind in type.auditKinds { #expect(WebhookEventType(auditKind: kind) == type) }
        }
        #expect(WebhookEventType(auditKind: "admin-call") == nil)
        #expect(WebhookEndpoint(projectID: "p", url: "u", types: [.userCreated], now: Date()).auditKinds == ["account-created", "sign-up"])
        let secret = WebhookEndpoint(projectID: "p", url: "u", now: Date()).secret
        #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
    }
}
