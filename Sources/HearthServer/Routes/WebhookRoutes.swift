import Foundation
import HearthCore
import Hummingbird

/// `v1/projects/{project}/webhooks` (Hearth's own, admin): the account-event endpoints, without their secrets, and
/// the latest deliveries with their state and last error. Endpoints are added with `hearth events add`.
enum WebhookRoutes {
    struct Listed: Encodable {
        struct Endpoint: Encodable {
            var id: String
            var url: String
            var eventTypes: [String]
            var createTime: String
        }
        struct Delivery: Encodable {
            var eventId: String
            var eventType: String?
            var localId: String?
            var endpointId: String
            /// `DELIVERED`, `PENDING` (tried again at `nextAttemptTime`) or `FAILED` (given up).
            var state: String
            var attempts: Int
            var lastError: String?
            var createTime: String
            var deliverTime: String?
            var nextAttemptTime: String?
        }
        var endpoints: [Endpoint]
        var deliveries: [Delivery]
    }

    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let tools = call.services.accounts.operatorTools
        let formatter = ISO8601DateFormatter()
        let endpoints = try await tools.webhookEndpoints(in: project)
        let deliveries = try await tools.webhookDeliveries(in: project, limit: 100)
        return json(Listed(
            endpoints: endpoints.map {
                .init(id: $0.id, url: $0.url, eventTypes: $0.types.map(\.rawValue), createTime: formatter.string(from: $0.createdAt))
            },
            deliveries: deliveries.map { message in
                .init(eventId: message.eventID, eventType: message.event.flatMap { WebhookEventType(auditKind: $0.kind)?.rawValue },
                      localId: message.event?.localID, endpointId: message.endpointID,
                      state: message.wireState,
                      attempts: message.attempts, lastError: message.lastError,
                      createTime: formatter.string(from: message.createdAt),
                      deliverTime: message.deliveredAt.map(formatter.string),
                      nextAttemptTime: message.nextAttemptAt.map(formatter.string))
            }))
    }
}
