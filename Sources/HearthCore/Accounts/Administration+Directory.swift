import Foundation

extension Administration {
    /// Every user matching any of the given ids, emails, phone numbers or linked identities (`providerID`,
    /// `rawID`), once each, in that order (`accounts:lookup` with admin credentials).
    public func findUsers(in project: ProjectContext, localIDs: [String] = [], emails: [String] = [],
                          phoneNumbers: [String] = [], identities: [(providerID: String, rawID: String)] = [])
        async throws -> [UserRecord] {
        let (id, tenant) = (project.id, project.tenantID)
        var found: [UserRecord] = []
        for localID in localIDs {
            if let user = try await store.user(projectID: id, tenantID: tenant, localID: localID) { found.append(user) }
        }
        for email in emails {
            if let user = try await store.user(projectID: id, tenantID: tenant, email: email) { found.append(user) }
        }
        for phone in phoneNumbers {
            if let user = try await store.user(projectID: id, tenantID: tenant, phoneNumber: phone) { found.append(user) }
        }
        for identity in identities {
            if let user = try await store.user(projectID: id, tenantID: tenant, providerID: identity.providerID,
                                               rawID: identity.rawID) { found.append(user) }
        }
        var seen = Set<String>()
        return found.filter { seen.insert($0.localID).inserted }
    }

    /// Deletes an account with its sessions and identities; `USER_NOT_FOUND` when there is none.
    public func deleteUser(in project: ProjectContext, localID: String) async throws {
        guard try await store.deleteUser(projectID: project.id, tenantID: project.tenantID, localID: localID) else {
            throw AuthFailure.userNotFound
        }
        await audit?.record(SecurityEvent(kind: .accountDeleted, projectID: project.id, localID: localID,
                                          details: ["by": "administrator"]))
    }

    /// A page of the project's (or tenant's) users in `localId` byte order, after `localID`.
    public func listUsers(in project: ProjectContext, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await store.users(projectID: project.id, tenantID: project.tenantID, after: localID, limit: limit)
    }

    /// `accounts:query`: count, sort, page and one equality filter.
    public func queryUsers(in project: ProjectContext, _ query: UserQuery) async throws -> UserQueryResult {
        try await store.queryUsers(projectID: project.id, query)
    }

    /// The emulator's reset: every account of the project, or of one tenant (the tenant itself stays).
    public func deleteAllUsers(in project: ProjectContext, tenantID: String?) async throws {
        guard let tenantID else {
            try await store.deleteAllUsers(projectID: project.id)
            return
        }
        while case let page = try await store.users(projectID: project.id, tenantID: tenantID, after: nil, limit: 500),
              !page.isEmpty {
            for user in page { _ = try await store.deleteUser(projectID: project.id, tenantID: tenantID, localID: user.localID) }
        }
    }
}
