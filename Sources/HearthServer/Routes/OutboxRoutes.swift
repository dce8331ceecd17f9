import Foundation
import HearthCore
import Hummingbird

/// `v1/projects/{project}/outbox` (Hearth's own, admin): the emails waiting or given up, with their attempts and last
/// error, and `…/outbox/{id}:retry` to try one again now. Codes and links are never shown: they are the recipients'.
enum OutboxRoutes {
    struct Listed: Encodable {
        struct Message: Encodable {
            var id: String
            var type: String
            var recipient: String
            var createTime: String
            var attempts: Int
            /// `PENDING` (to be tried at `nextAttemptTime`) or `FAILED` (given up).
            var state: String
            var nextAttemptTime: String?
            var lastError: String?
        }
        var messages: [Message]
    }

    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let formatter = ISO8601DateFormatter()
        let entries = try await call.services.store.outboxStatus(projectID: project.id, limit: 500)
        return json(Listed(messages: entries.map { entry in
            .init(id: entry.message.id, type: entry.message.type.rawValue, recipient: entry.message.recipient,
                  createTime: formatter.string(from: entry.message.createdAt), attempts: entry.attempts,
                  state: entry.nextAttemptAt == nil ? "FAILED" : "PENDING",
                  nextAttemptTime: entry.nextAttemptAt.map(formatter.string), lastError: entry.lastError)
        }))
    }

    /// Puts a message back in line for now (its attempts are kept, so the backoff goes on from there).
    static func retry(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        guard let raw = call.parameter("message"), raw.hasSuffix(":retry"), case let id = String(raw.dropLast(6)),
              let entry = try await call.services.store.outboxStatus(projectID: project.id, limit: 10_000)
                  .first(where: { $0.message.id == id })
        else { throw APIError.notFound }
        guard entry.message.isRedacted else {
            try await call.services.store.rescheduleOutboxMessage(id: id, attempts: entry.attempts,
                                                                   nextAttemptAt: call.services.accounts.clock.now(), lastError: "")
            call.services.emailQueued(entry.message)
            return json([String: String]())
        }
        // Given up: its code was discarded with it, so it goes again as a new message with a new code.
        let fresh = try await call.services.accounts.reissue(entry.message, in: project, links: call.actionLinks(project))
        try await call.services.store.deleteOutboxMessage(id: id)
        call.services.emailQueued(fresh)
        return json([String: String]())
    }
}
