import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `accounts:signUp`, `signInWithPassword`, `lookup`, `update`, `delete`, `createAuthUri` and `getProjectConfig`.
enum AccountRoutes {
    static func signUp(_ call: Call, _ request: SignUpRequest) async throws -> Response {
        guard request.localId == nil else { throw APIError.business(.unexpectedParameter, "User ID") }  // admins only
        let result = try await call.services.accounts.signUp(
            in: try call.clientProject, email: request.email, password: request.password,
            displayName: request.displayName, idToken: request.idToken,
            // Production does not let a client enrol factors it never verified; the emulator does.
            secondFactors: call.configuration.isEmulator ? (request.mfaInfo ?? []).map(MFAEnrollmentInput.init) : [])
        let user = result.user
        return json(SignUpResponse(
            localId: user.localID, email: user.email, displayName: user.displayName,
            idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
            expiresIn: String(result.tokens.expiresIn)))
    }

    static func signInWithPassword(_ call: Call, _ request: SignInWithPasswordRequest) async throws -> Response {
        let outcome = try await call.services.accounts.signInWithPassword(
            in: try call.clientProject, email: request.email, password: request.password)
        return outcome.response { result in
            let user = result.user
            return json(SignInWithPasswordResponse(
                localId: user.localID, email: user.email, displayName: user.displayName, profilePicture: user.photoURL,
                idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                expiresIn: String(result.tokens.expiresIn)))
        }
    }

    static func signInWithCustomToken(_ call: Call, _ request: SignInWithCustomTokenRequest) async throws -> Response {
        let project = try call.clientProject
        let signIn = { (project: ProjectContext) in
            try await call.services.accounts.signInWithCustomToken(
                in: project, token: request.token, tenantID: request.tenantId, allowUnsigned: call.configuration.isEmulator)
        }
        let outcome: AccountService.SignInOutcome
        do {
            outcome = try await signIn(project)
        } catch AuthFailure.credentialMismatch {
            // A key the cached project does not know may be a service account created a moment ago: look once past
            // the cache, as the admin guard does, so every name of this route accepts it at once.
            guard let current = try await call.services.projects.reloaded(project.id), current.record != project.record else {
                throw AuthFailure.credentialMismatch
            }
            outcome = try await signIn(current.scoped(to: project.tenant))
        }
        return outcome.response { result in
            json(SignInWithCustomTokenResponse(
                isNewUser: result.isNewUser, idToken: result.tokens.idToken, refreshToken: result.tokens.refreshToken,
                expiresIn: String(result.tokens.expiresIn)))
        }
    }

    static func lookup(_ call: Call, _ request: LookupRequest) async throws -> Response {
        let user = try await call.services.accounts.lookup(in: try call.clientProject, idToken: request.idToken)
        return json(LookupResponse(users: [UserInfo(user)]))
    }

    static func delete(_ call: Call, _ request: DeleteAccountRequest) async throws -> Response {
        try await call.services.accounts.deleteAccount(in: try call.clientProject, idToken: request.idToken)
        return json(DeleteAccountResponse())
    }

    static func update(_ call: Call, _ request: UpdateAccountRequest) async throws -> Response {
        if let code = request.oobCode {
            let project = try call.clientProject
            let (user, record, notice) = try await call.services.accounts.applyActionCode(
                in: project, code: code, links: call.actionLinks(project), locale: call.locale)
            if let notice { call.services.emailQueued(notice) }
            var response = UpdateAccountResponse(user)
            response.newEmail = record.newEmail
            return json(response)
        }
        // Admin-only fields need admin credentials (`projects/{id}/accounts:update`), as Firebase answers.
        if request.localId != nil || request.customAttributes != nil || request.disableUser != nil
            || request.emailVerified != nil || request.validSince != nil || request.phoneNumber != nil {
            throw APIError.business(.insufficientPermission)
        }
        if let link = request.linkProviderUserInfo {
            // An identity nobody vouches for: administrators only, except in emulator mode (README: Modes).
            guard call.configuration.isEmulator else { throw APIError.business(.insufficientPermission) }
            let user = try await call.services.accounts.linkDescribedIdentity(
                in: try call.clientProject, idToken: request.idToken, identity: ProviderUserInfo(link))
            return json(UpdateAccountResponse(user))
        }
        // Unlinking (`user.unlink(fromProvider:)`): a request of its own, with the user's new state.
        if let providers = request.deleteProvider, !providers.isEmpty {
            let user = try await call.services.accounts.unlink(in: try call.clientProject, idToken: request.idToken,
                                                               providers: providers)
            return json(UpdateAccountResponse(user))
        }
        let deleted = Set(request.deleteAttribute ?? [])
        if let unsupported = deleted.subtracting([.displayName, .photoURL]).first {
            throw APIError.business(.operationNotAllowed, "deleting \(unsupported.rawValue) is not supported by this server yet")
        }
        let changes = AccountChanges(
            email: request.email, password: request.password, displayName: request.displayName,
            photoURL: request.photoUrl, deleteDisplayName: deleted.contains(.displayName),
            deletePhotoURL: deleted.contains(.photoURL))
        let project = try call.clientProject
        let result = try await call.services.accounts.updateAccount(
            in: project, idToken: request.idToken, changes: changes, links: call.actionLinks(project),
            locale: call.locale)
        if let notice = result.recoveryNotice { call.services.emailQueued(notice) }
        var response = UpdateAccountResponse(result.user)
        response.newEmail = result.newEmail
        response.idToken = result.tokens?.idToken
        response.refreshToken = result.tokens?.refreshToken
        response.expiresIn = result.tokens.map { String($0.expiresIn) }
        return json(response)
    }

    static func createAuthUri(_ call: Call, _ request: CreateAuthUriRequest) async throws -> Response {
        if let providerID = request.providerId { return try await FederatedRoutes.createAuthUri(call, request, providerID: providerID) }
        let methods = try await call.services.accounts.signInMethods(
            in: try call.clientProject, identifier: request.identifier, continueURI: request.continueUri)
        return json(CreateAuthUriResponse(
            registered: methods?.registered, allProviders: methods?.allProviders,
            signinMethods: methods?.signInMethods,
            sessionId: request.sessionId.flatMap { $0.isEmpty ? nil : $0 } ?? SecureRandom.string(length: 27, alphabet: sessionAlphabet)))
    }

    private static let sessionAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func projectConfig(_ call: Call) async throws -> Response {
        let project = try call.clientProject
        return json(GetProjectConfigResponse(projectId: call.projectNumber(project),
                                             authorizedDomains: call.configuration.authorizedDomains))
    }
}

extension UpdateAccountResponse {
    /// The user part of an update response (the same fields as `UserInfo`, hash redacted).
    init(_ user: UserRecord) {
        let info = UserInfo(user)
        self.init(localId: info.localId)
        email = info.email
        emailVerified = info.emailVerified
        displayName = info.displayName
        photoUrl = info.photoUrl
        passwordHash = info.passwordHash
        providerUserInfo = info.providerUserInfo
    }
}

extension ProviderUserInfo {
    /// An identity as a request describes it (`linkProviderUserInfo`); a missing raw id is empty, and refused.
    init(_ wire: ProviderUserInfoInput) {
        self.init(providerID: wire.providerId ?? "", rawID: wire.rawId ?? "", federatedID: wire.federatedId, email: wire.email,
                  displayName: wire.displayName, photoURL: wire.photoUrl, phoneNumber: wire.phoneNumber,
                  screenName: wire.screenName)
    }
}

extension UserInfo {
    /// The wire form of a stored user; the password hash is always redacted (also what `hearth users get --json`
    /// prints).
    public init(_ user: UserRecord) {
        self.init(localId: user.localID)
        email = user.email
        emailVerified = user.email == nil ? nil : user.emailVerified
        displayName = user.displayName
        photoUrl = user.photoURL
        phoneNumber = user.phoneNumber
        disabled = user.disabled ? true : nil
        passwordHash = user.passwordHash == nil ? nil : UserInfo.redactedPasswordHash
        passwordUpdatedAt = user.passwordUpdatedAt.map { Double($0.epochMilliseconds) }
        validSince = user.isAnonymous ? nil : String(user.validSince)
        lastLoginAt = user.lastLoginAt.map { String($0.epochMilliseconds) }
        createdAt = String(user.createdAt.epochMilliseconds)
        lastRefreshAt = user.lastRefreshAt.map(rfc3339)
        customAttributes = user.customAttributes
        screenName = user.screenName
        initialEmail = user.initialEmail
        emailLinkSignin = user.emailLinkSignin == true ? true : nil
        let providers = user.providerUserInfo
        providerUserInfo = providers.isEmpty ? nil : providers.map {
            ProviderUserInfoWire(providerId: $0.providerID, rawId: $0.rawID, federatedId: $0.federatedID,
                                 email: $0.email, displayName: $0.displayName, photoUrl: $0.photoURL,
                                 phoneNumber: $0.phoneNumber, screenName: $0.screenName)
        }
        tenantId = user.tenantID
        mfaInfo = user.enrollments.isEmpty ? nil : user.enrollments.map { MFAInfoWire($0, obfuscated: false) }
    }
}

/// RFC 3339 with milliseconds in UTC, as Google formats `Timestamp` fields.
func rfc3339(_ date: Date) -> String {
    // Whole milliseconds, rounded: the formatter truncates, and a date read from `…28.990Z` is a hair below it.
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
    let whole = Date(timeIntervalSince1970: TimeInterval(fraction < 0 ? seconds - 1 : seconds))
        .formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    return whole.dropLast() + "." + String(String((fraction + 1000) % 1000 + 1000).dropFirst()) + "Z"
}
