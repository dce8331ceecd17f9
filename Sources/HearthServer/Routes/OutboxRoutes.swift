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
        let entries = try await call.services.accounts.operatorTools.outbox(in: project, limit: 500)
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
        guard let raw = call.parameter("message"), raw.hasSuffix(":retry"),
              let queued = try await call.services.accounts.operatorTools.retry(String(raw.dropLast(6)), in: project,
                                                                             links: call.actionLinks(project))
        else { throw APIError.notFound }
        call.services.emailQueued(queued)
        return json([String: String]())
    }
}
