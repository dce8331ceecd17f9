import Foundation
import HearthCore
import HearthWire

extension AuditEventWire {
    init(_ event: AuditEvent) {
        self.init(id: event.id, time: event.at.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)),
                  type: event.kind, localId: event.localID, outcome: event.outcome.rawValue.uppercased(),
                  clientAddress: event.clientAddress, details: event.details.isEmpty ? nil : event.details)
    }
}
