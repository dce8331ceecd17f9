import Foundation
import HearthCore
import Hummingbird

/// `v1/projects/{project}/smsHalts` (Hearth's own, admin): the number prefixes SMS is halted to because they were
/// being pumped (``SMSPumpingWatch``), and `DELETE …/smsHalts/{prefix}` (its digits, no `+`) to lift one early.
enum SMSHaltRoutes {
    struct Listed: Encodable {
        struct Halt: Encodable {
            var prefix: String
            var numbers: Int
            var startTime: String
            var endTime: String
        }
        var halts: [Halt]
    }

    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let formatter = ISO8601DateFormatter()
        let halts = try await call.services.smsPumping.halts(projectID: project.id)
        return json(Listed(halts: halts.map {
            .init(prefix: $0.prefix, numbers: $0.numbers, startTime: formatter.string(from: $0.since),
                  endTime: formatter.string(from: $0.until))
        }))
    }

    static func lift(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        guard let digits = call.parameter("prefix"), !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
              try await call.services.smsPumping.lift(prefix: "+" + digits, projectID: project.id)
        else { throw APIError.notFound }
        await call.services.audit.record(kind: "sms-prefix-lifted", projectID: project.id, localID: nil, outcome: .success,
                                         details: ["prefix": "+" + digits])
        return json([String: String]())
    }
}
