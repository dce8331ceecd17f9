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
        let events = try await call.services.accounts.operatorTools.auditEvents(in: project, query)
        let next = events.count == query.limit ? events.last.map { AuditCursor($0).token } : nil
        return json(AuditEventsResponse(events: events.map(AuditEventWire.init), nextPageToken: next))
    }
}

extension AuditRoutes {
    struct Stats: Encodable {
        struct Day: Encodable {
            var date: String
            var signIns = 0
            var signUps = 0
            var failures = 0
            /// Distinct users who signed in that day.
            var activeUsers = 0
        }
        var days: [Day]
        /// Sign-ins over the whole window by provider (`password`, `google.com`, `anonymous`, `custom`, …), as
        /// Firebase's usage page breaks them down.
        var providers: [String: Int] = [:]
        /// Counted from at most `limit` events; true when the window held more.
        var truncated: Bool
    }

    /// `GET v1/projects/{project}/auditStats?days=14`: sign-ins, sign-ups, failed sign-ins and active users per UTC
    /// day, from the audit log (what the console's dashboard draws).
    static func stats(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let days = call.request.uri.queryParameters["days"].flatMap { Int(String($0)) } ?? 14
        guard (1...90).contains(days) else { throw APIError.business(.invalidArgument, "days must be between 1 and 90") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let today = calendar.startOfDay(for: call.services.accounts.clock.now())
        let start = calendar.date(byAdding: .day, value: -(days - 1), to: today)!
        let formatter = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        var counts = (0..<days).map { Stats.Day(date: calendar.date(byAdding: .day, value: $0, to: start)!.formatted(formatter)) }
        var active = Array(repeating: Set<String>(), count: days)
        var providers: [String: Int] = [:]
        var query = AuditQuery(kinds: ["sign-in", "sign-up", "sign-in-failed"], from: start, limit: 1000)
        var seen = 0
        let limit = 200_000
        while seen < limit {
            let events = try await call.services.accounts.operatorTools.auditEvents(in: project, query)
            for event in events {
                let index = calendar.dateComponents([.day], from: start, to: event.at).day ?? -1
                guard counts.indices.contains(index) else { continue }
                switch event.kind {
                case "sign-in":
                    counts[index].signIns += 1
                    providers[event.details["provider"] ?? "other", default: 0] += 1
                    if let user = event.localID { active[index].insert(user) }
                case "sign-up": counts[index].signUps += 1
                default: counts[index].failures += 1
                }
            }
            seen += events.count
            guard events.count == query.limit, let last = events.last else { break }
            query.after = AuditCursor(last)
        }
        for index in counts.indices { counts[index].activeUsers = active[index].count }
        return json(Stats(days: counts, providers: providers, truncated: seen >= limit))
    }
}
