import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `GET v1/projects/{project}/auditEvents`: the audit log, newest first, with filters and paging.
enum AuditRoutes {
    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let parameters = call.request.uri.queryParameters
        func value(_ name: String) -> String? { parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        func time(_ name: String) throws -> Date? {
            guard let text = value(name) else { return nil }
            guard let date = (try? Date(text, strategy: .iso8601))
                    ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            else { throw APIError.business(.invalidArgument, "\(name) must be an RFC 3339 time") }
            return date
        }
        var query = AuditQuery(localID: value("localId"), kinds: value("type")?.split(separator: ",").map(String.init),
                               from: try time("startTime"), until: try time("endTime"))
        if let size = value("pageSize") {
            guard let limit = Int(size), (1...1000).contains(limit) else {
                throw APIError.business(.invalidArgument, "pageSize must be 1-1000")
            }
            query.limit = limit
        }
        if let token = value("pageToken") {
            guard let cursor = AuditCursor(token: token) else { throw APIError.business(.invalidArgument, "invalid pageToken") }
            query.after = cursor
        }
        let events = try await call.services.store.auditEvents(projectID: project.id, query)
        let next = events.count == query.limit ? events.last.map { AuditCursor($0).token } : nil
        return json(AuditEventsResponse(events: events.map(AuditEventWire.init), nextPageToken: next))
    }
}

extension AuditEventWire {
    init(_ event: AuditEvent) {
        self.init(id: event.id, time: event.at.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)),
                  type: event.kind, localId: event.localID, outcome: event.outcome.rawValue.uppercased(),
                  clientAddress: event.clientAddress, details: event.details.isEmpty ? nil : event.details)
    }
}
