import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// The admin API (`/v1/projects/{project}/…`, bearer credentials). For now: `accounts:batchCreate` (import),
/// `accounts:lookup` by uid or email, and `accounts:delete` by uid.
enum AdminRoutes {
    /// Every user matching any of the given uids or emails, once each; `users` is left out when none matched.
    static func lookup(_ call: Call) async throws -> Response {
        let request = try call.decode(LookupRequest.self)
        let project = try await call.adminProject(nil)
        let store = call.services.store
        var found: [UserRecord] = []
        for id in request.localId ?? [] {
            if let user = try await store.user(projectID: project.id, tenantID: nil, localID: id) { found.append(user) }
        }
        for email in request.email ?? [] {
            if let user = try await store.user(projectID: project.id, tenantID: nil, email: email) { found.append(user) }
        }
        var seen = Set<String>()
        let users = found.filter { seen.insert($0.localID).inserted }
        return json(LookupResponse(users: users.isEmpty ? nil : users.map(UserInfo.init)))
    }

    /// Admin `accounts:update`: profile and admin-only fields of the user `localId`.
    static func update(_ call: Call) async throws -> Response {
        let request = try call.decode(UpdateAccountRequest.self)
        let project = try await call.adminProject(nil)
        let deleted = Set(request.deleteAttribute ?? [])
        var changes = AdminChanges()
        changes.profile = AccountChanges(
            email: request.email, password: request.password, displayName: request.displayName,
            photoURL: request.photoUrl, deleteDisplayName: deleted.contains(.displayName),
            deletePhotoURL: deleted.contains(.photoURL))
        changes.customAttributes = request.customAttributes
        changes.disabled = request.disableUser
        changes.emailVerified = request.emailVerified
        changes.validSince = request.validSince
        changes.phoneNumber = request.phoneNumber
        if request.deleteProvider?.contains("phone") == true { changes.phoneNumber = "" }
        let user = try await call.services.accounts.adminUpdate(in: project, localID: request.localId, changes: changes)
        return json(UpdateAccountResponse(user))
    }

    static func delete(_ call: Call) async throws -> Response {
        let request = try call.decode(DeleteAccountRequest.self)
        let project = try await call.adminProject(nil)
        guard let localID = request.localId, !localID.isEmpty else { throw AuthFailure.missingLocalID }
        guard try await call.services.store.deleteUser(projectID: project.id, tenantID: nil, localID: localID) else {
            throw AuthFailure.userNotFound
        }
        return json(DeleteAccountResponse())
    }

    static func batchCreate(_ call: Call) async throws -> Response {
        let request = try call.decode(BatchCreateRequest.self)
        let project = try await call.adminProject(request.targetProjectId)
        let hashing = try request.hashAlgorithm.map { name in
            try ImportHashing(
                algorithm: name, signerKey: request.signerKey, saltSeparator: request.saltSeparator,
                rounds: request.rounds.map { Int(clamping: $0) }, memoryCost: request.memoryCost.map { Int(clamping: $0) },
                cpuMemCost: request.cpuMemCost.map { Int(clamping: $0) },
                parallelization: request.parallelization.map { Int(clamping: $0) },
                blockSize: request.blockSize.map { Int(clamping: $0) }, order: request.passwordHashOrder)
        }
        let users = request.users.map { user in
            var imported = ImportUser(localID: user.localId, email: user.email)
            imported.emailVerified = user.emailVerified ?? false
            imported.passwordHash = user.passwordHash
            imported.salt = user.salt
            imported.displayName = user.displayName
            imported.photoURL = user.photoUrl
            imported.phoneNumber = user.phoneNumber
            imported.disabled = user.disabled ?? false
            imported.createdAt = user.createdAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            imported.lastLoginAt = user.lastLoginAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            imported.customAttributes = user.customAttributes
            imported.providers = user.providerUserInfo.compactMap { provider in
                guard let id = provider.providerId, let rawID = provider.rawId else { return nil }
                return ProviderUserInfo(providerID: id, rawID: rawID, email: provider.email,
                                        displayName: provider.displayName, photoURL: provider.photoUrl,
                                        phoneNumber: provider.phoneNumber, screenName: provider.screenName)
            }
            return imported
        }
        let rejected = try await call.services.accounts.importUsers(
            in: project, users, hashing: hashing, allowOverwrite: request.allowOverwrite ?? false)
        return json(BatchCreateResponse(error: rejected.map { .init(index: $0.index, message: $0.message) }))
    }
}

extension Call {
    /// The project of an admin call: the path's, else the body's `targetProjectId` (v3 names).
    func adminProject(_ target: String?) async throws -> ProjectContext {
        if let project { return project }
        guard let target, ProjectID.isValid(target) else {
            throw APIError.business(.invalidArgument, "targetProjectId is missing or invalid")
        }
        return try await services.emulatorProject(target)
    }
}
