import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// The admin API's accounts (`/v1/projects/{project}/accounts…`, bearer credentials): create, lookup, update,
/// delete, batchGet, query, batchDelete, batchCreate (import), sendOobCode with `returnOobLink`, and session cookies.
enum AdminRoutes {
    /// Every user matching any of the given uids, emails, phone numbers or linked identities, once each; `users`
    /// is left out when none matched.
    static func lookup(_ call: Call, _ request: LookupRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        var found: [UserRecord] = []
        if let idToken = request.idToken {  // the token's own user, as a client's lookup (checked the same way)
            found.append(try await call.services.accounts.authenticate(idToken, in: project).user)
        }
        let identities = try (request.federatedUserId ?? []).map { id in
            guard let provider = id.providerId, let rawID = id.rawId else { throw AuthFailure.invalidProviderID }
            return (providerID: provider, rawID: rawID)
        }
        found += try await call.services.accounts.administration.findUsers(
            in: project, localIDs: request.localId ?? [], emails: request.email ?? [],
            phoneNumbers: request.phoneNumber ?? [], identities: identities)
        var seen = Set<String>()
        let users = found.filter { seen.insert($0.localID).inserted }
        return LookupResponse(users: users.isEmpty ? nil : users.map { UserInfo($0, exportingHashesOf: project) })
    }

    /// Admin `accounts:update`: profile and admin-only fields of the user `localId`.
    static func update(_ call: Call, _ request: UpdateAccountRequest) async throws -> any ResponseGenerator {
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
        changes.deleteProviders = request.deleteProvider ?? []
        changes.deletePasskeys = request.deletePasskey ?? []
        changes.mfaEnrollments = request.mfaEnrollments?.map(MFAEnrollmentInput.init)
        changes.linkProvider = request.linkProviderUserInfo.map(ProviderUserInfo.init)
        let user = try await call.services.accounts.administration.adminUpdate(in: project, localID: request.localId, changes: changes)
        return UpdateAccountResponse(user)
    }

    static func delete(_ call: Call, _ request: DeleteAccountRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        guard let localID = request.localId, !localID.isEmpty else { throw AuthFailure.missingLocalID }
        try await call.services.accounts.administration.deleteUser(in: project, localID: localID)
        return DeleteAccountResponse()
    }

    /// Admin create (`POST projects/{id}/accounts`): the short SignupNewUserResponse, no tokens.
    static func create(_ call: Call, _ request: AdminCreateAccountRequest) async throws -> any ResponseGenerator {
        if request.idToken != nil, request.localId != nil { throw APIError.business(.unexpectedParameter, "User ID") }
        let project = try await call.adminProject(nil)
        var new = AdminNewUser(localID: request.localId, email: request.email, password: request.password)
        new.emailVerified = request.emailVerified ?? false
        new.displayName = request.displayName
        new.photoURL = request.photoUrl
        new.phoneNumber = request.phoneNumber
        new.disabled = request.disabled ?? false
        new.mfa = (request.mfaInfo ?? []).map(MFAEnrollmentInput.init)
        let user = try await call.services.accounts.administration.adminCreate(in: project, new)
        return AdminCreateAccountResponse(localId: user.localID, email: user.email, displayName: user.displayName)
    }

    /// `GET accounts:batchGet?maxResults=&nextPageToken=`: a page in `localId` byte order; the token is the last id.
    static func batchGet(_ call: Call) async throws -> Response {
        let query = call.request.uri.queryParameters
        return try await usersPage(call, project: try await call.adminProject(nil),
                                   maxResults: query["maxResults"].map(String.init),
                                   after: query["nextPageToken"].map(String.init))
    }

    /// Legacy v3 `downloadAccount`: `batchGet` with its fields in the body, in the body's `targetProjectId`.
    static func downloadAccount(_ call: Call, _ request: DownloadAccountRequest) async throws -> any ResponseGenerator {
        let target = try legacyTarget(call, request.targetProjectId)
        return try await usersPage(call, project: try await call.adminProject(target), maxResults: request.maxResults,
                                   after: request.nextPageToken)
    }

    /// The legacy v3 names need `targetProjectId`; without it Google answers `INSUFFICIENT_PERMISSION`.
    static func legacyTarget(_ call: Call, _ target: String?) throws -> String? {
        guard call.project == nil, call.request.uri.path.hasPrefix(HearthRoutes.v3) else { return target }
        guard let target, !target.isEmpty else { throw APIError.business(.insufficientPermission) }
        return target
    }

    /// One page of a project's users in `localId` order; a full page always carries a `nextPageToken`.
    private static func usersPage(_ call: Call, project: ProjectContext, maxResults text: String?, after: String?)
        async throws -> Response {
        let maxResults = try text.map { text in
            guard let value = Int(text), (1...1000).contains(value) else {
                throw APIError.business(.invalidArgument, "maxResults must be between 1 and 1000")
            }
            return value
        } ?? 20
        let after = after.flatMap { $0.isEmpty ? nil : $0 }
        let users = try await call.services.accounts.administration.listUsers(in: project, after: after, limit: maxResults)
        return json(BatchGetResponse(
            users: users.isEmpty ? nil : users.map { UserInfo($0, exportingHashesOf: project) },
            nextPageToken: users.count == maxResults ? users.last?.localID : nil))
    }

    /// `accounts:query`: count, sort, page and one equality filter, as production Firebase offers.
    static func query(_ call: Call, _ request: QueryAccountsRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        var query = UserQuery(tenantID: project.tenantID)
        if let name = request.sortBy {
            guard let field = UserQuery.SortField(rawValue: name) else {
                throw APIError.business(.invalidArgument, "sortBy must be one of USER_ID, NAME, CREATED_AT, LAST_LOGIN_AT, USER_EMAIL")
            }
            query.sortBy = field
        }
        switch request.order ?? "ASC" {
        case "ASC", "ORDER_UNSPECIFIED": query.descending = false
        case "DESC": query.descending = true
        default: throw APIError.business(.invalidArgument, "order must be ASC or DESC")
        }
        if let limit = request.limit {
            guard (1...Int64(UserQuery.maximumLimit)).contains(limit) else {
                throw APIError.business(.invalidArgument, "limit must be between 1 and \(UserQuery.maximumLimit)")
            }
            query.limit = Int(limit)
        }
        if let offset = request.offset {
            guard offset >= 0, offset <= Int64(Int32.max) else { throw APIError.business(.invalidArgument, "offset must not be negative") }
            query.offset = Int(offset)
        }
        if let first = request.expression.first {
            query.filter = if let email = first.email { .email(email) }
                else if let id = first.userId { .localID(id) }
                else if let phone = first.phoneNumber { .phoneNumber(phone) }
                else { nil }
        }
        let result = try await call.services.accounts.administration.queryUsers(in: project, query)
        let returnUsers = request.returnUserInfo ?? true
        return QueryAccountsResponse(
            recordsCount: result.count,
            userInfo: returnUsers ? result.users.map { UserInfo($0, exportingHashesOf: project) } : nil)
    }

    static func batchDelete(_ call: Call, _ request: BatchDeleteRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        guard (1...1000).contains(request.localIds.count) else { throw APIError.business(.localIDListExceedsLimit) }
        let refused = try await call.services.accounts.administration.batchDelete(
            in: project, localIDs: request.localIds, force: request.force ?? false)
        return BatchDeleteResponse(errors: refused.isEmpty ? nil : refused.map {
            .init(index: $0.index, localId: $0.localID, message: "NOT_DISABLED : Disable the account before batch deletion.")
        })
    }

    /// Admin `accounts:sendOobCode`: the user is named by email; with `returnOobLink` the link comes back in the
    /// answer and nothing is sent (Admin SDKs' `generatePasswordResetLink` and friends).
    static func sendOobCode(_ call: Call, _ request: SendOobCodeRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        guard let type = request.requestType else { throw AuthFailure.missingRequestType }
        var actionRequest = ActionCodeRequest(
            type: ActionCodeType(rawValue: type.rawValue)!, email: request.email, idToken: request.idToken,
            newEmail: request.newEmail, continueURL: request.continueUrl, locale: call.locale,
            linkDomain: request.linkDomain)
        actionRequest.byAdministrator = true
        actionRequest.returnLink = request.returnOobLink == true
        let sent = try await call.services.accounts.actionCodes.sendActionCode(
            in: project, actionRequest, links: call.actionLinks(project),
            authorizedDomains: call.configuration.continueURLDomains(for: project.record))
        guard let sent else { return SendOobCodeResponse(email: request.email) }
        if actionRequest.returnLink {
            return SendOobCodeResponse(email: sent.email, oobCode: sent.message.code, oobLink: sent.message.link)
        }
        call.services.emailQueued(sent.message)
        return SendOobCodeResponse(email: sent.email)
    }

    static func createSessionCookie(_ call: Call, _ request: CreateSessionCookieRequest) async throws -> any ResponseGenerator {
        let project = try await call.adminProject(nil)
        let cookie = try await call.services.accounts.administration.createSessionCookie(
            in: project, idToken: request.idToken, validDuration: request.validDuration)
        return CreateSessionCookieResponse(sessionCookie: cookie)
    }

    static func batchCreate(_ call: Call, _ request: BatchCreateRequest) async throws -> any ResponseGenerator {
        if let invalid = request.invalidBytes { throw APIError.invalidArgument(invalid) }
        let project = try await call.adminProject(try legacyTarget(call, request.targetProjectId))
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
            imported.passwordHash = user.passwordHashBytes
            imported.salt = user.saltBytes
            imported.displayName = user.displayName
            imported.photoURL = user.photoUrl
            imported.phoneNumber = user.phoneNumber
            imported.disabled = user.disabled ?? false
            imported.createdAt = user.createdAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            imported.lastLoginAt = user.lastSignIn.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            imported.customAttributes = user.customAttributes
            if let incomplete = user.providerUserInfo.first(where: { $0.providerId == nil || $0.rawId == nil }) {
                imported.incompleteIdentity = incomplete.federatedId == nil ? .missingIDs : .federatedIDOnly
            }
            imported.rawPassword = user.rawPassword
            imported.tenantID = user.tenantId
            imported.emulatorFakeHash = user.fakePasswordHash?.hash
            imported.providers = user.providerUserInfo.compactMap { provider in
                guard let id = provider.providerId, let rawID = provider.rawId else { return nil }
                return ProviderUserInfo(providerID: id, rawID: rawID, email: provider.email,
                                        displayName: provider.displayName, photoURL: provider.photoUrl,
                                        phoneNumber: provider.phoneNumber, screenName: provider.screenName)
            }
            imported.mfa = user.mfaInfo.map(MFAEnrollmentInput.init)
            return imported
        }
        let rejected = try await call.services.accounts.importer.importUsers(
            in: project, users, hashing: hashing, allowOverwrite: request.allowOverwrite ?? false,
            sanityCheck: request.sanityCheck ?? false)
        return BatchCreateResponse(error: rejected.map { .init(index: $0.index, message: $0.message) })
    }
}

extension Call {
    /// The project of an admin call: the path's, else the body's `targetProjectId` (v3 names), else the
    /// credential's own (the served project; `Bearer owner`'s default project in emulator mode).
    func adminProject(_ target: String?) async throws -> ProjectContext {
        if let project { return project }
        guard let target else { return try await services.defaultProject() }
        guard ProjectID.isValid(target) else { throw APIError.business(.invalidArgument, "targetProjectId is invalid") }
        return try await services.emulatorProject(target)
    }
}
