import Foundation
import HearthCore
import Hummingbird

/// `v1/projects/{project}/serviceAccounts` (Hearth's own, admin): list, create (the answer is the key file, the only
/// time the private key exists outside the caller's hands) and delete the keys that call the admin API, as
/// `hearth service-accounts` does from the command line.
enum ServiceAccountRoutes {
    struct Listed: Encodable {
        struct Account: Encodable {
            var name: String
            var clientEmail: String
            var keyId: String
            var createTime: String
            var createdBy: String?
        }
        var serviceAccounts: [Account]
    }

    static func list(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let formatter = ISO8601DateFormatter()
        return json(Listed(serviceAccounts: project.record.serviceAccounts.map {
            .init(name: $0.name, clientEmail: $0.clientEmail, keyId: $0.keyID, createTime: formatter.string(from: $0.createdAt),
                  createdBy: $0.createdBy)
        }))
    }

    static func create(_ call: Call) async throws -> Response {
        struct Body: Decodable { var name: String? }
        guard let body = call.jsonBody(Body.self), let name = body.name,
              ServiceAccountRecord.isValidName(name)
        else { throw APIError.business(.invalidArgument, "name must be 6 to 30 lowercase letters, digits or hyphens, starting with a letter") }
        let project = try await call.adminProject(nil)
        let key = try ServiceAccountKey.generate(name: name, projectID: project.id, now: call.services.accounts.clock.now())
        var made = key.record
        made.createdBy = AuditScope.current?.actor  // the operator or service account: named in the list and the audit
        try await call.services.projects.modify(project.id) { [made] record in
            guard !record.serviceAccounts.contains(where: { $0.name == name }) else {
                throw APIError.business(.invalidArgument, "a service account named \(name) exists")
            }
            record.serviceAccounts.append(made)
        }
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        headers[.contentDisposition] = "attachment; filename=\"\(name).json\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: key.keyFileJSON)))
    }

    static func delete(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let name = call.parameter("name") ?? ""
        try await call.services.projects.modify(project.id) { record in
            let before = record.serviceAccounts.count
            record.serviceAccounts.removeAll { $0.name == name }
            guard record.serviceAccounts.count < before else { throw APIError.notFound }
        }
        return json([String: String]())
    }
}
