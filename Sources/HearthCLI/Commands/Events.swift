import ArgumentParser
import Foundation
import HearthCore

/// `hearth events add|list|remove|replay|deliveries`: where the project's account events go as signed webhooks.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Send account events (sign-ups, deletions, sign-ins, …) to your backend as signed webhooks.",
        discussion: """
            Events are Standard Webhooks (standardwebhooks.com): a JSON body with `type`, `timestamp` and `data`, \
            signed with the endpoint's secret in the webhook-id, webhook-timestamp and webhook-signature headers, so \
            the `standardwebhooks` libraries verify them. Each is queued in the store with the audit event it comes \
            from, retried with back-off for about a day, and delivered in order per user. See docs/events.md.

              hearth events add https://api.example.com/hearth-events
              hearth events replay --since 2026-11-26T10:00:00Z
            """,
        subcommands: [Add.self, List.self, Remove.self, Replay.self, Deliveries.self])

    static func withStore<T>(_ data: DataOptions, _ body: (any IdentityStore, ProjectContext) async throws -> T) async throws -> T {
        let (store, project, _) = try await data.open()
        do {
            let result = try await body(store, project)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    struct Add: AsyncParsableCommand, AuditedCommand {
        var subject: String? { url }
        static let configuration = CommandConfiguration(
            abstract: "Add an endpoint; its signing secret is printed once.",
            discussion: """
                Every event type unless --type names some (repeat it). Example:

                  hearth events add https://api.example.com/hearth-events --type user.created --type user.deleted
                """)

        @Argument(help: "An https URL (http only for localhost).") var url: String
        @Option(name: .customLong("type"), help: "An event type: \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")).")
        var types: [String] = []
        @OptionGroup var data: DataOptions

        func run() async throws {
            guard let parsed = URLComponents(string: url), let host = parsed.host, !host.isEmpty,
                  parsed.scheme == "https" || (parsed.scheme == "http" && ["localhost", "127.0.0.1", "::1"].contains(host))
            else { throw ValidationError("'\(url)' is not an https URL (http is allowed for localhost only)") }
            let chosen = try types.map { name in
                guard let type = WebhookEventType(rawValue: name) else {
                    throw ValidationError("unknown event type \(name): use \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return type
            }
            let endpoint = try await Events.withStore(data) { store, project in
                let endpoint = WebhookEndpoint(projectID: project.id, url: url,
                                               types: chosen.isEmpty ? WebhookEventType.allCases : chosen, now: Date())
                try await store.insertWebhookEndpoint(endpoint)
                return endpoint
            }
            print("added endpoint \(endpoint.id) → \(endpoint.url) (\(endpoint.types.map(\.rawValue).joined(separator: ", ")))")
            print("signing secret (shown once; give it to your receiver's Webhook(secret)): \(endpoint.secret)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the endpoints (without their secrets).")
        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            let endpoints = try await Events.withStore(data) { store, project in try await store.webhookEndpoints(projectID: project.id) }
            var table = Table(columns: [("id", "ID"), ("url", "URL"), ("types", "EVENTS"), ("created", "CREATED")])
            let formatter = ISO8601DateFormatter()
            for endpoint in endpoints {
                let types = endpoint.types.count == WebhookEventType.allCases.count ? "all" : endpoint.types.map(\.rawValue).joined(separator: ",")
                table.append([endpoint.id, endpoint.url, types, formatter.string(from: endpoint.createdAt)])
            }
            table.print(json: json, whenEmpty: "no endpoints; add one with `hearth events add URL`")
        }
    }

    struct Remove: AsyncParsableCommand, AuditedCommand {
        var subject: String? { id }
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint; what it had not received yet is dropped.")
        @Argument(help: "The endpoint's id (ep_…).") var id: String
        @OptionGroup var data: DataOptions

        func run() async throws {
            let removed = try await Events.withStore(data) { store, project in
                try await store.deleteWebhookEndpoint(projectID: project.id, id: id)
            }
            guard removed else { throw ValidationError("no endpoint \(id); `hearth events list` shows them") }
            print("removed endpoint \(id)")
        }
    }

    struct Replay: AsyncParsableCommand, AuditedCommand {
        var subject: String? { endpoint }
        static let configuration = CommandConfiguration(
            abstract: "Send the audit log's events since a time again (a receiver that lost them, a new endpoint).",
            discussion: """
                Each goes with its original webhook-id, so a receiver that deduplicates sees it once. A running \
                server sends them within its poll interval. Example:

                  hearth events replay --since 2026-11-26T10:00:00Z --endpoint ep_0123456789abcdef
                """)

        @Option(help: "An ISO 8601 time (2026-11-26T10:00:00Z), or a duration back from now: 90m, 6h, 2d.") var since: String
        @Option(help: "Only this endpoint (default: every endpoint).") var endpoint: String?
        @OptionGroup var data: DataOptions

        static func parse(_ text: String, now: Date) -> Date? {
            if let date = ISO8601DateFormatter().date(from: text) { return date }
            let units: [Character: TimeInterval] = ["m": 60, "h": 3600, "d": 86400]
            guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 else { return nil }
            return now - count * unit
        }

        func run() async throws {
            let now = Date()
            guard let from = Self.parse(since, now: now) else {
                throw ValidationError("--since \(since): give an ISO 8601 time (2026-11-26T10:00:00Z) or 90m, 6h, 2d")
            }
            let count = try await Events.withStore(data) { store, project in
                if let endpoint, try await !store.webhookEndpoints(projectID: project.id).contains(where: { $0.id == endpoint }) {
                    throw ValidationError("no endpoint \(endpoint); `hearth events list` shows them")
                }
                return try await store.replayWebhookEvents(projectID: project.id, since: from, endpointID: endpoint, now: now)
            }
            print("queued \(count) event\(count == 1 ? "" : "s") since \(ISO8601DateFormatter().string(from: from)) again; a running server sends them shortly")
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the latest deliveries: delivered, pending, given up.")
        @Option(help: "How many, newest first.") var limit = 20
        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            let messages = try await Events.withStore(data) { store, project in
                try await store.webhookMessages(projectID: project.id, limit: max(1, min(limit, 500)))
            }
            var table = Table(columns: [("event", "EVENT"), ("type", "TYPE"), ("user", "USER"), ("endpoint", "ENDPOINT"),
                                        ("state", "STATE"), ("attempts", "ATTEMPTS"), ("lastError", "LAST ERROR")])
            for message in messages {
                let type = message.event.flatMap { WebhookEventType(auditKind: $0.kind)?.rawValue } ?? "?"
                table.append([message.eventID, type, message.event?.localID ?? "", message.endpointID, message.state,
                              String(message.attempts), message.lastError ?? ""])
            }
            table.print(json: json, whenEmpty: "nothing sent yet")
        }
    }
}
